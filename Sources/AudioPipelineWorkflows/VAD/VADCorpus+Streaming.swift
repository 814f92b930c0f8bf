import AudioPipelineAdapters
import AudioPipelineCore

extension VADCorpus {
    /// What tuning keeps of one recording, computed while the file and its far-end `reference` (if
    /// any, pulled in step: `bandFrames`) stream by: the band features per frame length and the
    /// plot's envelope — the same as `features(_:_:rate:frameMilliseconds:)` and `envelope(_:)` over
    /// the whole signals, without holding them (an hour at 48 kHz was 691 MB of samples). Needs the
    /// file's declared length (the envelope's columns are fixed before the first sample); nil for a
    /// file that does not declare it.
    static func streamed(
        path: String, reference: String? = nil, resampler: ResamplerChoice = .default, frameMilliseconds: Set<Double>
    ) throws(AudioPipelineError) -> (
        features: [Double: Features], envelope: [(min: Float, max: Float)], rate: Int, samples: Int,
        playout: VADBargeInReplay.Playout?, warnings: [String]
    )? {
        guard let declared = try AudioFileReader(path: path).description.frames, declared > 0 else { return nil }
        let lengths = frameMilliseconds.sorted()
        var mic = [[VADBandFrame]](repeating: [], count: lengths.count)
        var far = [[SIMD8<Double>]](repeating: [], count: lengths.count)
        var envelope = EnvelopeBuilder(count: declared, columns: envelopeColumns)
        var meter: FrameLevels.Meter?
        let s = try bandFrames(
            path: path, reference: reference, resampler: resampler, frameMilliseconds: lengths,
            prepare: { rate in meter = FrameLevels.Meter(rate: rate) },
            block: { envelope.add($0) }, referenceBlock: { meter?.add($0) }
        ) { i, m, r in
            mic[i].append(m)
            if let r { far[i].append(r) }
        }
        var features: [Double: Features] = [:]
        for i in lengths.indices {
            features[lengths[i]] = Features(
                mic: mic[i], reference: reference == nil ? nil : far[i], frameSeconds: s.frameSeconds[i],
                sampleRate: s.rate)
        }
        let playout =
            reference == nil || meter == nil
            ? nil : VADBargeInReplay.Playout(levels: meter!.finish(), samples: s.samples, rate: s.rate)
        return (features, envelope.result, s.rate, s.samples, playout, s.warnings)
    }

