import AudioPipelineCore
import Foundation

/// One file of a VAD report as SVG: waveform; frame level (dBFS) with noise floor, the enter/exit
/// thresholds over it and the expected echo; labelled and detected segments — on one time axis.
public struct VADFilePlot {
    public var name: String
    /// Waveform min/max per column, scaled to ±1 (`VADCorpus.Item.envelope`).
    public var envelope: [(min: Float, max: Float)]
    public var run: VADRun
    public var labels: [SpeechSegment]
    public var detected: [SpeechSegment]
    public var metrics: VADScoring.Metrics
    public var hasReference: Bool

    public init(
        name: String, envelope: [(min: Float, max: Float)], run: VADRun, labels: [SpeechSegment],
        detected: [SpeechSegment], metrics: VADScoring.Metrics, hasReference: Bool
    ) {
        self.name = name
        self.envelope = envelope
        self.run = run
        self.labels = labels
        self.detected = detected
        self.metrics = metrics
        self.hasReference = hasReference
    }

    // Layout.
    static let width = 1200.0, left = 70.0, right = 20.0
    static let waveTop = 50.0, waveHeight = 110.0
    static let levelTop = waveTop + waveHeight + 25, levelHeight = 230.0
    static let segmentTop = levelTop + levelHeight + 25, segmentHeight = 54.0
    static let height = segmentTop + segmentHeight + 60
    var plotWidth: Double { Self.width - Self.left - Self.right }

    public var svg: String {
        var s = SVG(width: Self.width, height: Self.height)
        let c = run.configuration
        s.text(name, x: Self.left, y: 22, size: 16, bold: true)
        let summary =
            String(
                format: "F1 %.3f · precision %.3f · recall %.3f · false alarm %.1f %% · ",
                metrics.f1, metrics.precision, metrics.recall, metrics.falseAlarm * 100)
            + "enter \(NumberText.plain(c.enterThreshold)) dB, exit \(NumberText.plain(c.exitThreshold)) dB, "
            + "hangover \(NumberText.plain(c.hangoverMilliseconds)) ms"
            + (hasReference ? " · far-end reference used" : "")
        s.text(summary, x: Self.left, y: 40, fill: "#444")
        drawWave(&s)
        // Labelled speech shaded behind the wave and the level plot.
        for seg in labels {
            bar(&s, seg, y: Self.waveTop, height: Self.segmentTop - Self.waveTop - 25, fill: "#2e7d32", opacity: "0.08")
        }
        drawLevels(&s)
        drawSegments(&s)
        drawTimeAxis(&s)
        drawLegend(&s)
        return s.document
    }

    func x(_ t: Double) -> Double { Self.left + plotWidth * t / max(run.duration, 1e-3) }

    /// A segment as a bar on the time axis (at least half a pixel wide).
    func bar(_ s: inout SVG, _ seg: SpeechSegment, y: Double, height: Double, fill: String, opacity: String = "") {
        s.rect(
            x: x(seg.start), y: y, width: max(0.5, x(seg.end) - x(seg.start)), height: height, fill: fill,
            opacity: opacity,
            title: String(format: "%.2f–%.2f s", seg.start, seg.end))
    }

    func drawWave(_ s: inout SVG) {
        s.text("wave", x: Self.left - 8, y: Self.waveTop + 12, anchor: .end, fill: "#444")
        s.rect(
            x: Self.left, y: Self.waveTop, width: plotWidth, height: Self.waveHeight, fill: "#fafafa", stroke: "#ccc")
        let mid = Self.waveTop + Self.waveHeight / 2
        var d = PathData()
        let columns = min(envelope.count, Int(plotWidth))
        for col in 0..<columns {
            let e = envelope[col * envelope.count / max(1, columns)]
            let px = Self.left + Double(col) * plotWidth / Double(max(1, columns))
            d.move(px, mid - Double(e.max) * Self.waveHeight / 2)
            d.vertical(mid - Double(e.min) * Self.waveHeight / 2)
        }
        s.path(d.d, stroke: "#555")
    }

    /// The dB range of the level plot, and the y of a level.
    var levelRange: (top: Double, bottom: Double) {
        let levels = run.frames.map(\.level).filter(\.isFinite)
        let top = min(0, ((levels.max() ?? -20) / 10).rounded(.up) * 10 + 5)
        let bottom = max(-120, ((levels.min() ?? -90) / 10).rounded(.down) * 10)
        return (top, bottom)
    }

    func y(_ d: Double, _ r: (top: Double, bottom: Double)) -> Double {
        Self.levelTop + Self.levelHeight * (r.top - min(r.top, max(r.bottom, d))) / (r.top - r.bottom)
    }

