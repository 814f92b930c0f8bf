import AudioPipelineCore
import Foundation

/// One file of a VAD report as SVG, showing what the detector uses, on one time axis: the waveform;
/// the frame level with the absolute minimum and the talker gate; the score with the enter and exit
/// thresholds and the averaged exit score; per band the level, its noise floor (and expected echo)
/// and the level the enter threshold asks for; labelled and detected segments. Without the run's
/// per-frame details (`VADRun.details`) the score and band panels are left out.
///
/// Any duration reads the same: traces over more frames than pixel columns are drawn per column
/// (a level's range, a floor's mean), and time ticks are 1-2-5 steps of seconds, or of minutes as
/// m:ss beyond a minute (`Ticks.time`).
public struct VADFilePlot {
    /// The file's name, in the title.
    public var name: String
    /// Waveform min/max per column, scaled to ±1 (`VADCorpus.Item.envelope`).
    public var envelope: [(min: Float, max: Float)]
    /// The detector's run over the file.
    public var run: VADRun
    /// The labelled speech.
    public var labels: [SpeechSegment]
    /// The detected speech.
    public var detected: [SpeechSegment]
    /// The file's scores.
    public var metrics: VADScoring.Metrics
    /// The run had a far-end reference (the expected echo is drawn).
    public var hasReference: Bool

    /// A plot of one file's run.
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

    /// A plot area and its dB range.
    struct Panel {
        var top: Double, height: Double
        var range: (top: Double, bottom: Double)
        func y(_ v: Double) -> Double {
            top + height * (range.top - min(range.top, max(range.bottom, v))) / (range.top - range.bottom)
        }
    }

    // Layout.
    static let width = 1200.0, left = 70.0, right = 20.0
    static let waveTop = 50.0, waveHeight = 90.0
    /// Each panel's title sits in the gap above it.
    static let levelTop = waveTop + waveHeight + 22, levelHeight = 120.0
    static let scoreTop = levelTop + levelHeight + 22, scoreHeight = 120.0
    static let bandTop = scoreTop + scoreHeight + 22, bandHeight = 80.0, bandGap = 22.0
    var hasDetails: Bool { !run.details.isEmpty && run.details.count == run.frames.count }
    /// The bands the details hold: four, or eight with a reference.
    var bandCount: Int { run.details.first?.bandCount ?? 4 }
    var segmentTop: Double {
        hasDetails
            ? Self.bandTop + Double(bandCount) * (Self.bandHeight + Self.bandGap) - 6
            : Self.levelTop + Self.levelHeight + 16
    }
    static let segmentHeight = 54.0
    /// The document's height, px.
    public var height: Double { segmentTop + Self.segmentHeight + 82 }
    var plotWidth: Double { Self.width - Self.left - Self.right }

    /// The plot as an SVG document.
    public var svg: String {
        var s = SVG(width: Self.width, height: height)
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
        // Labelled speech shaded behind the wave and every panel.
        for seg in labels {
            bar(&s, seg, y: Self.waveTop, height: segmentTop - Self.waveTop - 8, fill: "#2e7d32", opacity: "0.08")
        }
        drawLevel(&s)
        if hasDetails {
            drawScore(&s)
            for b in 0..<bandCount { drawBand(&s, b) }
        }
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
            opacity: opacity, title: String(format: "%.2f–%.2f s", seg.start, seg.end))
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

    /// A dB range that holds `values` (finite ones), in steps of 10 dB, within `limits`.
    static func range(_ values: [Double], limits: ClosedRange<Double>, pad: Double = 3) -> (top: Double, bottom: Double)
    {
        let finite = values.filter(\.isFinite)
        let hi = ((finite.max() ?? limits.upperBound) + pad) / 10, lo = ((finite.min() ?? limits.lowerBound) - pad) / 10
        let top = min(limits.upperBound, hi.rounded(.up) * 10), bottom = max(limits.lowerBound, lo.rounded(.down) * 10)
        return top > bottom ? (top, bottom) : (bottom + 10, bottom)
    }

