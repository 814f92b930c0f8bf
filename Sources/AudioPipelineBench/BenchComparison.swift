/// `audiopipe bench compare BASE NEW`: the change of every row's p50 (and p99), flagged only when
/// it is larger than the two runs' own spread of that row (the p50's variation across each run's
/// repeats), so noise is not called a regression. A flagged slowdown of one of ours (not a peer)
/// is a regression.
public struct BenchComparison: Sendable {
    public struct Change: Sendable {
        public var key: String
        public var base: Double
        public var new: Double
        public var change: Double
        public var p99Change: Double
        /// The larger of the two runs' spreads for this row: changes within it are noise.
        public var threshold: Double
        public var flagged: Bool { abs(change) > threshold }
        public var regression: Bool { flagged && change > 0 && !key.contains("peer:") }
    }

    public var changes: [Change]
    /// Rows in only one of the runs.
    public var unmatched: [String]
    /// Settings that differ (the runs measured different things).
    public var settingsDiffer: [String]
    public var regressions: [Change] { changes.filter(\.regression) }

    public init(base: BenchReport, new: BenchReport) {
        let b = Dictionary(base.rows.map { ($0.key, $0.row) }, uniquingKeysWith: { a, _ in a })
        let n = Dictionary(new.rows.map { ($0.key, $0.row) }, uniquingKeysWith: { a, _ in a })
        changes = base.rows.compactMap { key, old in
            guard let now = n[key], old.p50 > 0, old.p99 > 0 else { return nil }
            return Change(
                key: key, base: old.p50, new: now.p50, change: now.p50 / old.p50 - 1, p99Change: now.p99 / old.p99 - 1,
                threshold: Swift.max(old.spread, now.spread))
        }
        unmatched = base.rows.map(\.key).filter { n[$0] == nil } + new.rows.map(\.key).filter { b[$0] == nil }
        settingsDiffer = Set(base.settings.keys).union(new.settings.keys).sorted().filter {
            base.settings[$0] != new.settings[$0]
        }.map { "\($0): \(base.settings[$0] ?? "-") → \(new.settings[$0] ?? "-")" }
    }

    public var text: String {
        var lines = [
            BenchText.pad("row", 44) + BenchText.pad("base p50", 11) + BenchText.pad("new p50", 11)
                + BenchText.pad("change", 9) + BenchText.pad("p99", 9) + "spread  verdict"
        ]
        for c in changes {
            let verdict =
                c.regression ? "REGRESSION" : c.flagged ? (c.change < 0 ? "faster" : "slower (peer)") : "noise"
            lines.append(
                BenchText.pad(c.key, 44) + BenchText.pad(BenchText.duration(c.base), 11)
                    + BenchText.pad(BenchText.duration(c.new), 11) + BenchText.pad(BenchText.percent(c.change), 9)
                    + BenchText.pad(BenchText.percent(c.p99Change), 9)
                    + BenchText.pad("±" + BenchText.percent(c.threshold).dropFirst(), 8) + verdict)
        }
        if !unmatched.isEmpty { lines.append("in one run only: " + unmatched.joined(separator: ", ")) }
        if !settingsDiffer.isEmpty { lines.append("settings differ: " + settingsDiffer.joined(separator: "; ")) }
        let r = regressions.count
        lines.append(r == 0 ? "no regression beyond the runs' spread" : "\(r) regression\(r == 1 ? "" : "s")")
        return lines.joined(separator: "\n") + "\n"
    }
}
