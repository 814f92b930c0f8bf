import AudioPipelineCore
import Dispatch
import Foundation

/// `vad tune`: sweeps detector settings over a labelled corpus. The band analysis of every file
/// (mic and reference) is computed once per frame length; each setting then only runs the
/// per-frame decider over those features, on both cores.
public struct VADTuning {
    public struct Item: Sendable {
        public var name: String
        public var audioPath: String
        public var referencePath: String?
        public var labels: [SpeechSegment]
        public var samples: [Float]
        public var reference: [Float]?
        public var rate: Int
        public var duration: Double
    }

    public struct Setting: Sendable, Hashable {
        public var configuration: VADConfiguration
        public var values: [String: Double]
    }

    public struct Outcome: Sendable {
        public var setting: Setting
        public var overall: VADScoring.Counts
        public var perFile: [VADScoring.Counts]
        public var metrics: VADScoring.Metrics { VADScoring.metrics(overall) }
    }

    /// What `tune` maximises.
    public enum Objective: String, Sendable, CaseIterable {
        case f1, precision, recall
        /// Lowest false-alarm rate (ties: higher F1).
        case falseAlarm = "fa"
        /// F1 minus the fresh-onset latency p50 in seconds: 100 ms costs 0.1 of F1 (trades F1 for speed).
        case f1Latency = "f1-latency"
    }

    public var items: [Item] = []
    public var skipped: [String] = []
    public var warnings: [String] = []

    /// Pairs `DIR/NAME.wav` (any audio file) with `LABELS/NAME.txt` and the reference
    /// `DIR/NAME<suffix>`. Unmatched files are listed in `skipped`.
    public init(audioDirectory: String, labelDirectory: String, referenceSuffix: String) throws(AudioPipelineError) {
        let fm = FileManager.default
        guard let audioFiles = try? fm.contentsOfDirectory(atPath: audioDirectory) else {
            throw AudioPipelineError(.inputUnavailable, "\(audioDirectory): cannot list the audio directory")
        }
        guard let labelFiles = try? fm.contentsOfDirectory(atPath: labelDirectory) else {
            throw AudioPipelineError(.inputUnavailable, "\(labelDirectory): cannot list the label directory")
        }
        let audioExtensions: Set<String> = ["wav", "flac", "ogg", "aif", "aiff", "caf", "w64", "rf64", "mp3", "opus"]
        var audio: [String: String] = [:]
        for f in audioFiles.sorted() {
            if f.hasSuffix(referenceSuffix) { continue }
            let ext = (f as NSString).pathExtension.lowercased()
            guard audioExtensions.contains(ext) else { continue }
            audio[(f as NSString).deletingPathExtension] = audioDirectory + "/" + f
        }
        var labels: [String: String] = [:]
        for f in labelFiles.sorted() where f.hasSuffix(".txt") { labels[String(f.dropLast(4))] = labelDirectory + "/" + f }
        for name in audio.keys.sorted() where labels[name] == nil { skipped.append("\(audio[name]!): no labels \(labelDirectory)/\(name).txt") }
        for name in labels.keys.sorted() where audio[name] == nil {
            // A label file next to its audio is common; a .txt that is not a label file for an item is skipped.
            skipped.append("\(labels[name]!): no audio \(name).* in \(audioDirectory)")
        }
        for name in audio.keys.sorted() {
            guard let labelPath = labels[name] else { continue }
            let path = audio[name]!
            let (samples, rate) = try VADAudio.readMono(path: path)
            let refPath = audioDirectory + "/" + name + referenceSuffix
            var reference: [Float]?
            var refUsed: String?
            if fm.fileExists(atPath: refPath) {
                let r = try VADAudio.readReference(path: refPath, rate: rate, length: samples.count)
                if let w = r.warning { warnings.append(w) }
                reference = r.samples
                refUsed = refPath
            }
            items.append(Item(
                name: name, audioPath: path, referencePath: refUsed, labels: try AudacityLabels.read(path: labelPath),
                samples: samples, reference: reference, rate: rate, duration: Double(samples.count) / Double(rate)))
        }
        guard !items.isEmpty else {
            throw AudioPipelineError(.invalidData, "no audio file in \(audioDirectory) has a label file in \(labelDirectory)")
        }
    }

    /// Band features of every item for one frame length: (mic, reference) band powers per frame.
    struct Features {
        var mic: [SIMD4<Double>]
        var reference: [SIMD4<Double>]?
        var frameSeconds: Double
    }

    static func features(of item: Item, frameMilliseconds: Double) -> Features {
        let length = Int((Double(item.rate) * frameMilliseconds / 1000).rounded())
        func bands(_ x: [Float]) -> [SIMD4<Double>] {
            var analyzer = VADBandAnalyzer(sampleRate: item.rate, frameLength: length)
            var out: [SIMD4<Double>] = []
            x.withUnsafeBufferPointer { p in analyzer.process(p) { out.append($0) } }
            analyzer.finish { out.append($0) }  // the last, incomplete frame, as `EnergyVAD.finish` decides it
            return out
        }
        return Features(mic: bands(item.samples), reference: item.reference.map(bands), frameSeconds: Double(length) / Double(item.rate))
    }

