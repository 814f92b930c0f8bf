import AudioPipelineBench
import Foundation

/// `bench --plot FILE.svg`: the per-chunk latency distribution of each path (ours and the common
/// client code), as cumulative curves on a logarithmic time axis, with p50 and p99 marked and the
/// chunk's real-time budget as a line.
public enum BenchPlot {
    public static func svg(_ r: BenchReport) -> String {
        let series: [(String, BenchRow, String)] = [
            ("mic", r.paths.mic.total, "#1f77b4"), ("speaker", r.paths.speaker.total, "#d62728"),
            ("mic peer", r.paths.mic.peers.first { $0.peerOf == "total" }, "#9ecae1"),
            ("speaker peer", r.paths.speaker.peers.first { $0.peerOf == "total" }, "#f4a6a6"),
        ].compactMap { name, row, color in row.map { (name + ": " + $0.name, $0, color) } }
        let (w, h, left, top, plotW, plotH) = (760.0, 450.0, 70.0, 40.0, 640.0, 300.0)
        var svg = SVG(width: w, height: h)
        svg.text(
            "Per-chunk latency, \(r.paths.mic.chunkMilliseconds) ms chunks — \(r.machine.cpu)", x: left, y: 22,
            bold: true)
        let all = series.flatMap { $0.1.samples }.filter { $0 > 0 }
        guard let lo = all.min(), let hi = all.max() else {
            svg.text("no samples", x: left, y: top + 20)
            return svg.document
        }
        let budget = r.paths.mic.chunkMilliseconds * 1e6
        let x0 = floor(log10(lo)), x1 = max(ceil(log10(max(hi, budget))), x0 + 1)
        func x(_ ns: Double) -> Double { left + (log10(max(ns, lo)) - x0) / (x1 - x0) * plotW }
        func y(_ q: Double) -> Double { top + (1 - q) * plotH }
        svg.rect(x: left, y: top, width: plotW, height: plotH, stroke: "#999")
        var decade = x0
        while decade <= x1 {
            let ns = pow(10, decade)
            svg.line(x1: x(ns), y1: top, x2: x(ns), y2: top + plotH, stroke: "#ddd")
            svg.text(BenchText.duration(ns), x: x(ns), y: top + plotH + 16, anchor: .middle, size: 11)
            decade += 1
        }
        for q in [0.5, 0.99] {
            svg.line(x1: left, y1: y(q), x2: left + plotW, y2: y(q), stroke: "#bbb", dash: "4,3")
            svg.text(q == 0.5 ? "p50" : "p99", x: left - 6, y: y(q) + 4, anchor: .end, size: 11)
        }
        svg.line(x1: x(budget), y1: top, x2: x(budget), y2: top + plotH, stroke: "#2ca02c", dash: "6,3")
        svg.text("chunk (real time)", x: x(budget) - 4, y: top + 14, anchor: .end, fill: "#2ca02c", size: 11)
        for (i, (name, row, color)) in series.enumerated() {
            let sorted = row.samples.sorted()
            var d = PathData()
            let step = max(1, sorted.count / 400)
            for k in stride(from: 0, to: sorted.count, by: step) {
                let px = x(sorted[k]), py = y(Double(k + 1) / Double(sorted.count))
                if k == 0 { d.move(px, y(0)) }
                d.line(px, py)
            }
            d.line(x(sorted.last ?? lo), y(1))
            svg.path(d.d, stroke: color, width: 2)
            let label = "\(name) — p50 \(BenchText.duration(row.p50)), p99 \(BenchText.duration(row.p99))"
            svg.line(
                x1: left + 10, y1: top + plotH + 34 + Double(i) * 16, x2: left + 34,
                y2: top + plotH + 34 + Double(i) * 16, stroke: color, width: 3)
            svg.text(label, x: left + 40, y: top + plotH + 38 + Double(i) * 16, size: 11)
        }
        svg.text("fraction of chunks ≤ time", x: 16, y: top + plotH / 2, anchor: .middle, size: 11, rotate: true)
        return svg.document
    }
}

extension BenchReport: WorkflowReport {}
