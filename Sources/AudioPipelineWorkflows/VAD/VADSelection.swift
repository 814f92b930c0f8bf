import AudioPipelineCore
import Foundation

/// What `vad tune` holds a setting to: the voice-agent defaults are false alarm ≤ 15 %, false
/// triggers ≤ 3 per minute and fresh-onset latency p90 ≤ 200 ms (`--max-false-alarm`,
/// `--max-false-triggers-per-min`, `--max-onset-latency-ms`); and, on recordings with a far-end
/// reference, false barge-ins ≤ 0.5 per minute of agent-only playout, missed barge-ins ≤ 10 % and
/// barge-in latency p90 ≤ 300 ms (`--max-false-barge-ins-per-min`, `--max-missed-barge-ins`,
/// `--max-barge-in-latency-ms`); nil: no limit. A limit on a figure the corpus cannot measure (no
/// references: no barge-ins) binds nothing.
public struct VADConstraints: Codable, Sendable, Hashable {
    /// Most false alarm allowed (fraction of non-speech); nil: no limit.
    public var maxFalseAlarm: Double?
    /// Most false triggers per minute allowed; nil: no limit.
    public var maxFalseTriggersPerMinute: Double?
    /// Most fresh-onset latency p90 allowed, ms; nil: no limit.
    public var maxOnsetLatencyMs: Double?
    /// Most false barge-ins per minute of agent-only playout allowed; nil: no limit.
    public var maxFalseBargeInsPerMinute: Double?
    /// A fraction of the user onsets during agent playout.
    public var maxMissedBargeIns: Double?
    /// Most barge-in latency p90 allowed, ms; nil: no limit.
    public var maxBargeInLatencyMs: Double?

    /// Limits with the voice-agent defaults unless given.
    public init(
        maxFalseAlarm: Double? = 0.15, maxFalseTriggersPerMinute: Double? = 3, maxOnsetLatencyMs: Double? = 200,
        maxFalseBargeInsPerMinute: Double? = 0.5, maxMissedBargeIns: Double? = 0.1, maxBargeInLatencyMs: Double? = 300
    ) {
        self.maxFalseAlarm = maxFalseAlarm
        self.maxFalseTriggersPerMinute = maxFalseTriggersPerMinute
        self.maxOnsetLatencyMs = maxOnsetLatencyMs
        self.maxFalseBargeInsPerMinute = maxFalseBargeInsPerMinute
        self.maxMissedBargeIns = maxMissedBargeIns
        self.maxBargeInLatencyMs = maxBargeInLatencyMs
    }

    /// Each limit in its range, named by its option (exit code 64): fractions in 0…1, the others ≥ 0.
    public func validate() throws(AudioPipelineError) {
        func check(_ v: Double?, _ option: String, fraction: Bool) throws(AudioPipelineError) {
            guard let v else { return }
            if fraction, !(v >= 0 && v <= 1) {
                throw AudioPipelineError(.invalidConfiguration, "\(option) must be in 0…1 (a fraction), not \(v)")
            }
            if !(v >= 0 && v.isFinite) {
                throw AudioPipelineError(.invalidConfiguration, "\(option) must be a number ≥ 0, not \(v)")
            }
        }
        try check(maxFalseAlarm, "--max-false-alarm", fraction: true)
        try check(maxFalseTriggersPerMinute, "--max-false-triggers-per-min", fraction: false)
        try check(maxOnsetLatencyMs, "--max-onset-latency-ms", fraction: false)
        try check(maxFalseBargeInsPerMinute, "--max-false-barge-ins-per-min", fraction: false)
        try check(maxMissedBargeIns, "--max-missed-barge-ins", fraction: true)
        try check(maxBargeInLatencyMs, "--max-barge-in-latency-ms", fraction: false)
    }

    /// These limits without the barge-in ones (what a corpus without references can be held to).
    public var withoutBargeIns: VADConstraints {
        var c = self
        c.maxFalseBargeInsPerMinute = nil
        c.maxMissedBargeIns = nil
        c.maxBargeInLatencyMs = nil
        return c
    }

