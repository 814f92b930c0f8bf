import AudioPipelineCore

/// A latency budget: `mic.p99<1ms`, `speaker.decode.p50<500ns` — a path (`mic`, `speaker`), an
/// optional stage, a statistic (p50 p90 p99 p999 max mean), `<`, a duration with its unit (ns, us
/// or µs, ms, s). What an app's CI checks on target hardware.
public struct BenchBudget: Sendable, Hashable, CustomStringConvertible {
    /// The path: `mic` or `speaker`.
    public var path: String
    /// The stage (`resample`, `decode` …, see `stages`); nil: the path's total.
    public var stage: String?
    /// The statistic: `p50`, `p90`, `p99`, `p999`, `max` or `mean`.
    public var statistic: String
    /// The limit, ns (the statistic must be below it).
    public var limitNs: Double
    /// The budget as written (`mic.p99<1ms`).
    public let text: String

    /// The stages a budget may name, per path.
    public static let stages = [
        "mic": ["convert", "resample", "quantise", "chunk+frame", "vad"],
        "speaker": ["decode", "widen", "jitter", "convert"],
    ]

    public var description: String { text }

    /// Parses a comma-separated list of budgets.
    /// - Throws: `invalidConfiguration` naming the budget that cannot be read and why.
    public static func parse(_ list: String) throws(AudioPipelineError) -> [BenchBudget] {
        var out: [BenchBudget] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            let text = item.filter { $0 != " " }
            func bad(_ why: String) -> AudioPipelineError {
                AudioPipelineError(.invalidConfiguration, "--budget '\(text)': \(why)")
            }
            let sides = text.split(separator: "<", omittingEmptySubsequences: false)
            guard sides.count == 2 else { throw bad("expected PATH[.STAGE].STAT<DURATION, e.g. mic.p99<1ms") }
            let left = String(sides[0])
            let normal = left.hasSuffix(".p99.9") ? String(left.dropLast(6)) + ".p999" : left
            var names = normal.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard names.count == 2 || names.count == 3 else { throw bad("expected PATH[.STAGE].STAT before '<'") }
            let stat = names.removeLast()
            guard let stages = stages[names[0]] else { throw bad("unknown path '\(names[0])' (mic, speaker)") }
            guard BenchRow.statisticNames.contains(stat) else {
                throw bad("unknown statistic '\(stat)' (\(BenchRow.statisticNames.joined(separator: ", ")))")
            }
            if names.count == 2, !stages.contains(names[1]) {
                throw bad("unknown stage '\(names[1])' of \(names[0]) (\(stages.joined(separator: ", ")))")
            }
            guard let limit = duration(String(sides[1])) else {
                throw bad("'\(sides[1])' is not a positive duration with a unit (ns, us, µs, ms, s)")
            }
            out.append(
                BenchBudget(
                    path: names[0], stage: names.count == 2 ? names[1] : nil, statistic: stat, limitNs: limit,
                    text: text))
        }
        return out
    }

    /// Nanoseconds in "1ms", "250us", "0.5 s"; nil unless finite, positive and with a unit.
    static func duration(_ s: String) -> Double? {
        for (unit, scale) in [("ns", 1.0), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)] where s.hasSuffix(unit) {
            guard let v = Double(s.dropLast(unit.count)), v.isFinite, v > 0 else { return nil }
            return v * scale
        }
        return nil
    }

    /// The budgets `report` exceeds (or cannot show), one line each.
    public static func failures(_ budgets: [BenchBudget], in report: BenchReport) -> [String] {
        budgets.compactMap { b in
            let path = b.path == "mic" ? report.paths.mic : report.paths.speaker
            let row = b.stage.map { s in path.stages.first { $0.name == s } } ?? path.total
            guard let row, let value = row.statistic(b.statistic) else {
                return "\(b.text): not measured with these settings"
            }
            guard value >= b.limitNs else { return nil }
            return "\(b.text): \(BenchText.duration(value)), over by \(BenchText.duration(value - b.limitNs))"
        }
    }
}

