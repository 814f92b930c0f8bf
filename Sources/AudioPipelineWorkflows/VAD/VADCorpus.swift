import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// A labelled VAD corpus: `DIR/NAME.wav` (any audio file) paired with `LABELS/NAME.txt` (Audacity
/// labels) and, if present, the far-end reference `DIR/NAME<suffix>`.
///
/// Only what tuning needs is kept per file: the band features (per frame length), the labels and a
/// waveform envelope for the plots — not the samples, so a large corpus fits in little memory.
public struct VADCorpus: Sendable {
    /// One recording with its labels.
    public struct Item: Sendable {
        /// The recording's name (its file name without the extension).
        public var name: String
        /// The recording's path.
        public var audioPath: String
        /// Its far-end reference's path, if it has one.
        public var referencePath: String?
        /// The labelled speech.
        public var labels: [SpeechSegment]
        /// The recording's rate, Hz.
        public var rate: Int
        /// Its length, s.
        public var duration: Double
        /// Min/max of the waveform per plot column (`VADCorpus.envelopeColumns`), scaled to the peak.
        public var envelope: [(min: Float, max: Float)]
        /// Band features per frame length (ms).
        var features: [Double: Features]
        /// The far-end reference's levels, for the barge-in replay (nil: no reference).
        var playout: VADBargeInReplay.Playout?
    }

    /// The band analysis per frame of the microphone (and the reference's band powers), for one
    /// frame length.
    struct Features: Sendable {
        var mic: [VADBandFrame]
        var reference: [SIMD8<Double>]?
        var frameSeconds: Double
        /// The audio's rate (the decider's: `VADDecider.init(configuration:sampleRate:)`).
        var sampleRate: Int
    }

    /// Columns of the waveform envelope kept per file (the plots' width).
    public static let envelopeColumns = 1130
    static let audioExtensions: Set<String> = [
        "wav", "flac", "ogg", "aif", "aiff", "caf", "w64", "rf64", "mp3", "opus",
    ]

    /// The recordings paired with labels, in name order.
    public var items: [Item] = []
    /// Files without a partner (listed, not fatal).
    public var skipped: [String] = []
    /// What the files lacked (a reference padded or cut).
    public var warnings: [String] = []

    /// Pairs each recording of `audioDirectory` with its labels in `labelDirectory` and computes the
    /// band features of each.
    /// - Parameters:
    ///   - audioDirectory: the microphone recordings (WAV, FLAC; any rate, mixed to mono).
    ///   - labelDirectory: one Audacity label file per recording, by the recording's name.
    ///   - references: how a recording's far-end reference beside it is named (the audio played
    ///     while it was recorded; `NAME.ref.wav` by default).
    ///   - frameMilliseconds: the frame lengths the sweep will use (features are computed for each).
    ///   - resampler: converts a reference whose rate differs from its microphone's.
    public init(
        audioDirectory: String, labelDirectory: String, references: ReferenceNaming, frameMilliseconds: Set<Double>,
        resampler: ResamplerChoice = .default
    ) throws(AudioPipelineError) {
        let pairs = try Self.pair(
            audioDirectory: audioDirectory, labelDirectory: labelDirectory, references: references)
        skipped = pairs.skipped
        for (name, audioPath, labelPath) in pairs.items {
            let refPath = references.reference(ofRecording: audioPath)
            let item:
                (
                    features: [Double: Features], envelope: [(min: Float, max: Float)], rate: Int, samples: Int,
                    playout: VADBargeInReplay.Playout?
                )
            // Streamed, with the reference pulled in step; whole only for a file of undeclared length.
            if let s = try Self.streamed(
                path: audioPath, reference: refPath, resampler: resampler,
                frameMilliseconds: frameMilliseconds)
            {
                warnings += s.warnings
                item = (s.features, s.envelope, s.rate, s.samples, s.playout)
            } else {
                let (samples, rate, loaded) = try AudioLoader.mono(path: audioPath)
                try Self.checkRate(rate, path: audioPath)
                warnings += loaded
                var reference: [Float]?
                if let refPath {
                    let r = try AudioLoader.reference(
                        path: refPath, rate: rate, length: samples.count, resampler: resampler)
                    warnings += r.warnings
                    reference = r.samples
                }
                var features: [Double: Features] = [:]
                for ms in frameMilliseconds {
                    features[ms] = Self.features(samples, reference, rate: rate, frameMilliseconds: ms)
                }
                let playout = reference.map {
                    VADBargeInReplay.Playout(levels: FrameLevels.of($0, rate: rate), samples: samples.count, rate: rate)
                }
                item = (features, Self.envelope(samples), rate, samples.count, playout)
            }
            let labels = try AudacityLabels.read(path: labelPath)
            let duration = Double(item.samples) / Double(item.rate)
            if let end = labels.last?.end, end > duration + 0.01 {
                warnings.append(
                    "\(labelPath): labels reach \(NumberText.seconds(end)) s, the audio is "
                        + "\(NumberText.seconds(duration)) s long"
                )
            }
            items.append(
                Item(
                    name: name, audioPath: audioPath, referencePath: refPath, labels: labels,
                    rate: item.rate, duration: duration, envelope: item.envelope, features: item.features,
                    playout: item.playout))
        }
        guard !items.isEmpty else {
            throw Self.missingLabels(
                audioDirectory: audioDirectory, labelDirectory: labelDirectory, recordings: pairs.recordings,
                labelFiles: pairs.labelFiles)
        }
    }