    /// The recording at `path` (mono at its own rate) streamed through one band analyser per frame
    /// length and, with `reference`, its far-end reference pulled in step (`MonoPuller`: converted to
    /// the recording's rate with `resampler`, padded with silence or cut to its length, with
    /// `AudioLoader.reference`'s warnings) through its own: `frame(i, mic, reference)` gets each
    /// frame's band analysis (the reference's band powers) in order, for frame length
    /// `frameMilliseconds[i]`, the last incomplete frame included (as `EnergyVAD.finish` decides
    /// it). `prepare` gets the rate before the first sample is read; `block` sees the samples,
    /// `referenceBlock` the reference's (at the recording's rate, as long as the recording).
    /// Returns the frame lengths in seconds.
    static func bandFrames(
        path: String, reference: String?, resampler: ResamplerChoice, frameMilliseconds lengths: [Double],
        prepare: (Int) throws(AudioPipelineError) -> Void = { _ in },
        block: (UnsafeBufferPointer<Float>) -> Void = { _ in },
        referenceBlock: (UnsafeBufferPointer<Float>) -> Void = { _ in },
        frame: (Int, VADBandFrame, SIMD8<Double>?) -> Void
    ) throws(AudioPipelineError) -> (frameSeconds: [Double], rate: Int, samples: Int, warnings: [String]) {
        // Without a reference the one-pole bands; with one, the microphone and the reference through
        // the steep bands together (`VADBandPairAnalyzer`), as `EnergyVAD` analyses them.
        var mics: [VADBandAnalyzer] = []
        var pairs: [VADBandPairAnalyzer] = []
        // One block's frames of each analyser: both see the same samples, so as many frames.
        var micFrames: [VADBandFrame] = [], refFrames: [SIMD8<Double>] = []
        var far: MonoPuller?
        var farBlock: [Float] = []
        var rate = 0
        func pair(_ i: Int) {
            for j in micFrames.indices { frame(i, micFrames[j], far == nil ? nil : refFrames[j]) }
            micFrames.removeAll(keepingCapacity: true)
            refFrames.removeAll(keepingCapacity: true)
        }
        var (samples, warnings) = try AudioLoader.monoBlocks(path: path) { (r) throws(AudioPipelineError) in
            try checkRate(r, path: path)
            try prepare(r)
            rate = r
            let frameLengths = lengths.map { Int((Double(r) * $0 / 1000).rounded()) }
            if let reference {
                pairs = frameLengths.map { VADBandPairAnalyzer(sampleRate: r, frameLength: $0) }
                far = try MonoPuller(path: reference, rate: r, resampler: resampler)
            } else {
                mics = frameLengths.map { VADBandAnalyzer(sampleRate: r, frameLength: $0) }
            }
        } _: { (samples) throws(AudioPipelineError) in
            block(samples)
            if let far {
                if farBlock.count < samples.count { farBlock = [Float](repeating: 0, count: samples.count) }
                let got = try farBlock.withUnsafeMutableBufferPointer { (f) throws(AudioPipelineError) in
                    try far.pull(into: UnsafeMutableBufferPointer(rebasing: f[0..<samples.count]))
                }
                for k in got..<samples.count { farBlock[k] = 0 }  // silence past the reference's end
                farBlock.withUnsafeBufferPointer {
                    referenceBlock(UnsafeBufferPointer(rebasing: $0[0..<samples.count]))
                }
            }
            for i in mics.indices {
                mics[i].process(samples) { micFrames.append($0) }
                pair(i)
            }
            for i in pairs.indices {
                farBlock.withUnsafeBufferPointer { f in
                    pairs[i].process(mic: samples, reference: UnsafeBufferPointer(rebasing: f[0..<samples.count])) {
                        micFrames.append($0)
                        refFrames.append($1)
                    }
                }
                pair(i)
            }
        }
        for i in mics.indices {
            mics[i].finish { micFrames.append($0) }
            pair(i)
        }
        for i in pairs.indices {
            pairs[i].finish {
                micFrames.append($0)
                refFrames.append($1)
            }
            pair(i)
        }
        if let far, let reference {
            warnings += try far.referenceWarnings(path: reference, microphone: samples)
        }
        let frameLengths = far == nil ? mics.map(\.frameLength) : pairs.map(\.frameLength)
        return (frameLengths.map { Double($0) / Double(rate) }, rate, samples, warnings)
    }
}

extension VADCorpus {
    /// The rates the detector takes (`EnergyVAD`'s): a file at another is bad data, named (65).
    static func checkRate(_ rate: Int, path: String) throws(AudioPipelineError) {
        guard rate >= 4000 && rate <= 384_000 else {
            throw AudioPipelineError(
                .invalidData, "\(path): sample rate \(rate) Hz; the VAD takes 4 kHz … 384 kHz (convert it first)")
        }
    }
}

/// `VADCorpus.envelope(_:)` computed sample by sample: column c takes the min and max of the
/// samples in [c·n/C, c·n/C + max(1, n/C)) for n = `count`, scaled by the peak at the end.
struct EnvelopeBuilder {
    let count: Int, columns: Int, per: Int
    var lo: [Float], hi: [Float]
    var peak: Float = 1e-6
    var index = 0, column = 0

    init(count: Int, columns: Int) {
        (self.count, self.columns, per) = (count, columns, max(1, count / columns))
        (lo, hi) = ([Float](repeating: 0, count: columns), [Float](repeating: 0, count: columns))
    }

    func start(_ c: Int) -> Int { c * count / columns }

    mutating func add(_ block: UnsafeBufferPointer<Float>) {
        for v in block {
            peak = max(peak, abs(v))
            while column < columns && index >= start(column) + per { column += 1 }
            var c = column
            while c < columns && start(c) <= index {
                if index < start(c) + per { (lo[c], hi[c]) = (min(lo[c], v), max(hi[c], v)) }
                c += 1
            }
            index += 1
        }
    }

    var result: [(min: Float, max: Float)] { (0..<columns).map { (lo[$0] / peak, hi[$0] / peak) } }
}