    /// No limits at all (`--no-limits`).
    public static let none = VADConstraints(
        maxFalseAlarm: nil, maxFalseTriggersPerMinute: nil, maxOnsetLatencyMs: nil, maxFalseBargeInsPerMinute: nil,
        maxMissedBargeIns: nil, maxBargeInLatencyMs: nil)

    /// The limits `m` breaks, in words (`false alarm 21.3 % > 15 %`); empty when it meets them. A
    /// metric of nothing (no onsets: no latency) breaks nothing; a figure over its limit by rounding
    /// only (a latency of 300.0000001 ms, from tick times in seconds) breaks nothing either.
    public func broken(_ m: VADScoring.Metrics) -> [String] {
        func over(_ v: Double, _ limit: Double) -> Bool { v.isFinite && v > limit + 1e-9 * max(1, abs(limit)) }
        var out: [String] = []
        if let limit = maxFalseAlarm, over(m.falseAlarm, limit) {
            out.append(String(format: "false alarm %.1f %% > %@ %%", m.falseAlarm * 100, NumberText.plain(limit * 100)))
        }
        if let limit = maxFalseTriggersPerMinute, over(m.falseTriggersPerMinute, limit) {
            out.append(
                String(format: "false triggers %.2f per min > %@", m.falseTriggersPerMinute, NumberText.plain(limit)))
        }
        if let limit = maxOnsetLatencyMs, over(m.freshLatencyP90, limit) {
            out.append(
                String(format: "fresh-onset latency p90 %.0f ms > %@ ms", m.freshLatencyP90, NumberText.plain(limit)))
        }
        if let limit = maxFalseBargeInsPerMinute, over(m.falseBargeInsPerMinute, limit) {
            out.append(
                String(format: "false barge-ins %.2f per min > %@", m.falseBargeInsPerMinute, NumberText.plain(limit)))
        }
        if let limit = maxMissedBargeIns, over(m.missedBargeIns, limit) {
            out.append(
                String(
                    format: "missed barge-ins %.1f %% > %@ %%", m.missedBargeIns * 100, NumberText.plain(limit * 100)))
        }
        if let limit = maxBargeInLatencyMs, over(m.bargeInLatencyP90, limit) {
            out.append(
                String(format: "barge-in latency p90 %.0f ms > %@ ms", m.bargeInLatencyP90, NumberText.plain(limit)))
        }
        return out
    }

    /// Whether `m` meets every limit.
    public func met(_ m: VADScoring.Metrics) -> Bool { broken(m).isEmpty }

    /// How far `m` is from meeting the limits: the sum of its relative excesses over them (0: met).
    func distance(_ m: VADScoring.Metrics) -> Double {
        func over(_ v: Double, _ limit: Double?) -> Double {
            guard let limit, v.isFinite, v > limit + 1e-9 * max(1, abs(limit)) else { return 0 }
            return (v - limit) / max(limit, 1e-9)
        }
        let frames =
            over(m.falseAlarm, maxFalseAlarm) + over(m.falseTriggersPerMinute, maxFalseTriggersPerMinute)
            + over(m.freshLatencyP90, maxOnsetLatencyMs)
        let bargeIns =
            over(m.falseBargeInsPerMinute, maxFalseBargeInsPerMinute) + over(m.missedBargeIns, maxMissedBargeIns)
            + over(m.bargeInLatencyP90, maxBargeInLatencyMs)
        return frames + bargeIns
    }

    /// The limits in words: "false alarm ≤ 15 %, false triggers ≤ 3 per min, fresh-onset latency
    /// p90 ≤ 200 ms", then the barge-in limits that are set ("no limits").
    public var text: String {
        var parts: [String] = []
        if let v = maxFalseAlarm { parts.append("false alarm ≤ \(NumberText.plain(v * 100)) %") }
        if let v = maxFalseTriggersPerMinute { parts.append("false triggers ≤ \(NumberText.plain(v)) per min") }
        if let v = maxOnsetLatencyMs { parts.append("fresh-onset latency p90 ≤ \(NumberText.plain(v)) ms") }
        if let v = maxFalseBargeInsPerMinute { parts.append("false barge-ins ≤ \(NumberText.plain(v)) per min") }
        if let v = maxMissedBargeIns { parts.append("missed barge-ins ≤ \(NumberText.plain(v * 100)) %") }
        if let v = maxBargeInLatencyMs { parts.append("barge-in latency p90 ≤ \(NumberText.plain(v)) ms") }
        return parts.isEmpty ? "no limits" : parts.joined(separator: ", ")
    }
}

