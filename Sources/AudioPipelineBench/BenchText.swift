/// The report as a person reads it: the machine, the settings, then per path a table of the total,
/// the stages it is made of (indented under what they are part of), each peer under the row it stands
/// beside, and what the total does not cover; then the verdict (budgets, real time).
///
/// By default every line fits in 100 columns (the columns that answer "fast enough, and where does
/// the time go": p50, p99, p99.9, max, × realtime, share of the total, allocations, the peers'
/// ratio); `wide` shows every figure (p90, chunks/s, CPU time, core share, spread, batch).
public enum BenchText {
    /// Width of the default text.
    public static let width = 100

    /// The report as `audiopipe bench` prints it: the machine, the settings, each path's rows, the
    /// verdict; lines within `width` unless `wide`; `warnings` adds the run's warnings.
    public static func render(_ r: BenchReport, warnings: Bool = true, wide: Bool = false) -> String {
        func wrap(_ text: String) -> String { wide ? text : BenchText.wrap(text, width: width, indent: "  ") }
        var out =
            wrap(
                "machine: \(r.machine.cpu); \(r.machine.cores) cores; \(r.machine.architecture); \(r.machine.os); "
                    + "\(r.machine.build) build; vector path: \(r.machine.vectorPath)") + "\n"
        out +=
            wrap(
                "settings: "
                    + r.settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    .joined(separator: " ")) + "\n"
        out +=
            wrap(
                "timer: step \(duration(r.timer.resolutionNs)), read \(duration(r.timer.readNs)); measuring adds "
                    + "\(duration(r.timer.micOverheadNs)) per mic chunk "
                    + "(\(percent(r.timer.micOverheadShare, sign: false)) of its p50); allocations "
                    + (r.timer.allocationsCounted ? "counted in-process" : "not measured"))
            + "\n"
        for (name, path) in [("mic", r.paths.mic), ("speaker", r.paths.speaker)] {
            out += "\n" + wrap("\(name) path, \(path.chunkMilliseconds) ms chunks: \(path.description)") + "\n"
            if let note = path.note { out += wrap("  \(note)") + "\n" }
            guard let total = path.total else { continue }
            out += table(path, total: total, wide: wide)
            if let covers = coverage(path) { out += wrap("  " + covers) + "\n" }
        }
        if let verdict = r.verdict {
            out +=
                "\n"
                + verdict.text.split(separator: "\n").map { wrap(String($0)) }
                .joined(separator: "\n") + "\n"
        }
        out += "\npeak memory \(r.peakMemoryBytes / 1_048_576) MiB; run \(format1(r.seconds)) s\n"
        if warnings { for w in r.warnings { out += wrap("warning: \(w)") + "\n" } }
        return out
    }

    /// One path's rows in reading order: the total and its peers, then each stage (indented by how
    /// deep it sits in the total) with its peers, then the stages beside the total.
    static func table(_ path: BenchPath, total: BenchRow, wide: Bool) -> String {
        let labelWidth = wide ? 30 : 26
        var out =
            "  " + pad("row", labelWidth)
            + ["p50", wide ? "p90" : nil, "p99", "p99.9", "max"].compactMap { $0 }
            .map { pad($0, 10) }.joined()
        out += pad("×realtime", 10)
        if wide { out += pad("chunks/s", 10) + pad("cpu", 10) + pad("core", 8) }
        out += pad("%total", 8) + pad("allocs", 7)
        if wide { out += pad("spread", 8) + pad("batch", 6) }
        out += "×faster\n"
        func line(_ row: BenchRow, _ label: String) {
            var l = "  " + pad(fit(label, labelWidth - 1), labelWidth)
            l += [row.p50, wide ? row.p90 : nil, row.p99, row.p999, row.max].compactMap { $0 }
                .map { pad(duration($0), 10) }.joined()
            l += pad(format1(row.realtime), 10)
            if wide {
                l += pad("\(Int(row.chunksPerSecond.rounded()))", 10) + pad(duration(row.cpuNsPerChunk), 10)
                l += pad(percent(row.coreShare, sign: false), 8)
            }
            let share = row.peerOf == nil && row.name != "total" && total.p50 > 0 ? row.p50 / total.p50 : nil
            l += pad(share.map { percent($0, sign: false) } ?? "", 8)
            l += pad(row.allocationsPerChunk.map { format1($0) } ?? "n/m", 7)
            if wide { l += pad(percent(row.spread, sign: false), 8) + pad("\(row.batch)", 6) }
            l += row.ratio.map { format1($0) + "×" } ?? ""
            out += String(l.reversed().drop { $0 == " " }.reversed()) + "\n"
        }
        func peers(of name: String, _ depth: Int) {
            for p in path.peers where p.peerOf == name { line(p, indent(depth + 1) + "vs " + p.name) }
        }
        line(total, "total")
        peers(of: "total", 0)
        for stage in path.stages where stage.partOf != nil {
            let d = depth(stage, in: path)
            line(stage, indent(d) + stage.name)
            peers(of: stage.name, d)
        }
        for stage in path.stages where stage.partOf == nil {
            line(stage, stage.name + " (not in total)")
            peers(of: stage.name, 0)
        }
        // Peers of a row this report does not have (an older or edited report) are still shown.
        let shown = Set(["total"] + path.stages.map(\.name))
        for p in path.peers where !shown.contains(p.peerOf ?? "") { line(p, "vs " + p.name) }
        return out
    }