    /// The error of a corpus without a single labelled recording: what `vad tune` needs, the label
    /// format and how to make labels. Missing input (exit code 66).
    /// - Parameters:
    ///   - recordings: the audio files found (names with their extension);
    ///   - labelFiles: the `.txt` files in the label directory, nil when it cannot be listed.
    static func missingLabels(
        audioDirectory: String, labelDirectory: String, recordings: [String], labelFiles: Int?
    ) -> AudioPipelineError {
        let first = recordings.first ?? "NAME.wav"
        let stem = (first as NSString).deletingPathExtension
        let count = "\(recordings.count) recording\(recordings.count == 1 ? "" : "s") in \(audioDirectory)"
        if recordings.isEmpty {
            return AudioPipelineError(
                .inputUnavailable,
                "\(audioDirectory): no recording in it (\(audioExtensions.sorted().joined(separator: ", ")); "
                    + "a far-end reference NAME.ref.wav is not one): nothing to tune on")
        }
        let found: String
        switch labelFiles {
        case nil:
            found = "\(labelDirectory): no such directory: vad tune needs a label file for each of the \(count)"
        case 0:
            found = "\(labelDirectory): no label file NAME.txt for any of the \(count): vad tune needs labels"
        case let n?:
            found =
                "\(labelDirectory): \(n) .txt file\(n == 1 ? "" : "s"), but none named after one of the \(count) "
                + "(\(first) wants \(stem).txt)"
        }
        return AudioPipelineError(
            .inputUnavailable,
            found + "\n"
                + """
                  vad tune scores every setting against labels, so each recording NAME.wav needs an \
                Audacity label file NAME.txt: in --labels DIR or, without --labels, next to the recording. \
                One line per speech segment, start and end in seconds, tab-separated, then a label:
                    1.250000\t2.800000\tspeech
                  Time outside the labels is non-speech (as are lines labelled nonspeech, silence or noise).
                  To make labels, start from the detector's own guess and correct it in Audacity (File > \
                Import > Labels…, drag the edges, File > Export > Export Labels…):
                    audiopipe vad detect \(audioDirectory) --align -o LABELS
                  writes LABELS/\(stem).txt and one per other recording; then:
                    audiopipe vad tune --audio \(audioDirectory) --labels LABELS --report REPORT
                """)
    }

    /// Matches audio files with label files by name.
    static func pair(
        audioDirectory: String, labelDirectory: String, references: ReferenceNaming
    ) throws(AudioPipelineError) -> (
        items: [(String, String, String)], skipped: [String], recordings: [String], labelFiles: Int
    ) {
        let fm = FileManager.default
        guard let audioFiles = try? fm.contentsOfDirectory(atPath: audioDirectory) else {
            throw AudioPipelineError(.inputUnavailable, "\(audioDirectory): cannot list the audio directory")
        }
        var audio: [String: String] = [:]
        for f in audioFiles.sorted() where !references.isReference(f) {
            guard audioExtensions.contains(fileExtension(f)), PathParts.isRegularFile(audioDirectory + "/" + f) else {
                continue
            }
            audio[(f as NSString).deletingPathExtension] = audioDirectory + "/" + f
        }
        let recordings = audio.keys.sorted().map { (audio[$0]! as NSString).lastPathComponent }
        guard let labelFiles = try? fm.contentsOfDirectory(atPath: labelDirectory) else {
            // A label directory that is not there: say what it should hold.
            throw missingLabels(
                audioDirectory: audioDirectory, labelDirectory: labelDirectory, recordings: recordings, labelFiles: nil)
        }
        var labels: [String: String] = [:]
        for f in labelFiles.sorted() where f.hasSuffix(".txt") && PathParts.isRegularFile(labelDirectory + "/" + f) {
            labels[String(f.dropLast(4))] = labelDirectory + "/" + f
        }
        var skipped: [String] = []
        for name in audio.keys.sorted() where labels[name] == nil {
            skipped.append("\(audio[name]!): no labels \(labelDirectory)/\(name).txt")
        }
        // A label file next to its audio is common; a .txt that is not a label file for an item is skipped.
        for name in labels.keys.sorted() where audio[name] == nil {
            skipped.append("\(labels[name]!): no audio \(name).* in \(audioDirectory)")
        }
        let items = audio.keys.sorted().compactMap { name in labels[name].map { (name, audio[name]!, $0) } }
        return (items, skipped, recordings, labels.count)
    }

