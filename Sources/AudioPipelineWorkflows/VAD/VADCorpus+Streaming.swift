import AudioPipelineAdapters
import AudioPipelineCore

extension VADCorpus {
    /// What tuning keeps of one recording, computed while the file streams by (mono at its own rate,
    /// block by block): the band features per frame length and the plot's envelope — the same as
    /// `features(_:_:rate:frameMilliseconds:)` and `envelope(_:)` over the whole signal, without
    /// holding it (an hour at 48 kHz was 691 MB of samples). Needs the file's declared length (the
    /// envelope's columns are fixed before the first sample); nil for a file that does not declare it.
    static func streamed(path: String, frameMilliseconds: Set<Double>) throws(AudioPipelineError) -> (
        features: [Double: Features], envelope: [(min: Float, max: Float)], rate: Int, samples: Int,
        warnings: [String]
    )? {
        guard let declared = try AudioFileReader(path: path).description.frames, declared > 0 else { return nil }
        let lengths = frameMilliseconds.sorted()
        var analyzers: [VADBandAnalyzer] = []
        var bands = [[SIMD4<Double>]](repeating: [], count: lengths.count)
        var envelope = EnvelopeBuilder(count: declared, columns: envelopeColumns)
        var rate = 0
        let (samples, warnings) = try AudioLoader.monoBlocks(path: path) { r in
            rate = r
            analyzers = lengths.map {
                VADBandAnalyzer(sampleRate: r, frameLength: Int((Double(r) * $0 / 1000).rounded()))
            }
        } _: { block in
            for i in analyzers.indices { analyzers[i].process(block) { bands[i].append($0) } }
            envelope.add(block)
        }
        var features: [Double: Features] = [:]
        for i in analyzers.indices {
            analyzers[i].finish { bands[i].append($0) }  // the last, incomplete frame, as `EnergyVAD.finish` decides it
            let seconds = Double(analyzers[i].frameLength) / Double(rate)
            features[lengths[i]] = Features(mic: bands[i], reference: nil, frameSeconds: seconds)
        }
        return (features, envelope.result, rate, samples, warnings)
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