    /// What the path's total covers, from its stages' `partOf`; nil when every stage is in it.
    static func coverage(_ path: BenchPath) -> String? {
        let top = path.stages.filter { $0.partOf == "total" }.map(\.name)
        let beside = path.stages.filter { $0.partOf == nil }.map(\.name)
        guard !beside.isEmpty, !top.isEmpty else { return nil }
        return "total = " + top.joined(separator: " + ") + "; " + beside.joined(separator: ", ")
            + " runs beside the path on the same chunks and is not in its total"
    }

    /// 1 for a stage of the total, 2 for a part of such a stage, …
    static func depth(_ row: BenchRow, in path: BenchPath) -> Int {
        var d = 1
        var parent = row.partOf
        while let p = parent, p != "total", d < 8 {
            d += 1
            parent = path.stages.first { $0.name == p }?.partOf
        }
        return d
    }

    static func indent(_ depth: Int) -> String { String(repeating: "  ", count: depth) }

    /// `s` cut to `width` characters (the last one an ellipsis) when longer.
    public static func fit(_ s: String, _ width: Int) -> String {
        s.count <= width ? s : String(s.prefix(width - 1)) + "…"
    }

    /// `text` in lines of at most `width` characters (a word longer than a line stands alone), the
    /// lines after the first indented by `indent`.
    public static func wrap(_ text: String, width: Int, indent: String) -> String {
        guard text.count > width else { return text }
        var lines: [String] = []
        var line = ""
        let lead = String(text.prefix { $0 == " " })
        for word in text.split(separator: " ") {
            let start = line.isEmpty ? (lines.isEmpty ? lead : lead + indent) : line + " "
            if !line.isEmpty && start.count + word.count > width {
                lines.append(line)
                line = lead + indent + word
            } else {
                line = start + word
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// A duration given in ns, in the unit that suits it: `57 ns`, `1.63 µs`, `4.20 ms`, `1.50 s`.
    public static func duration(_ ns: Double) -> String {
        if ns < 1000 { return "\(Int(ns.rounded())) ns" }
        if ns < 1e6 { return format2(ns / 1e3) + " µs" }
        if ns < 1e9 { return format2(ns / 1e6) + " ms" }
        return format2(ns / 1e9) + " s"
    }

    /// A fraction as a percentage, to 0.1 % (0.01 % when small), with a sign unless `sign` is false.
    public static func percent(_ x: Double, sign: Bool = true) -> String {
        let rounded = abs(x) < 0.01 && x != 0 ? (x * 10000).rounded() / 100 : (x * 1000).rounded() / 10
        let v = rounded == 0 ? 0 : rounded  // (not "-0.0")
        return (sign && v >= 0 ? "+" : "") + "\(v) %"
    }

    static func format1(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        let v = (x * 10).rounded() / 10
        return v >= 1e6 ? "\(Int(v))" : "\(v)"
    }

    static func format2(_ x: Double) -> String {
        let v = (x * 100).rounded() / 100
        var s = "\(v)"
        if let dot = s.firstIndex(of: ".") {
            let decimals = s.distance(from: dot, to: s.endIndex) - 1
            if decimals < 2 { s += String(repeating: "0", count: 2 - decimals) }
        }
        return s
    }

    /// `s` padded with spaces to `width` characters (one space after it when it is as long or longer).
    public static func pad<S: StringProtocol>(_ s: S, _ width: Int) -> String {
        s.count >= width ? String(s) + " " : String(s) + String(repeating: " ", count: width - s.count)
    }
}