/// Fast enough? Every budget given (`--budget`) with what was measured against it, met or not, and
/// whether each path keeps up with real time (its p99.9 within one chunk). In the text report and in
/// `--json`, passing or not.
public struct BenchVerdict: Codable, Sendable {
    /// One budget and what was measured against it.
    public struct Check: Codable, Sendable {
        /// The budget as written.
        public var budget: String
        /// What was measured; nil when these settings do not measure that row (a failure).
        public var valueNs: Double?
        /// The limit, ns.
        public var limitNs: Double
        /// Whether the measured value is below the limit.
        public var passed: Bool
    }

    /// Whether one path keeps up with real time: its p99.9 per chunk against the chunk's duration.
    public struct RealTime: Codable, Sendable {
        /// The path: `mic` or `speaker`.
        public var path: String
        /// The path's p99.9 per chunk, ns.
        public var p999Ns: Double
        /// The chunk's duration, ns.
        public var chunkNs: Double
        /// p99.9 ÷ the chunk's duration: the share of real time a slow chunk takes.
        public var share: Double
        /// The p99.9 fits in one chunk's duration.
        public var keepsUp: Bool
    }

    /// Every budget given, in order, with its measured value.
    public var budgets: [Check]
    /// Every budget met (true when none was given).
    public var passed: Bool
    /// Per path, whether it keeps up with real time.
    public var realTime: [RealTime]

    /// The verdict of `budgets` on `report`.
    public init(_ budgets: [BenchBudget], report: BenchReport) {
        self.budgets = budgets.map { b in
            let path = b.path == "mic" ? report.paths.mic : report.paths.speaker
            let row = b.stage.map { s in path.stages.first { $0.name == s } } ?? path.total
            let value = row?.statistic(b.statistic)
            return Check(
                budget: b.text, valueNs: value, limitNs: b.limitNs, passed: value.map { $0 < b.limitNs } ?? false)
        }
        passed = self.budgets.allSatisfy(\.passed)
        realTime = [("mic", report.paths.mic), ("speaker", report.paths.speaker)].compactMap { name, path in
            guard let total = path.total else { return nil }
            let chunk = path.chunkMilliseconds * 1e6
            return RealTime(
                path: name, p999Ns: total.p999, chunkNs: chunk, share: total.p999 / chunk, keepsUp: total.p999 < chunk)
        }
    }

    /// The budgets not met, one line each (as `BenchBudget.failures`).
    public var failures: [String] {
        budgets.filter { !$0.passed }.map { c in
            guard let v = c.valueNs else { return "\(c.budget): not measured with these settings" }
            return "\(c.budget): \(BenchText.duration(v)), over by \(BenchText.duration(v - c.limitNs))"
        }
    }

    /// The verdict as the text report ends: the budgets, then real time.
    public var text: String {
        var lines: [String] = []
        if budgets.isEmpty {
            lines.append("budget: none given (--budget 'mic.p99<1ms,speaker.p99<2ms' checks one; exit 1 when over)")
        } else {
            let met = budgets.filter(\.passed).count
            lines.append(
                "budget: \(passed ? "within" : "OVER") (\(met) of \(budgets.count) met)")
            let width = (budgets.map(\.budget.count).max() ?? 0) + 2
            for c in budgets {
                var line = "  " + BenchText.pad(c.budget, width)
                guard let v = c.valueNs else {
                    lines.append(line + "not measured with these settings: over")
                    continue
                }
                line += BenchText.pad(BenchText.duration(v), 10)
                line +=
                    c.passed
                    ? "within, \(BenchText.format1(c.limitNs / Swift.max(v, 1e-3)))× headroom"
                    : "OVER by \(BenchText.duration(v - c.limitNs))"
                lines.append(line)
            }
        }
        if let chunk = realTime.first?.chunkNs {
            let each = realTime.map {
                "\($0.path) \(BenchText.duration($0.p999Ns)) = \(BenchText.percent($0.share, sign: false))"
            }
            let slow = realTime.filter { !$0.keepsUp }.map(\.path)
            lines.append(
                "real time (p99.9 of a \(BenchText.format1(chunk / 1e6)) ms chunk): " + each.joined(separator: ", ")
                    + (slow.isEmpty ? ": keeps up" : ": \(slow.joined(separator: " and ")) CANNOT keep up"))
        }
        return lines.joined(separator: "\n")
    }
}
