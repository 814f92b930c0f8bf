/// The report as a person reads it: the machine, the settings, then per path a table of the total,
/// its stages and the peers with their ratio to ours.
public enum BenchText {
    public static func render(_ r: BenchReport, warnings: Bool = true) -> String {
        var out = "machine: \(r.machine.cpu); \(r.machine.cores) cores; \(r.machine.architecture); "
        out += "\(r.machine.os); \(r.machine.build) build; vector path: \(r.machine.vectorPath)\n"
        out +=
            "settings: "
            + r.settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            .joined(separator: " ") + "\n"
        out += "timer: step \(duration(r.timer.resolutionNs)), read \(duration(r.timer.readNs)); measuring adds "
        out += "\(duration(r.timer.micOverheadNs)) per mic chunk (\(percent(r.timer.micOverheadShare, sign: false)) "
        out += "of its p50); allocations \(r.timer.allocationsCounted ? "counted in-process" : "not measured")\n"
        for (name, path) in [("mic", r.paths.mic), ("speaker", r.paths.speaker)] {
            out += "\n\(name) path, \(path.chunkMilliseconds) ms chunks: \(path.description)\n"
            if let note = path.note { out += "  \(note)\n" }
            guard path.total != nil else { continue }
            out += pad("", 2) + pad("row", 46) + ["p50", "p90", "p99", "p99.9", "max"].map { pad($0, 10) }.joined()
            out += pad("×realtime", 11) + pad("chunks/s", 10) + pad("cpu", 10) + pad("core", 7) + pad("allocs", 8)
            out += pad("spread", 8) + "ours ×faster\n"
            for row in [path.total!] + path.stages + path.peers {
                let label = row.peerOf.map { "peer \(row.name) (\($0))" } ?? row.name
                out += pad("", 2) + pad(label, 46)
                out += [row.p50, row.p90, row.p99, row.p999, row.max].map { pad(duration($0), 10) }.joined()
                out += pad(String(format1(row.realtime)), 11) + pad("\(Int(row.chunksPerSecond.rounded()))", 10)
                out += pad(duration(row.cpuNsPerChunk), 10) + pad(percent(row.coreShare, sign: false), 7)
                out += pad(row.allocationsPerChunk.map { format1($0) } ?? "n/m", 8)
                out += pad(percent(row.spread, sign: false), 8)
                out += row.ratio.map { format1($0) + "×" } ?? ""
                out += "\n"
            }
        }
        out += "\npeak memory \(r.peakMemoryBytes / 1_048_576) MiB; run \(format1(r.seconds)) s\n"
        if warnings { for w in r.warnings { out += "warning: \(w)\n" } }
        return out
    }

    public static func duration(_ ns: Double) -> String {
        if ns < 1000 { return "\(Int(ns.rounded())) ns" }
        if ns < 1e6 { return format2(ns / 1e3) + " µs" }
        if ns < 1e9 { return format2(ns / 1e6) + " ms" }
        return format2(ns / 1e9) + " s"
    }

    public static func percent(_ x: Double, sign: Bool = true) -> String {
        let v = abs(x) < 0.01 && x != 0 ? (x * 10000).rounded() / 100 : (x * 1000).rounded() / 10
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

    public static func pad<S: StringProtocol>(_ s: S, _ width: Int) -> String {
        s.count >= width ? String(s) + " " : String(s) + String(repeating: " ", count: width - s.count)
    }
}
