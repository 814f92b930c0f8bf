import AudioPipelineBench
import Foundation

/// `bench --plot FILE.svg`: the per-chunk latency distribution of each path (ours and the common
/// client code): the fraction of chunks slower than a time, both axes logarithmic so the tail an
/// audio callback must survive shows (p50, p99, p99.9 marked), and the chunk's real-time budget.
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
        let floorExceedance = 1 / Double(max(series.map { $0.1.samples.count }.max() ?? 10, 10))
        let y1 = floor(log10(floorExceedance))
        // y: the fraction of chunks slower than x, from 1 (top) down to one chunk in the run.
        func y(_ exceed: Double) -> Double { top + log10(max(exceed, pow(10, y1))) / y1 * plotH }
        svg.rect(x: left, y: top, width: plotW, height: plotH, stroke: "#999")
        var decade = x0
        while decade <= x1 {
            let ns = pow(10, decade)
            svg.line(x1: x(ns), y1: top, x2: x(ns), y2: top + plotH, stroke: "#ddd")
            svg.text(BenchText.duration(ns), x: x(ns), y: top + plotH + 16, anchor: .middle, size: 11)
            decade += 1
        }
        for (e, name) in [(0.5, "p50"), (0.01, "p99"), (0.001, "p99.9")] where log10(e) >= y1 {
            svg.line(x1: left, y1: y(e), x2: left + plotW, y2: y(e), stroke: "#bbb", dash: "4,3")
            svg.text(name, x: left - 6, y: y(e) + 4, anchor: .end, size: 11)
        }
        svg.line(x1: x(budget), y1: top, x2: x(budget), y2: top + plotH, stroke: "#2ca02c", dash: "6,3")
        svg.text("chunk (real time)", x: x(budget) - 4, y: top + 14, anchor: .end, fill: "#2ca02c", size: 11)
        for (i, (name, row, color)) in series.enumerated() {
            let sorted = row.samples.sorted()
            var d = PathData()
            let step = max(1, sorted.count / 400)
            let n = Double(sorted.count)
            d.move(x(sorted.first ?? lo), y(1))
            // The body thinned, the tail point by point: the last thousand samples hold p99.9 and beyond.
            let tail = max(0, sorted.count - 1000)
            for k in stride(from: 0, to: tail, by: step) { d.line(x(sorted[k]), y(1 - Double(k) / n)) }
            for k in tail..<sorted.count { d.line(x(sorted[k]), y(1 - Double(k) / n)) }
            svg.path(d.d, stroke: color, width: 2)
            let label = "\(name) — p50 \(BenchText.duration(row.p50)), p99 \(BenchText.duration(row.p99))"
            svg.line(
                x1: left + 10, y1: top + plotH + 34 + Double(i) * 16, x2: left + 34,
                y2: top + plotH + 34 + Double(i) * 16, stroke: color, width: 3)
            svg.text(label, x: left + 40, y: top + plotH + 38 + Double(i) * 16, size: 11)
        }
        svg.text("fraction of chunks slower", x: 16, y: top + plotH / 2, anchor: .middle, size: 11, rotate: true)
        return svg.document
    }
}

extension BenchReport: WorkflowReport {}
