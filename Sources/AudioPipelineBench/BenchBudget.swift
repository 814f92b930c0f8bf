import AudioPipelineCore

/// A latency budget: `mic.p99<1ms`, `speaker.decode.p50<500ns` — a path (`mic`, `speaker`), an
/// optional stage, a statistic (p50 p90 p99 p999 max mean), `<`, a duration with its unit (ns, us
/// or µs, ms, s). What an app's CI checks on target hardware.
public struct BenchBudget: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var stage: String?
    public var statistic: String
    public var limitNs: Double
    public let text: String

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
