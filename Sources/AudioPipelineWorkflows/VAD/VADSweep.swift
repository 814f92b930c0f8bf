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
        /// The barge-in policy (what a client does with the detector's decisions): swept with
        /// `min_barge_in_ms` and `ignore_first_ms`, scored on files with a far-end reference.
        public var policy = BargeInPolicy()
        /// The grid's values of this setting, by parameter name.
        public var values: [String: Double]

        /// A setting of the grid.
        /// - Parameters:
        ///   - configuration: the full VAD configuration.
        ///   - policy: the barge-in policy (default: barge in at the VAD's confirmation, from a
        ///     response's start).
        ///   - values: the grid's values of this setting, by parameter name.
        public init(configuration: VADConfiguration, policy: BargeInPolicy = BargeInPolicy(), values: [String: Double])
        {
            self.configuration = configuration
            self.policy = policy
            self.values = values
        }

        /// A parameter by name: a VAD parameter or one of `policyNames` (nil: unknown).
        public subscript(name: String) -> Double? {
            get {
                switch name {
                case "min_barge_in_ms": return policy.minimumSpeechMs
                case "ignore_first_ms": return policy.ignoreFirstMs
                default: return configuration[name]
                }
            }
            set {
                guard let newValue else { return }
                switch name {
                case "min_barge_in_ms": policy.minimumSpeechMs = newValue
                case "ignore_first_ms": policy.ignoreFirstMs = newValue
                default: configuration[name] = newValue
                }
            }
        }
    }

    /// The barge-in policy's parameters a grid may sweep (`session simulate`'s names).
    public static let policyNames = ["min_barge_in_ms", "ignore_first_ms"]

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
        /// With far-end references, what barge-in lives by: the least of missed barge-ins (a
        /// fraction) + false barge-ins per minute × 0.1 + barge-in latency p90 in seconds — so 10 %
        /// missed, one false barge-in a minute and 100 ms of latency p90 cost alike (the default
        /// objective when the recordings have references).
        case bargeIn = "barge-in"
    }

    /// Every combination of `grid` over `base`; invalid combinations (exit above enter …) are left
    /// out. Refuses a grid of more than `maximumSettings` combinations before building it.
    public static func settings(
        base: VADConfiguration, policy: BargeInPolicy = BargeInPolicy(), grid: VADGrid,
        maximumSettings: Int = VADGrid.maximumSettings
    ) throws(AudioPipelineError) -> [Setting] {
        try grid.check(maximumSettings: maximumSettings)
        var out: [Setting] = [Setting(configuration: base, policy: policy, values: [:])]
        for (name, values) in grid.axes {
            var next: [Setting] = []
            next.reserveCapacity(out.count * values.count)
            for s in out {
                for v in values {
                    var t = s
                    t[name] = v
                    t.values[name] = v
                    next.append(t)
                }
            }
            out = next
        }
        var valid: [Setting] = []
        var firstError: (Setting, AudioPipelineError)?
        for setting in out {
            do {
                try setting.configuration.validate()
                try setting.policy.validate()
            } catch {
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

    /// Scores every setting. The detector runs once per VAD configuration: the settings that differ
    /// only in their barge-in policy reuse its decisions. `progress` is called from the calling thread.
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
        let groups = Self.groups(settings)
        // About 8 settings per batch, whole groups.
        let perGroup = max(1, settings.count / max(1, groups.count))
        let chunk = max(1, 8 / perGroup)
        let batches = (groups.count + chunk - 1) / chunk
        // Work in rounds of a few batches so progress is reported from this thread between them.
        var batch = 0
        while batch < batches {
            let first = batch
            let upto = min(batches, batch + 4 * ProcessInfo.processInfo.activeProcessorCount)
            DispatchQueue.concurrentPerform(iterations: upto - first) { k in
                let b = first + k
                for g in (b * chunk)..<min(groups.count, (b + 1) * chunk) {
                    do throws(AudioPipelineError) {
                        let outcomes = try score(groups[g].map { settings[$0] }, on: corpus)
                        box.lock.lock()
                        for (i, outcome) in zip(groups[g], outcomes) { box.results[i] = outcome }  // one writer each
                        box.lock.unlock()
                    } catch {
                        box.lock.lock(); box.firstError = box.firstError ?? error; box.lock.unlock()
                    }
                }
            }
            batch = upto
            let done = groups[0..<min(groups.count, batch * chunk)].reduce(0) { $0 + $1.count }
            progress(JobProgress(done: done, total: settings.count, unit: .items("settings")))
        }
        if let e = box.firstError { throw e }
        return box.results.map { $0! }
    }

    /// The settings' indices by VAD configuration, in order of first appearance.
    static func groups(_ settings: [Setting]) -> [[Int]] {
        var groupOf: [VADConfiguration: Int] = [:]
        var groups: [[Int]] = []
        for (i, s) in settings.enumerated() {
            if let g = groupOf[s.configuration] {
                groups[g].append(i)
            } else {
                groupOf[s.configuration] = groups.count
                groups.append([i])
            }
        }
        return groups
    }

    /// Settings of one VAD configuration (differing in their barge-in policy) over every file of the
    /// corpus: the detector runs once per file; each policy replays its decisions (files with a
    /// far-end reference).
    static func score(_ settings: [Setting], on corpus: VADCorpus) throws(AudioPipelineError) -> [Outcome] {
        guard let configuration = settings.first?.configuration else { return [] }
        var perFile = [[VADScoring.Counts]](repeating: [], count: settings.count)
        for item in corpus.items {
            let run = try corpus.run(item, configuration: configuration)
            let counts = VADScoring.score(reference: item.labels, hypothesis: run.segments(), duration: item.duration)
            for (k, setting) in settings.enumerated() {
                var c = counts
                if let playout = item.playout {
                    c.bargeIn = VADBargeInReplay.counts(
                        frames: run.frames, frameSeconds: run.frameSeconds,
                        frameMilliseconds: configuration.frameMilliseconds, playout: playout,
                        user: item.labels, policy: setting.policy)
                }
                perFile[k].append(c)
            }
        }
        return settings.indices.map { k in
            Outcome(setting: settings[k], overall: perFile[k].reduce(VADScoring.Counts(), +), perFile: perFile[k])
        }
    }

    /// The objective's value of `m` (higher is better).
    public static func value(_ m: VADScoring.Metrics, _ objective: Objective) -> Double {
        switch objective {
        case .f1: return m.f1
        case .precision: return m.precision.isNaN ? 0 : m.precision
        case .recall: return m.recall.isNaN ? 0 : m.recall
        case .falseAlarm: return -(m.falseAlarm.isNaN ? 1 : m.falseAlarm) + m.f1 * 1e-6
        case .f1Latency: return m.f1 - (m.freshLatencyP50.isNaN ? 0 : m.freshLatencyP50 / 1000)
        case .bargeIn:
            func part(_ v: Double) -> Double { v.isFinite ? v : 0 }
            let cost =
                part(m.missedBargeIns) + 0.1 * part(m.falseBargeInsPerMinute) + part(m.bargeInLatencyP90) / 1000
            return -cost + m.f1 * 1e-6
        }
    }
}
