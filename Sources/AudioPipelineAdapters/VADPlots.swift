import AudioPipelineCore
import Foundation

/// SVG plots for `vad tune` (plain SVG 1.1, no scripts, readable in any browser).
public enum VADPlots {
    public static func esc(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    /// "Nice" tick step for a range.
    static func tickStep(_ span: Double, target: Int) -> Double {
        let raw = span / Double(max(1, target))
        let mag = pow(10, (log10(raw)).rounded(.down))
        for m in [1.0, 2, 5, 10] where raw <= m * mag { return m * mag }
        return 10 * mag
    }

    /// One file: waveform; frame level (dBFS) with noise floor, the enter/exit thresholds over it and
    /// the expected echo; reference and detected segments — on one time axis.
    public static func file(
        name: String, samples: [Float], rate: Int, run: VADRun, reference: [SpeechSegment], detected: [SpeechSegment],
        metrics: VADScoring.Metrics, hasReference: Bool
    ) -> String {
        let width = 1200.0, left = 70.0, right = 20.0
        let plotW = width - left - right
        let waveTop = 50.0, waveH = 110.0
        let dbTop = waveTop + waveH + 25, dbH = 230.0
        let segTop = dbTop + dbH + 25, segH = 54.0
        let height = segTop + segH + 60
        let duration = max(run.duration, 1e-3)
        func x(_ t: Double) -> Double { left + plotW * t / duration }
        /// A segment as a bar on the time axis (at least half a pixel wide).
        func bar(_ seg: SpeechSegment, y: Double, height: Double, fill: String, opacity: String = "") -> String {
            "<rect x=\"\(f(x(seg.start)))\" y=\"\(f(y))\" width=\"\(f(max(0.5, x(seg.end) - x(seg.start))))\" height=\"\(f(height))\" fill=\"\(fill)\"\(opacity.isEmpty ? "" : " opacity=\"\(opacity)\"")/>\n"
        }
        let c = run.configuration
        var s = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="22" font-size="16" font-weight="bold">\(esc(name))</text>
            <text x="\(left)" y="40" fill="#444">F1 \(String(format: "%.3f", metrics.f1)) · precision \(String(format: "%.3f", metrics.precision)) · recall \(String(format: "%.3f", metrics.recall)) · false alarm \(String(format: "%.1f", metrics.falseAlarm * 100)) % · enter \(formatNumber(c.enterThreshold)) dB, exit \(formatNumber(c.exitThreshold)) dB, hangover \(formatNumber(c.hangoverMilliseconds)) ms\(hasReference ? " · far-end reference used" : "")</text>

            """
        // Waveform: min/max per pixel column.
        let columns = Int(plotW)
        var path = ""
        let per = max(1, samples.count / max(1, columns))
        var peak: Float = 1e-6
        for v in samples { peak = max(peak, abs(v)) }
        let mid = waveTop + waveH / 2
        for col in 0..<columns {
            let a = col * samples.count / columns, b = min(samples.count, a + per)
            guard b > a else { continue }
            var lo: Float = 0, hi: Float = 0
            for k in a..<b { lo = min(lo, samples[k]); hi = max(hi, samples[k]) }
            let px = left + Double(col)
            path += "M\(f(px)),\(f(mid - Double(hi / peak) * waveH / 2))V\(f(mid - Double(lo / peak) * waveH / 2))"
        }
        s += "<text x=\"\(left - 8)\" y=\"\(f(waveTop + 12))\" text-anchor=\"end\" fill=\"#444\">wave</text>\n"
        s += "<rect x=\"\(left)\" y=\"\(waveTop)\" width=\"\(plotW)\" height=\"\(waveH)\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n"
        s += "<path d=\"\(path)\" stroke=\"#555\" stroke-width=\"1\" fill=\"none\"/>\n"
        // Reference speech shaded behind the wave and the level plot.
        for seg in reference {
            s += bar(seg, y: waveTop, height: segTop - waveTop - 25, fill: "#2e7d32", opacity: "0.08")
        }
        // Level plot.
        let frames = run.frames
        let levels = frames.map(\.level).filter { $0.isFinite }
        let top = min(0, ((levels.max() ?? -20) / 10).rounded(.up) * 10 + 5)
        let bottom = max(-120, ((levels.min() ?? -90) / 10).rounded(.down) * 10)
        func y(_ d: Double) -> Double { dbTop + dbH * (top - min(top, max(bottom, d))) / (top - bottom) }
        s += "<rect x=\"\(left)\" y=\"\(dbTop)\" width=\"\(plotW)\" height=\"\(dbH)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        var tick = (bottom / 10).rounded(.up) * 10
        while tick <= top {
            s += "<line x1=\"\(left)\" x2=\"\(left + plotW)\" y1=\"\(f(y(tick)))\" y2=\"\(f(y(tick)))\" stroke=\"#eee\"/>"
            s += "<text x=\"\(left - 6)\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\" fill=\"#666\">\(Int(tick))</text>\n"
            tick += tickStep(top - bottom, target: 6)
        }
        s += "<text transform=\"translate(16,\(f(dbTop + dbH / 2))) rotate(-90)\" text-anchor=\"middle\" fill=\"#444\">frame level, dBFS</text>\n"
        func polyline(_ values: [Double], color: String, width w: Double = 1.2, dash: String? = nil) -> String {
            var p = ""
            var open = false
            for (i, v) in values.enumerated() {
                guard v.isFinite else { open = false; continue }
                let px = x((Double(i) + 0.5) * run.frameSeconds)
                p += (open ? "L" : "M") + "\(f(px)),\(f(y(v)))"
                open = true
            }
            return "<path d=\"\(p)\" stroke=\"\(color)\" stroke-width=\"\(w)\" fill=\"none\"\(dash.map { " stroke-dasharray=\"\($0)\"" } ?? "")/>\n"
        }
        // Thresholds: the level at which the score reaches enter/exit, approximately model + threshold,
        // where the model is the noise floor ⊕ expected echo.
        let model = frames.map { fr -> Double in
            fr.echo.isFinite ? 10 * log10(pow(10, fr.floor / 10) + pow(10, (fr.echo + c.echoMargin) / 10)) : fr.floor
        }
        s += polyline(frames.map(\.level), color: "#1f77b4", width: 1)
        s += polyline(frames.map(\.floor), color: "#7f7f7f", width: 1.6)
        if hasReference { s += polyline(frames.map(\.echo), color: "#d62728", width: 1.2, dash: "2,2") }
        s += polyline(model.map { $0 + c.enterThreshold }, color: "#ff7f0e", width: 1.2, dash: "6,3")
        s += polyline(model.map { $0 + c.exitThreshold }, color: "#bcbd22", width: 1.2, dash: "3,3")
        s += "<line x1=\"\(left)\" x2=\"\(left + plotW)\" y1=\"\(f(y(c.absoluteThreshold)))\" y2=\"\(f(y(c.absoluteThreshold)))\" stroke=\"#9467bd\" stroke-dasharray=\"1,3\"/>\n"
        // Segments.
        s += "<text x=\"\(left - 8)\" y=\"\(f(segTop + 16))\" text-anchor=\"end\" fill=\"#2e7d32\">labels</text>\n"
        s += "<text x=\"\(left - 8)\" y=\"\(f(segTop + 44))\" text-anchor=\"end\" fill=\"#1565c0\">detected</text>\n"
        s += "<rect x=\"\(left)\" y=\"\(segTop)\" width=\"\(plotW)\" height=\"\(segH)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        for seg in reference {
            s += bar(seg, y: segTop + 4, height: 20, fill: "#2e7d32")
        }
        for seg in detected {
            s += bar(seg, y: segTop + 30, height: 20, fill: "#1565c0")
        }
        // Time axis.
        let axisY = segTop + segH
        var t = 0.0
        let step = tickStep(duration, target: 12)
        while t <= duration + 1e-9 {
            s += "<line x1=\"\(f(x(t)))\" x2=\"\(f(x(t)))\" y1=\"\(f(axisY))\" y2=\"\(f(axisY + 5))\" stroke=\"#666\"/>"
            s += "<text x=\"\(f(x(t)))\" y=\"\(f(axisY + 18))\" text-anchor=\"middle\" fill=\"#666\">\(formatNumber((t * 100).rounded() / 100))</text>\n"
            t += step
        }
        s += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(axisY + 36))\" text-anchor=\"middle\" fill=\"#444\">time, s (decisions on the streaming timeline)</text>\n"
        // Legend.
        var lx = left
        let ly = height - 8
        for (label, color, dash) in [("frame level", "#1f77b4", ""), ("noise floor", "#7f7f7f", ""), ("enter threshold", "#ff7f0e", "6,3"),
                                     ("exit threshold", "#bcbd22", "3,3"), ("absolute minimum", "#9467bd", "1,3")] + (hasReference ? [("expected echo", "#d62728", "2,2")] : []) {
            s += "<line x1=\"\(f(lx))\" x2=\"\(f(lx + 22))\" y1=\"\(f(ly - 4))\" y2=\"\(f(ly - 4))\" stroke=\"\(color)\" stroke-width=\"2\"\(dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\"")/>"
            s += "<text x=\"\(f(lx + 26))\" y=\"\(f(ly))\" fill=\"#333\">\(label)</text>\n"
            lx += 40 + Double(label.count) * 7
        }
        return s + "</svg>\n"
    }

    /// A scatter/line chart: `series` of (x, y) points, an optional marked point.
    public static func chart(
        title: String, xLabel: String, yLabel: String, series: [(label: String, color: String, points: [(Double, Double)], line: Bool)],
        mark: (Double, Double, String)?, xRange: ClosedRange<Double>? = nil, yRange: ClosedRange<Double>? = nil
    ) -> String {
        let width = 760.0, height = 520.0, left = 70.0, right = 30.0, top = 50.0, bottom = 70.0
        let plotW = width - left - right, plotH = height - top - bottom
        let all = series.flatMap(\.points)
        func padded(_ lo: Double, _ hi: Double) -> ClosedRange<Double> {
            let pad = max((hi - lo) * 0.05, 1e-3)
            return (lo - pad)...(hi + pad)
        }
        let xr = xRange ?? padded(all.map(\.0).min() ?? 0, all.map(\.0).max() ?? 1)
        let yr = yRange ?? padded(all.map(\.1).min() ?? 0, all.map(\.1).max() ?? 1)
        let xs = max(xr.upperBound - xr.lowerBound, 1e-9), ys = max(yr.upperBound - yr.lowerBound, 1e-9)
        func px(_ v: Double) -> Double { left + plotW * (v - xr.lowerBound) / xs }
        func py(_ v: Double) -> Double { top + plotH * (1 - (v - yr.lowerBound) / ys) }
        var s = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="28" font-size="16" font-weight="bold">\(esc(title))</text>
            <rect x="\(left)" y="\(top)" width="\(plotW)" height="\(plotH)" fill="none" stroke="#ccc"/>

            """
        var t = (xr.lowerBound / tickStep(xs, target: 8)).rounded(.up) * tickStep(xs, target: 8)
        while t <= xr.upperBound + 1e-9 {
            s += "<line x1=\"\(f(px(t)))\" x2=\"\(f(px(t)))\" y1=\"\(top)\" y2=\"\(f(top + plotH))\" stroke=\"#f0f0f0\"/>"
            s += "<text x=\"\(f(px(t)))\" y=\"\(f(top + plotH + 18))\" text-anchor=\"middle\" fill=\"#666\">\(formatNumber((t * 1000).rounded() / 1000))</text>\n"
            t += tickStep(xs, target: 8)
        }
        t = (yr.lowerBound / tickStep(ys, target: 8)).rounded(.up) * tickStep(ys, target: 8)
        while t <= yr.upperBound + 1e-9 {
            s += "<line x1=\"\(left)\" x2=\"\(f(left + plotW))\" y1=\"\(f(py(t)))\" y2=\"\(f(py(t)))\" stroke=\"#f0f0f0\"/>"
            s += "<text x=\"\(left - 6)\" y=\"\(f(py(t) + 4))\" text-anchor=\"end\" fill=\"#666\">\(formatNumber((t * 1000).rounded() / 1000))</text>\n"
            t += tickStep(ys, target: 8)
        }
        s += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(height - 30))\" text-anchor=\"middle\" fill=\"#444\">\(esc(xLabel))</text>\n"
        s += "<text transform=\"translate(18,\(f(top + plotH / 2))) rotate(-90)\" text-anchor=\"middle\" fill=\"#444\">\(esc(yLabel))</text>\n"
        var ly = top + 14
        for series in series {
            let pts = series.points.sorted { $0.0 < $1.0 }
            if series.line {
                s += "<path d=\"" + pts.enumerated().map { "\($0.offset == 0 ? "M" : "L")\(f(px($0.element.0))),\(f(py($0.element.1)))" }.joined()
                    + "\" stroke=\"\(series.color)\" stroke-width=\"2\" fill=\"none\"/>\n"
            }
            for p in pts { s += "<circle cx=\"\(f(px(p.0)))\" cy=\"\(f(py(p.1)))\" r=\"\(series.line ? 3 : 2)\" fill=\"\(series.color)\" opacity=\"0.6\"/>" }
            s += "\n<rect x=\"\(f(left + plotW - 210))\" y=\"\(f(ly - 9))\" width=\"10\" height=\"10\" fill=\"\(series.color)\"/>"
            s += "<text x=\"\(f(left + plotW - 195))\" y=\"\(f(ly))\" fill=\"#333\">\(esc(series.label))</text>\n"
            ly += 16
        }
        if let (mx, my, label) = mark {
            s += "<circle cx=\"\(f(px(mx)))\" cy=\"\(f(py(my)))\" r=\"8\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2.5\"/>"
            s += "<text x=\"\(f(px(mx) + 12))\" y=\"\(f(py(my) - 10))\" fill=\"#d62728\" font-weight=\"bold\">\(esc(label))</text>\n"
        }
        return s + "</svg>\n"
    }
}