    func drawLevels(_ s: inout SVG) {
        let r = levelRange
        let c = run.configuration
        s.rect(x: Self.left, y: Self.levelTop, width: plotWidth, height: Self.levelHeight, stroke: "#ccc")
        var tick = (r.bottom / 10).rounded(.up) * 10
        while tick <= r.top {
            s.line(x1: Self.left, y1: y(tick, r), x2: Self.left + plotWidth, y2: y(tick, r), stroke: "#eee")
            s.text("\(Int(tick))", x: Self.left - 6, y: y(tick, r) + 4, anchor: .end, fill: "#666")
            tick += Ticks.step(r.top - r.bottom, target: 6)
        }
        s.text(
            "frame level, dBFS", x: 16, y: Self.levelTop + Self.levelHeight / 2, anchor: .middle, fill: "#444",
            rotate: true)
        let frames = run.frames
        // Thresholds: the level at which the score reaches enter/exit, approximately model + threshold,
        // where the model is the noise floor ⊕ expected echo.
        let model = frames.map { f -> Double in
            f.echo.isFinite ? 10 * log10(pow(10, f.floor / 10) + pow(10, (f.echo + c.echoMargin) / 10)) : f.floor
        }
        polyline(&s, frames.map(\.level), color: "#1f77b4", width: 1)
        polyline(&s, frames.map(\.floor), color: "#7f7f7f", width: 1.6)
        if hasReference { polyline(&s, frames.map(\.echo), color: "#d62728", dash: "2,2") }
        polyline(&s, model.map { $0 + c.enterThreshold }, color: "#ff7f0e", dash: "6,3")
        polyline(&s, model.map { $0 + c.exitThreshold }, color: "#bcbd22", dash: "3,3")
        s.line(
            x1: Self.left, y1: y(c.absoluteThreshold, r), x2: Self.left + plotWidth, y2: y(c.absoluteThreshold, r),
            stroke: "#9467bd", dash: "1,3")
    }

    func polyline(_ s: inout SVG, _ values: [Double], color: String, width: Double = 1.2, dash: String = "") {
        let r = levelRange
        var d = PathData()
        var open = false
        for (i, v) in values.enumerated() {
            guard v.isFinite else { open = false; continue }
            let px = x((Double(i) + 0.5) * run.frameSeconds)
            if open { d.line(px, y(v, r)) } else { d.move(px, y(v, r)) }
            open = true
        }
        s.path(d.d, stroke: color, width: width, dash: dash)
    }

    func drawSegments(_ s: inout SVG) {
        let top = Self.segmentTop
        s.text("labels", x: Self.left - 8, y: top + 16, anchor: .end, fill: "#2e7d32")
        s.text("detected", x: Self.left - 8, y: top + 44, anchor: .end, fill: "#1565c0")
        s.rect(x: Self.left, y: top, width: plotWidth, height: Self.segmentHeight, stroke: "#ccc")
        for seg in labels { bar(&s, seg, y: top + 4, height: 20, fill: "#2e7d32") }
        for seg in detected { bar(&s, seg, y: top + 30, height: 20, fill: "#1565c0") }
    }

    func drawTimeAxis(_ s: inout SVG) {
        let axisY = Self.segmentTop + Self.segmentHeight
        let duration = max(run.duration, 1e-3)
        let step = Ticks.step(duration, target: 12)
        var t = 0.0
        while t <= duration + 1e-9 {
            s.line(x1: x(t), y1: axisY, x2: x(t), y2: axisY + 5, stroke: "#666")
            s.text(Ticks.label(t, step: step), x: x(t), y: axisY + 18, anchor: .middle, fill: "#666")
            t += step
        }
        s.text(
            "time, s (decisions on the streaming timeline)", x: Self.left + plotWidth / 2, y: axisY + 36,
            anchor: .middle, fill: "#444")
    }

    func drawLegend(_ s: inout SVG) {
        var lx = Self.left
        let ly = Self.height - 8
        var entries = [
            ("frame level", "#1f77b4", ""), ("noise floor", "#7f7f7f", ""), ("enter threshold", "#ff7f0e", "6,3"),
            ("exit threshold", "#bcbd22", "3,3"), ("absolute minimum", "#9467bd", "1,3"),
        ]
        if hasReference { entries.append(("expected echo", "#d62728", "2,2")) }
        for (label, color, dash) in entries {
            s.line(x1: lx, y1: ly - 4, x2: lx + 22, y2: ly - 4, stroke: color, width: 2, dash: dash)
            s.text(label, x: lx + 26, y: ly)
            lx += 40 + Double(label.count) * 7
        }
    }
}

/// Axis ticks: "nice" steps and labels with as many decimals as the step needs.
enum Ticks {
    static func step(_ span: Double, target: Int) -> Double {
        let raw = max(span, 1e-9) / Double(max(1, target))
        let mag = pow(10, (log10(raw)).rounded(.down))
        for m in [1.0, 2, 5, 10] where raw <= m * mag { return m * mag }
        return 10 * mag
    }

    static func label(_ v: Double, step: Double) -> String {
        let decimals = max(0, min(6, Int((-log10(step)).rounded(.up))))
        return String(format: "%.\(decimals)f", abs(v) < step * 1e-6 ? 0 : v)
    }
}
