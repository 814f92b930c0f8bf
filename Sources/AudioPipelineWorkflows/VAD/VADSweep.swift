import AudioPipelineCore
import Dispatch
import Foundation

/// `vad tune`'s search: every setting of a grid scored over a corpus. The band features are computed
/// once per file (`VADCorpus`); each setting only runs the per-frame decider over them, on every core.
public enum VADSweep {
    /// One setting of the grid.
    public struct Setting: Sendable, Hashable {
        /// The full configuration.
        public var configuration: VADConfiguration
        /// The grid's values of this setting, by parameter name.
        public var values: [String: Double]
    }

    /// A setting scored over the corpus.
    public struct Outcome: Sendable {
        /// The setting.
        public var setting: Setting
        /// Counts pooled over the files.
        public var overall: VADScoring.Counts
        /// Counts per file, in corpus order.
        public var perFile: [VADScoring.Counts]
        /// The pooled metrics.
        public var metrics: VADScoring.Metrics { VADScoring.metrics(overall) }
    }

    /// What `tune` maximises.
    public enum Objective: String, Sendable, CaseIterable, Codable {
        /// Highest frame F1.
        case f1
        /// Highest frame precision.
        case precision
        /// Highest frame recall.
        case recall
        /// Lowest false-alarm rate (ties: higher F1).
        case falseAlarm = "fa"
        /// F1 minus the fresh-onset latency p50 in seconds: 100 ms costs 0.1 of F1 (trades F1 for speed).
        case f1Latency = "f1-latency"
    }

    /// Every combination of `grid` over `base`; invalid combinations (exit above enter …) are left
    /// out. Refuses a grid of more than `maximumSettings` combinations before building it.
    public static func settings(base: VADConfiguration, grid: VADGrid, maximumSettings: Int = VADGrid.maximumSettings)
        throws(AudioPipelineError) -> [Setting]
    {
        try grid.check(maximumSettings: maximumSettings)
        var out: [Setting] = [Setting(configuration: base, values: [:])]
        for (name, values) in grid.axes {
            var next: [Setting] = []
            next.reserveCapacity(out.count * values.count)
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
        var valid: [Setting] = []
        var firstError: (Setting, AudioPipelineError)?
        for setting in out {
            do { try setting.configuration.validate() } catch {
                if firstError == nil { firstError = (setting, error) }
                continue
            }
            valid.append(setting)
        }
        if valid.isEmpty, let (setting, error) = firstError {
            let values = setting.values.keys.sorted().map { "\($0)=\(NumberText.plain(setting.values[$0]!))" }
            throw AudioPipelineError(
                .invalidConfiguration,
                "the grid has no valid setting; the first (\(values.joined(separator: " "))) fails: \(error.message)")
        }
        return valid
    }

    /// Scores every setting. `progress` is called from the calling thread.
    public static func run(
        _ settings: [Setting], on corpus: VADCorpus, progress: ProgressHandler = { _ in }
    ) throws(AudioPipelineError) -> [Outcome] {
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
        // Work in rounds of a few batches so progress is reported from this thread between them.
        var batch = 0
        while batch < batches {
            let first = batch
            let upto = min(batches, batch + 4 * ProcessInfo.processInfo.activeProcessorCount)
            DispatchQueue.concurrentPerform(iterations: upto - first) { k in
                let b = first + k
                for s in (b * chunk)..<min(settings.count, (b + 1) * chunk) {
                    do throws(AudioPipelineError) {
                        let outcome = try score(settings[s], on: corpus)
                        box.lock.lock(); box.results[s] = outcome; box.lock.unlock()  // each index has one writer
                    } catch {
                        box.lock.lock(); box.firstError = box.firstError ?? error; box.lock.unlock()
                    }
                }
            }
            batch = upto
            progress(
                JobProgress(done: min(settings.count, batch * chunk), total: settings.count, unit: .items("settings")))
        }
        if let e = box.firstError { throw e }
        return box.results.map { $0! }
    }

    /// One setting over every file of the corpus.
    static func score(_ setting: Setting, on corpus: VADCorpus) throws(AudioPipelineError) -> Outcome {
        var perFile: [VADScoring.Counts] = []
        for item in corpus.items {
            let run = try corpus.run(item, configuration: setting.configuration)
            perFile.append(
                VADScoring.score(reference: item.labels, hypothesis: run.segments(), duration: item.duration))
        }
        return Outcome(setting: setting, overall: perFile.reduce(VADScoring.Counts(), +), perFile: perFile)
    }

    /// The objective's value of `m` (higher is better).
    public static func value(_ m: VADScoring.Metrics, _ objective: Objective) -> Double {
        switch objective {
        case .f1: return m.f1
        case .precision: return m.precision.isNaN ? 0 : m.precision
        case .recall: return m.recall.isNaN ? 0 : m.recall
        case .falseAlarm: return -(m.falseAlarm.isNaN ? 1 : m.falseAlarm) + m.f1 * 1e-6
        case .f1Latency: return m.f1 - (m.freshLatencyP50.isNaN ? 0 : m.freshLatencyP50 / 1000)
        }
    }
}