    /// A panel's frame, dB grid and title.
    func frame(_ s: inout SVG, _ p: Panel, title: String, ticks: Int) {
        s.rect(x: Self.left, y: p.top, width: plotWidth, height: p.height, stroke: "#ccc")
        let step = Ticks.step(p.range.top - p.range.bottom, target: ticks)
        var tick = (p.range.bottom / step).rounded(.up) * step
        while tick <= p.range.top + 1e-9 {
            s.line(x1: Self.left, y1: p.y(tick), x2: Self.left + plotWidth, y2: p.y(tick), stroke: "#eee")
            s.text(Ticks.label(tick, step: step), x: Self.left - 6, y: p.y(tick) + 4, anchor: .end, fill: "#666")
            tick += step
        }
        s.text(title, x: Self.left, y: p.top - 6, fill: "#333", bold: true)
    }

    func drawLevel(_ s: inout SVG) {
        let c = run.configuration
        let level = run.frames.map(\.level)
        let gate = hasDetails && c.talkerGate > 0 ? run.details.map { $0.loudest - c.talkerGate } : []
        let p = Panel(
            top: Self.levelTop, height: Self.levelHeight,
            range: Self.range(level + [c.absoluteThreshold], limits: -140...0))
        frame(&s, p, title: "frame level, dBFS", ticks: 4)
        trace(&s, level, p, color: "#1f77b4", envelope: true)
        s.line(
            x1: Self.left, y1: p.y(c.absoluteThreshold), x2: Self.left + plotWidth, y2: p.y(c.absoluteThreshold),
            stroke: "#9467bd", dash: "1,3")
        if !gate.isEmpty { trace(&s, gate, p, color: "#8c564b", dash: "5,3") }
    }

    func drawScore(_ s: inout SVG) {
        let c = run.configuration
        let score = run.frames.map(\.score), exit = run.details.map(\.exitScore)
        let p = Panel(
            top: Self.scoreTop, height: Self.scoreHeight,
            range: Self.range(score + [c.enterThreshold + 5, c.exitThreshold - 5], limits: -40...120))
        frame(&s, p, title: "score, dB over noise floor ⊕ echo (mean of the two largest band excesses)", ticks: 4)
        trace(&s, exit, p, color: "#2ca02c")
        trace(&s, score, p, color: "#1f77b4", envelope: true)
        var lines = [(c.enterThreshold, "#ff7f0e", "6,3"), (c.exitThreshold, "#bcbd22", "3,3")]
        if heldExcessStarts { lines.append((c.sustainedEnterThreshold, "#e377c2", "2,4")) }
        for (v, color, dash) in lines {
            s.line(
                x1: Self.left, y1: p.y(v), x2: Self.left + plotWidth, y2: p.y(v), stroke: color, width: 1.4, dash: dash)
        }
    }

    func drawBand(_ s: inout SVG, _ b: Int) {
        let c = run.configuration
        let level = run.details.map { $0.bands[b] }, floor = run.details.map { $0.floors[b] }
        let echo = run.details.map { $0.echoes[b] }
        let enter = run.details.map { $0.bands[b] - $0.excess[b] + c.enterThreshold }
        let p = Panel(
            top: Self.bandTop + Double(b) * (Self.bandHeight + Self.bandGap), height: Self.bandHeight,
            range: Self.range(level + floor, limits: -140...0))
        frame(&s, p, title: VADDecider.Detail.bandNames(count: bandCount)[b] + ", dB", ticks: 3)
        trace(&s, level, p, color: "#1f77b4", envelope: true)
        trace(&s, floor, p, color: "#7f7f7f", width: 1.6)
        if hasReference { trace(&s, echo, p, color: "#d62728", dash: "2,2") }
        trace(&s, enter, p, color: "#ff7f0e", dash: "6,3")
    }

