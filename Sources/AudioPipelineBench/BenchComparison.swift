/// `audiopipe bench compare BASE NEW`: the change of every row's p50 (and p99), flagged only when it
/// is beyond the noise of the two runs, so a rerun of the same build is not called a regression. A
/// flagged slowdown of one of ours (not a peer) is a regression.
///
/// The noise of a row is what both runs measured of it, plus what the clock alone can do:
///
/// - half the runs' mean spread: a run times each of its five repeats on another instance of the
///   stage (`BenchMeasure.run(placements:)`), so its spread holds what moves a stage from process to
///   process (where its memory falls), and its p50, pooled from the five, sits in the middle of that
///   range — within half of it;
/// - `clockSteps` steps of the clock on a timed sample (`p50 × batch`, the chunks one reading
///   spans): a row near the clock's resolution (a 25 ns stage on a 20 ns clock, timed 36 chunks at
///   a time) moves by whole steps between runs however steady each run is;
/// - and never less than `minimumChange`: what two processes of one build differ by on a busy
///   machine, which no run sees from inside (the CPU's clock, neighbours).
///
/// Measured on a shared 2-core VM, `audiopipe bench --json` three times back to back, compared
/// pairwise in all six orders: the spread alone flagged 3, 0, 5, 2, 3 and 3 rows (before instances
/// per repeat: a stage's p50 moved by up to 16 % between processes, its spread by 1 %); this noise
/// flags none, in eight default runs (56 ordered pairs) and in three with `--resampler src-medium
/// --chunk-ms 40`; a 20 % slowdown of any one of our rows in any of those reports is flagged.
public struct BenchComparison: Sendable {
    /// Clock steps of a timed sample that are noise.
    public static let clockSteps = 4.0
    /// A change smaller than this is never flagged.
    public static let minimumChange = 0.10

    /// One row in both runs, and how it changed.
    public struct Change: Sendable {
        /// The row's key: `path.total`, `path.stage` or `path.peer:name`.
        public var key: String
        /// The base run's p50, ns.
        public var base: Double
        /// The new run's p50, ns.
        public var new: Double
        /// Relative change of the p50: new ÷ base − 1 (+0.2 is 20 % slower).
        public var change: Double
        /// Relative change of the p99.
        public var p99Change: Double
        /// The noise of this row: changes within it are not flagged (see `BenchComparison`).
        public var threshold: Double
        /// Of `threshold`: half the runs' mean spread, and the clock's floor.
        public var spread: Double
        /// Of `threshold`: a few clock steps over the p50, for rows near the timer's resolution.
        public var clockFloor: Double
        /// The change is beyond the row's noise.
        public var flagged: Bool { abs(change) > threshold }
        /// A flagged slowdown of one of our rows (a peer's is not ours to fix).
        public var regression: Bool { flagged && change > 0 && !key.contains("peer:") }
    }

    /// Every row in both runs.
    public var changes: [Change]
    /// Rows in only one of the runs.
    public var unmatched: [String]
    /// Settings that differ (the runs measured different things).
    public var settingsDiffer: [String]
    /// The flagged slowdowns of our rows.
    public var regressions: [Change] { changes.filter(\.regression) }

    /// Compares `new` with `base`, row by row.
    public init(base: BenchReport, new: BenchReport) {
        let b = Dictionary(base.rows.map { ($0.key, $0.row) }, uniquingKeysWith: { a, _ in a })
        let n = Dictionary(new.rows.map { ($0.key, $0.row) }, uniquingKeysWith: { a, _ in a })
        let step = Swift.max(base.timer.resolutionNs, new.timer.resolutionNs, 0)
        changes = base.rows.compactMap { key, old in
            guard let now = n[key], old.p50 > 0, old.p99 > 0, now.p50 > 0 else { return nil }
            let sample = Swift.min(old.p50 * Double(Swift.max(old.batch, 1)), now.p50 * Double(Swift.max(now.batch, 1)))
            let spread = (old.spread + now.spread) / 4
            let floor = Self.clockSteps * step / sample
            return Change(
                key: key, base: old.p50, new: now.p50, change: now.p50 / old.p50 - 1, p99Change: now.p99 / old.p99 - 1,
                threshold: Swift.max(spread + floor, Self.minimumChange), spread: spread, clockFloor: floor)
        }
        unmatched = base.rows.map(\.key).filter { n[$0] == nil } + new.rows.map(\.key).filter { b[$0] == nil }
        settingsDiffer = Set(base.settings.keys).union(new.settings.keys).sorted().filter {
            base.settings[$0] != new.settings[$0]
        }.map { "\($0): \(base.settings[$0] ?? "-") → \(new.settings[$0] ?? "-")" }
    }

    /// One line a row (within 100 columns), then what does not compare, then the count.
    public var text: String {
        var lines = [
            BenchText.pad("row", 34) + BenchText.pad("base p50", 11) + BenchText.pad("new p50", 11)
                + BenchText.pad("change", 9) + BenchText.pad("p99", 9) + BenchText.pad("noise", 9) + "verdict"
        ]
        for c in changes {
            let verdict =
                c.regression ? "REGRESSION" : c.flagged ? (c.change < 0 ? "faster" : "slower (peer)") : "noise"
            lines.append(
                BenchText.pad(BenchText.fit(c.key, 33), 34) + BenchText.pad(BenchText.duration(c.base), 11)
                    + BenchText.pad(BenchText.duration(c.new), 11) + BenchText.pad(BenchText.percent(c.change), 9)
                    + BenchText.pad(BenchText.percent(c.p99Change), 9)
                    + BenchText.pad("±" + BenchText.percent(c.threshold).dropFirst(), 9) + verdict)
        }
        lines.append(
            "noise: half the runs' mean spread + \(Int(Self.clockSteps)) clock steps of a timed sample, at least "
                + BenchText.percent(Self.minimumChange, sign: false))
        if !unmatched.isEmpty {
            lines.append(
                BenchText.wrap("in one run only: " + unmatched.joined(separator: ", "), width: 100, indent: "  "))
        }
        if !settingsDiffer.isEmpty {
            lines.append(
                BenchText.wrap("settings differ: " + settingsDiffer.joined(separator: "; "), width: 100, indent: "  "))
        }
        let r = regressions.count
        lines.append(r == 0 ? "no regression beyond the runs' noise" : "\(r) regression\(r == 1 ? "" : "s")")
        return lines.joined(separator: "\n") + "\n"
    }
}