    static func features(_ mic: [Float], _ reference: [Float]?, rate: Int, frameMilliseconds: Double) -> Features {
        let length = Int((Double(rate) * frameMilliseconds / 1000).rounded())
        func analysis(_ x: [Float]) -> [VADBandFrame] {
            var analyzer = VADBandAnalyzer(sampleRate: rate, frameLength: length)
            var out: [VADBandFrame] = []
            x.withUnsafeBufferPointer { p in analyzer.process(p) { out.append($0) } }
            analyzer.finish { out.append($0) }  // the last, incomplete frame, as `EnergyVAD.finish` decides it
            return out
        }
        let frameSeconds = Double(length) / Double(rate)
        guard let reference else {
            return Features(mic: analysis(mic), reference: nil, frameSeconds: frameSeconds, sampleRate: rate)
        }
        // With a reference, both through the steep bands together, as `EnergyVAD` analyses them (the
        // reference cut or padded with silence to the microphone's length).
        var far = [Float](reference.prefix(mic.count))
        far += [Float](repeating: 0, count: mic.count - far.count)
        var pair = VADBandPairAnalyzer(sampleRate: rate, frameLength: length)
        var micFrames: [VADBandFrame] = []
        var farFrames: [SIMD8<Double>] = []
        mic.withUnsafeBufferPointer { m in
            far.withUnsafeBufferPointer { r in
                pair.process(mic: m, reference: r) { a, b in
                    micFrames.append(a)
                    farFrames.append(b)
                }
            }
        }
        pair.finish { a, b in
            micFrames.append(a)
            farFrames.append(b)
        }
        return Features(mic: micFrames, reference: farFrames, frameSeconds: frameSeconds, sampleRate: rate)
    }

    /// Min and max per plot column, scaled so the loudest sample is 1 (`EnvelopeBuilder`, which the
    /// streamed items use too).
    static func envelope(_ samples: [Float]) -> [(min: Float, max: Float)] {
        var builder = EnvelopeBuilder(count: samples.count, columns: envelopeColumns)
        samples.withUnsafeBufferPointer { builder.add($0) }
        return builder.result
    }

    /// The decider's frames for one item and configuration (the streaming detector's decisions);
    /// with `details`, also what each decision was made of (`VADRun.details`, for the plots).
    public func run(_ item: Item, configuration: VADConfiguration, details: Bool = false) throws(AudioPipelineError)
        -> VADRun
    {
        guard let f = item.features[configuration.frameMilliseconds] else {
            throw AudioPipelineError(
                .invalidConfiguration, "VAD corpus: no features for \(configuration.frameMilliseconds) ms frames")
        }
        let (frames, detail) = try Self.decide(f, configuration: configuration, details: details)
        return VADRun(
            frames: frames, frameSeconds: f.frameSeconds, duration: item.duration, configuration: configuration,
            details: detail)
    }

    /// The decider over a file's band powers: its frames and, with `details`, each frame's detail.
    static func decide(_ f: Features, configuration: VADConfiguration, details: Bool = false)
        throws(AudioPipelineError) -> (frames: [VADDecider.Frame], details: [VADDecider.Detail])
    {
        var d = try VADDecider(configuration: configuration, sampleRate: f.sampleRate)
        var frames: [VADDecider.Frame] = []
        var out: [VADDecider.Detail] = []
        frames.reserveCapacity(f.mic.count)
        out.reserveCapacity(details ? f.mic.count : 0)
        var detail = VADDecider.Detail()
        for i in f.mic.indices {
            let reference = f.reference.map { i < $0.count ? $0[i] : VADBandPairAnalyzer.silence }
            if details {
                frames.append(d.process(mic: f.mic[i], reference: reference, detail: &detail))
                out.append(detail)
            } else {
                frames.append(d.process(mic: f.mic[i], reference: reference))
            }
        }
        return (frames, out)
    }
}