    /// The decider's frames for one item and configuration (same as the streaming detector's).
    static func run(_ f: Features, configuration: VADConfiguration) throws(AudioPipelineError) -> [VADDecider.Frame] {
        var d = try VADDecider(configuration: configuration)
        var frames: [VADDecider.Frame] = []
        frames.reserveCapacity(f.mic.count)
        for i in f.mic.indices {
            frames.append(d.process(mic: f.mic[i], reference: f.reference.map { i < $0.count ? $0[i] : VADBandAnalyzer.silence }))
        }
        return frames
    }

    /// Every combination of `grid` (parameter → values) over `base`; invalid combinations (exit above
    /// enter …) are left out.
    public static func settings(base: VADConfiguration, grid: [(String, [Double])]) throws(AudioPipelineError) -> [Setting] {
        for (name, values) in grid {
            guard VADConfiguration.parameterNames.contains(name) else {
                throw AudioPipelineError(.invalidConfiguration, "unknown VAD parameter '\(name)' in the grid")
            }
            guard !values.isEmpty else { throw AudioPipelineError(.invalidConfiguration, "no values for '\(name)' in the grid") }
        }
        var out: [Setting] = [Setting(configuration: base, values: [:])]
        for (name, values) in grid {
            var next: [Setting] = []
            for s in out {
                for v in values {
                    var t = s
                    t.configuration[name] = v
                    t.values[name] = v
                    next.append(t)
                }
            }
            out = next
        }
        return out.filter { (try? $0.configuration.validate()) != nil }
    }

    /// Scores every setting. `progress(done, total)` is called from the calling thread.
    public func sweep(_ settings: [Setting], progress: (Int, Int) -> Void) throws(AudioPipelineError) -> [Outcome] {
        var featureCache: [Double: [Features]] = [:]
        for frame in Set(settings.map(\.configuration.frameMilliseconds)).sorted() {
            featureCache[frame] = items.map { Self.features(of: $0, frameMilliseconds: frame) }
        }
        /// Results written by index from the worker threads; the lock guards the error.
        final class Box: @unchecked Sendable {
            var results: [Outcome?]
            var firstError: AudioPipelineError?
            let lock = NSLock()
            init(_ n: Int) { results = [Outcome?](repeating: nil, count: n) }
        }
        let box = Box(settings.count)
        let chunk = 8
        let batches = (settings.count + chunk - 1) / chunk
        let cache = featureCache
        let items = self.items
        // Work in rounds of a few batches so progress is reported from this thread between them.
        var batch = 0
        while batch < batches {
            let first = batch
            let upto = min(batches, batch + 4 * ProcessInfo.processInfo.activeProcessorCount)
            DispatchQueue.concurrentPerform(iterations: upto - first) { k in
                let b = first + k
                for s in (b * chunk)..<min(settings.count, (b + 1) * chunk) {
                    let setting = settings[s]
                    let features = cache[setting.configuration.frameMilliseconds]!
                    var perFile: [VADScoring.Counts] = []
                    do throws(AudioPipelineError) {
                        for (i, item) in items.enumerated() {
                            let f = features[i]
                            let frames = try Self.run(f, configuration: setting.configuration)
                            let segments = VADRun.segments(
                                decisions: frames.map(\.speech), frameSeconds: f.frameSeconds, duration: item.duration,
                                configuration: setting.configuration, align: false)
                            perFile.append(VADScoring.score(reference: item.labels, hypothesis: segments, duration: item.duration))
                        }
                        let overall = perFile.reduce(VADScoring.Counts(), +)
                        // Each index is written by exactly one worker.
                        box.lock.lock(); box.results[s] = Outcome(setting: setting, overall: overall, perFile: perFile); box.lock.unlock()
                    } catch {
                        box.lock.lock(); box.firstError = box.firstError ?? error; box.lock.unlock()
                    }
                }
            }
            batch = upto
            progress(min(settings.count, batch * chunk), settings.count)
        }
        if let e = box.firstError { throw e }
        return box.results.map { $0! }
    }

    public static func value(_ m: VADScoring.Metrics, _ objective: Objective) -> Double {
        switch objective {
        case .f1: return m.f1
        case .precision: return m.precision.isNaN ? 0 : m.precision
        case .recall: return m.recall.isNaN ? 0 : m.recall
        case .falseAlarm: return -(m.falseAlarm.isNaN ? 1 : m.falseAlarm) + m.f1 * 1e-6
        case .f1Latency: return m.f1 - (m.freshLatencyP50.isNaN ? 0 : m.freshLatencyP50 / 1000)
        }
    }

    /// The best outcome by `objective` among those with false alarm ≤ `maxFalseAlarm` (if any do).
    public static func best(_ outcomes: [Outcome], objective: Objective, maxFalseAlarm: Double?) -> Outcome {
        var pool = outcomes
        if let maxFalseAlarm {
            let ok = outcomes.filter { $0.metrics.falseAlarm <= maxFalseAlarm }
            if !ok.isEmpty { pool = ok }
        }
        return pool.max { value($0.metrics, objective) < value($1.metrics, objective) }!
    }

    /// Frames of one item under one configuration (for the plots).
    public func frames(of item: Item, configuration: VADConfiguration) throws(AudioPipelineError) -> VADRun {
        let f = Self.features(of: item, frameMilliseconds: configuration.frameMilliseconds)
        return VADRun(frames: try Self.run(f, configuration: configuration), frameSeconds: f.frameSeconds, duration: item.duration, configuration: configuration)
    }
}