    /// One value per frame (at the frame's centre) as a line; when the frames outnumber the pixel
    /// columns, per column: the range of the values (`envelope`) or their mean.
    func trace(
        _ s: inout SVG, _ values: [Double], _ p: Panel, color: String, width: Double = 1.2, dash: String = "",
        envelope: Bool = false
    ) {
        var d = PathData()
        var open = false
        let n = values.count, columns = Int(plotWidth)
        if n <= 2 * columns {
            for (i, v) in values.enumerated() {
                guard v.isFinite else { open = false; continue }
                let px = x((Double(i) + 0.5) * run.frameSeconds)
                if open { d.line(px, p.y(v)) } else { d.move(px, p.y(v)) }
                open = true
            }
        } else {
            for col in 0..<columns {
                let a = col * n / columns, b = max(a + 1, (col + 1) * n / columns)
                var lo = Double.infinity, hi = -Double.infinity, sum = 0.0, count = 0
                for v in values[a..<b] where v.isFinite { lo = min(lo, v); hi = max(hi, v); sum += v; count += 1 }
                guard count > 0 else { open = false; continue }
                let px = x(Double(a + b) / 2 * run.frameSeconds)
                if envelope {
                    d.move(px, p.y(hi))
                    d.vertical(max(p.y(lo), p.y(hi) + 1))
                } else {
                    if open { d.line(px, p.y(sum / Double(count))) } else { d.move(px, p.y(sum / Double(count))) }
                    open = true
                }
            }
        }
        s.path(d.d, stroke: color, width: width, dash: dash)
    }

    func drawSegments(_ s: inout SVG) {
        let top = segmentTop
        s.text("labels", x: Self.left - 8, y: top + 16, anchor: .end, fill: "#2e7d32")
        s.text("detected", x: Self.left - 8, y: top + 44, anchor: .end, fill: "#1565c0")
        s.rect(x: Self.left, y: top, width: plotWidth, height: Self.segmentHeight, stroke: "#ccc")
        for seg in labels { bar(&s, seg, y: top + 4, height: 20, fill: "#2e7d32") }
        for seg in detected { bar(&s, seg, y: top + 30, height: 20, fill: "#1565c0") }
    }

    func drawTimeAxis(_ s: inout SVG) {
        let axisY = segmentTop + Self.segmentHeight
        let duration = max(run.duration, 1e-3)
        let step = Ticks.time(duration, target: 12)
        var k = 0.0
        while k * step <= duration + 1e-9 {
            let t = k * step
            s.line(x1: x(t), y1: axisY, x2: x(t), y2: axisY + 5, stroke: "#666")
            s.text(
                Ticks.timeLabel(t, step: step, span: duration), x: x(t), y: axisY + 18, anchor: .middle, fill: "#666")
            k += 1
        }
        let unit = duration >= 3600 ? "h:mm:ss" : duration >= 60 ? "m:ss" : "s"
        s.text(
            "time, \(unit) (decisions on the streaming timeline)", x: Self.left + plotWidth / 2, y: axisY + 36,
            anchor: .middle, fill: "#444")
    }

    /// Whether speech may also start by the held excess (`sustained_enter_db`: without a reference).
    var heldExcessStarts: Bool { !hasReference && run.configuration.sustainedEnterThreshold > 0 }

    func drawLegend(_ s: inout SVG) {
        var entries = [(hasDetails ? "level, score" : "level", "#1f77b4", ""), ("absolute minimum", "#9467bd", "1,3")]
        if hasDetails {
            if run.configuration.talkerGate > 0 { entries.append(("talker gate", "#8c564b", "5,3")) }
            entries += [
                ("enter threshold", "#ff7f0e", "6,3"), ("exit threshold", "#bcbd22", "3,3"),
            ]
            if heldExcessStarts { entries.append(("held-excess start (vs the exit score)", "#e377c2", "2,4")) }
            entries += [
                ("exit score (averaged, less the noise's)", "#2ca02c", ""), ("noise floor", "#7f7f7f", ""),
            ]
            if hasReference { entries.append(("expected echo", "#d62728", "2,2")) }
        }
        var lx = Self.left, ly = height - 26
        for (label, color, dash) in entries {
            let w = 40 + Double(label.count) * 6.5
            if lx + w > Self.width { (lx, ly) = (Self.left, ly + 16) }
            s.line(x1: lx, y1: ly - 4, x2: lx + 22, y2: ly - 4, stroke: color, width: 2, dash: dash)
            s.text(label, x: lx + 26, y: ly)
            lx += w
        }
    }
}