/// The folds of a cross-validation by file: every file (or every group of files — a talker, a
/// room, a manifest column's value — so one group never sits on both sides) is held out once;
/// leave-one-group-out up to 10 groups, else 10 folds of groups dealt in name order.
public struct VADFolds: Sendable, Hashable {
    /// File indices per fold.
    public var folds: [[Int]]
    /// Each file's group.
    public var groups: [String]

    /// Folds at most.
    public static let maximumFolds = 10

    /// - Parameters:
    ///   - files: the corpus's files, in order.
    ///   - groups: each file's group; nil: each file is its own.
    public init(files: [String], groups: [String]? = nil) {
        let g = groups ?? files
        self.groups = g
        let names = Array(Set(g)).sorted()
        let count = min(Self.maximumFolds, names.count)
        var foldOf: [String: Int] = [:]
        for (k, name) in names.enumerated() { foldOf[name] = k % max(1, count) }
        folds = (0..<count).map { f in g.indices.filter { foldOf[g[$0]] == f } }
    }
}

/// `vad tune`'s choice, made so that it holds on the next recording: the setting with the best
/// objective among those meeting the constraints, on all files; and the same choice made fold by
/// fold on the other folds' files and scored on the fold held out — pooled, that is how the tuning
/// does on files it never saw (cross-validated). The baseline (the defaults, or the configuration
/// the user runs today) is kept unless the tuned choice beats its score by more than the spread of
/// the per-fold differences — or the baseline breaks the constraints and the choice does not.
public struct VADSelection: Sendable {
    /// The all-files choice (an index into the outcomes), nil when no setting meets the constraints.
    public var chosen: Int?
    /// With no setting meeting them: the closest (the smallest relative excess), best first.
    public var closest: [Int]
    /// Settings that meet the constraints on all files.
    public var qualified: Int
    /// The baseline's index in the outcomes.
    public var baseline: Int
    /// Pooled held-out counts of the choices made fold by fold (nil with fewer than two folds).
    public var crossValidated: VADScoring.Counts?
    /// Per fold: the objective of the fold's choice less the baseline's, on the fold held out
    /// (folds without labelled speech left out).
    public var foldDifferences: [Double]
    /// The standard deviation of `foldDifferences` (nil with fewer than two).
    public var spread: Double?
    /// Use the chosen setting (else keep the baseline).
    public var adopt: Bool
    /// Why, in words.
    public var reason: String
    /// What the selection could not do as asked (too few groups for folds …).
    public var warnings: [String]

    /// Chooses among `outcomes` (the sweep) against the one at `baseline`, cross-validated over `folds`.
    public init(
        outcomes: [VADSweep.Outcome], baseline: Int, folds: VADFolds, objective: VADSweep.Objective,
        constraints: VADConstraints, fileNames: [String]
    ) {
        self.init(
            perFile: outcomes.map(\.perFile), baseline: baseline, folds: folds, objective: objective,
            constraints: constraints, fileNames: fileNames)
    }

