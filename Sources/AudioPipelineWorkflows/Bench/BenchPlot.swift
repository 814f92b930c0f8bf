import AudioPipelineBench
import Foundation

/// `bench --plot FILE.svg`: per path (a panel each), the per-chunk latency distribution of the total,
/// of every stage and of the common client code beside the total: the fraction of chunks slower than
/// a time, both axes logarithmic so the tail an audio callback must survive shows (p50, p99, p99.9
/// marked), and the chunk's real-time budget. One time axis for both panels, so stages and paths
/// compare at a glance: where the time goes, and how far from real time.
public enum BenchPlot {
    static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]

    /// One distribution: its legend label, its row, its colour, dashed (a peer) or not.
    typealias Series = (label: String, row: BenchRow, color: String, dash: String)

    static func series(_ path: BenchPath) -> [Series] {
        guard let total = path.total else { return [] }
        var out: [Series] = [("total", total, "#000000", "")]
        for (k, stage) in path.stages.enumerated() {
            let label =
                stage.name
                + (stage.partOf == nil ? " (not in total)" : stage.partOf == "total" ? "" : " (in \(stage.partOf!))")
            out.append((label, stage, palette[k % palette.count], ""))
        }
        if let peer = path.peers.first(where: { $0.peerOf == "total" }) {
            out.append(("peer " + peer.name + " (whole path)", peer, "#7f7f7f", "5,3"))
        }
        return out.filter { !$0.row.samples.isEmpty }
    }

    /// The latency plot (`bench --plot`): per path, each row's per-chunk times as a distribution.
    public static func svg(_ r: BenchReport) -> String {
        let panels = [("mic", r.paths.mic), ("speaker", r.paths.speaker)].map { ($0.0, $0.1, series($0.1)) }
            .filter { !$0.2.isEmpty }
        let left = 70.0, plotW = 640.0, plotH = 220.0, legendRow = 15.0
        let heights = panels.map { 30 + plotH + 30 + Double($0.2.count) * legendRow + 10 }
        var svg = SVG(width: 760, height: 40 + max(heights.reduce(0, +), 40))
        svg.text(
            "Per-chunk latency by stage, \(r.paths.mic.chunkMilliseconds) ms chunks — \(r.machine.cpu)", x: left, y: 22,
            bold: true)
        let all = panels.flatMap { $0.2.flatMap(\.row.samples) }.filter { $0 > 0 }
        guard let lo = all.min(), let hi = all.max() else {
            svg.text("no samples", x: left, y: 60)
            return svg.document
        }
        let budget = r.paths.mic.chunkMilliseconds * 1e6
        let x0 = floor(log10(lo)), x1 = max(ceil(log10(max(hi, budget))), x0 + 1)
        func x(_ ns: Double) -> Double { left + (log10(max(ns, lo)) - x0) / (x1 - x0) * plotW }
        let most = panels.flatMap { $0.2.map(\.row.samples.count) }.max() ?? 10
        let y1 = floor(log10(1 / Double(max(most, 10))))
        var top = 40.0
        for (k, (name, path, lines)) in panels.enumerated() {
            // y: the fraction of chunks slower than x, from 1 (top) down to one chunk in the run.
            func y(_ exceed: Double) -> Double { top + 24 + log10(max(exceed, pow(10, y1))) / y1 * plotH }
            svg.text(
                BenchText.fit("\(name) path: \(path.description)", 112), x: left, y: top + 14, size: 11, bold: true)
            let plotTop = top + 24
            svg.rect(x: left, y: plotTop, width: plotW, height: plotH, stroke: "#999")
            var decade = x0
            while decade <= x1 {
                let ns = pow(10, decade)
                svg.line(x1: x(ns), y1: plotTop, x2: x(ns), y2: plotTop + plotH, stroke: "#ddd")
                svg.text(BenchText.duration(ns), x: x(ns), y: plotTop + plotH + 14, anchor: .middle, size: 10)
                decade += 1
            }
            for (e, label) in [(0.5, "p50"), (0.01, "p99"), (0.001, "p99.9")] where log10(e) >= y1 {
                svg.line(x1: left, y1: y(e), x2: left + plotW, y2: y(e), stroke: "#bbb", dash: "4,3")
                svg.text(label, x: left - 6, y: y(e) + 4, anchor: .end, size: 10)
            }
            svg.line(x1: x(budget), y1: plotTop, x2: x(budget), y2: plotTop + plotH, stroke: "#2ca02c", dash: "6,3")
            svg.text("chunk (real time)", x: x(budget) - 4, y: plotTop + 12, anchor: .end, fill: "#2ca02c", size: 10)
            svg.text(
                "fraction of chunks slower", x: 16, y: plotTop + plotH / 2, anchor: .middle, size: 10, rotate: true)
            for (i, s) in lines.enumerated() {
                let sorted = s.row.samples.sorted()
                var d = PathData()
                let step = max(1, sorted.count / 400)
                let n = Double(sorted.count)
                d.move(x(sorted.first ?? lo), y(1))
                // The body thinned, the tail point by point: the last thousand samples hold p99.9 and beyond.
                let tail = max(0, sorted.count - 1000)
                for j in stride(from: 0, to: tail, by: step) { d.line(x(sorted[j]), y(1 - Double(j) / n)) }
                for j in tail..<sorted.count { d.line(x(sorted[j]), y(1 - Double(j) / n)) }
                svg.path(d.d, stroke: s.color, width: s.label == "total" ? 2.5 : 1.5, dash: s.dash)
                let ly = plotTop + plotH + 34 + Double(i) * legendRow
                svg.line(x1: left + 10, y1: ly - 4, x2: left + 34, y2: ly - 4, stroke: s.color, width: 3, dash: s.dash)
                svg.text(
                    "\(s.label) — p50 \(BenchText.duration(s.row.p50)), p99 \(BenchText.duration(s.row.p99)), "
                        + "p99.9 \(BenchText.duration(s.row.p999))", x: left + 40, y: ly, size: 10)
            }
            top += heights[k]
        }
        return svg.document
    }
}

extension BenchReport: WorkflowReport {}