    /// The same choice over any detector's sweep: each setting's counts per file (a framework
    /// emulation's, `FrameworkTuner`).
    public init(
        perFile outcomes: [[VADScoring.Counts]], baseline: Int, folds: VADFolds, objective: VADSweep.Objective,
        constraints: VADConstraints, fileNames: [String]
    ) {
        self.baseline = baseline
        warnings = []
        let all = Array(outcomes.first?.indices ?? 0..<0)
        let choice = Self.choose(outcomes, files: all, objective: objective, constraints: constraints)
        chosen = choice.best
        qualified = choice.qualified
        closest = choice.best == nil ? choice.closest : []
        // Fold by fold: choose on the others, score on the fold.
        var pooled = VADScoring.Counts()
        var differences: [Double] = []
        for (k, fold) in folds.folds.enumerated() where folds.folds.count > 1 {
            let held = Set(fold)
            let training = all.filter { !held.contains($0) }
            let c = Self.choose(outcomes, files: training, objective: objective, constraints: constraints)
            let pick = c.best ?? c.closest.first ?? baseline
            if c.best == nil {
                warnings.append(
                    "fold \(k + 1): no setting met the constraints on the other folds; the closest stood in")
            }
            let mine = Self.pooled(outcomes[pick], fold)
            let theirs = Self.pooled(outcomes[baseline], fold)
            pooled = pooled + mine
            let a = VADScoring.metrics(mine), b = VADScoring.metrics(theirs)
            if a.recall.isFinite {
                differences.append(VADSweep.value(a, objective) - VADSweep.value(b, objective))
            } else {
                let names = fold.map { fileNames[$0] }.joined(separator: ", ")
                warnings.append(
                    "fold \(k + 1) (\(names)) has no labelled speech: it counts for false alarms, not in the spread")
            }
        }
        crossValidated = folds.folds.count > 1 ? pooled : nil
        foldDifferences = differences
        spread = Self.standardDeviation(differences)
        let base = VADScoring.metrics(Self.pooled(outcomes[baseline], all))
        guard let chosen else {
            adopt = false
            reason = "no setting meets \(constraints.text): no choice was made"
            return
        }
        if chosen == baseline {
            adopt = false
            reason = "the baseline itself is the best setting"
        } else if !constraints.met(base) {
            adopt = true
            reason =
                "the baseline breaks the constraints (\(constraints.broken(base).joined(separator: "; "))); the "
                + "chosen setting meets them"
        } else if let cv = crossValidated.map(VADScoring.metrics), let spread {
            let gain = VADSweep.value(cv, objective) - VADSweep.value(base, objective)
            adopt = gain > spread
            reason =
                String(format: "cross-validated, the tuning gains %+.3f over the baseline; the folds spread ", gain)
                + String(format: "%.3f: ", spread)
                + (adopt ? "a real gain, use the chosen setting" : "no gain beyond the spread, the baseline is kept")
        } else {
            adopt = false
            reason =
                "\(folds.folds.count) fold\(folds.folds.count == 1 ? "" : "s"): nothing to check the choice on "
                + "(give more recordings); the baseline is kept"
        }
    }

    /// The best setting by `objective` among those meeting `constraints` over `files` (and how many
    /// do); with none, the three closest.
    static func choose(
        _ outcomes: [[VADScoring.Counts]], files: [Int], objective: VADSweep.Objective, constraints: VADConstraints
    ) -> (best: Int?, qualified: Int, closest: [Int]) {
        var best: (index: Int, value: Double)?
        var qualified = 0
        var distances: [(index: Int, distance: Double, value: Double)] = []
        for (i, o) in outcomes.enumerated() {
            let m = VADScoring.metrics(pooled(o, files))
            let value = VADSweep.value(m, objective)
            let distance = constraints.distance(m)
            distances.append((i, distance, value))
            guard distance == 0 else { continue }
            qualified += 1
            if best == nil || value > best!.value { best = (i, value) }
        }
        let closest = distances.sorted { ($0.distance, -$0.value) < ($1.distance, -$1.value) }.prefix(3).map(\.index)
        return (best?.index, qualified, Array(closest))
    }

    static func pooled(_ perFile: [VADScoring.Counts], _ files: [Int]) -> VADScoring.Counts {
        files.reduce(VADScoring.Counts()) { $0 + perFile[$1] }
    }

    static func standardDeviation(_ v: [Double]) -> Double? {
        guard v.count > 1 else { return nil }
        let mean = v.reduce(0, +) / Double(v.count)
        return (v.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(v.count - 1)).squareRoot()
    }
}
