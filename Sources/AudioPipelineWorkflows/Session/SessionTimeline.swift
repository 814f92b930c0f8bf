import AudioPipelineCore
import Foundation

/// The session on one time axis (timeline.svg) and the page around it (report.html): lanes for the
/// user's labelled speech, the agent's playout (and loudspeaker level), the echo at the microphone,
/// the VAD's score with its thresholds and decision, the jitter buffer's depth, and every barge-in
/// (green: answered a user onset; red: false) and user onset (dashed) across all lanes, a missed
/// barge-in (an onset never answered) as a red ✕ over its onset; each level lane with its scale's
/// values in its unit, and a legend of every colour under the time axis. Long
/// sessions are drawn per pixel column (the column's extreme), so nothing short disappears; the
/// ticks are not kept, only what is drawn of them (`SessionTimelineTrace`).
struct SessionTimeline {
    let report: SessionReport
    let trace: SessionTimelineTrace
    let user: [SpeechSegment]
    let configuration: SessionConfiguration

    static let width = 1200.0
    static let left = 160.0
    static let right = 20.0
    static let laneHeight = 70.0
    static let lanes = ["user speech", "agent playout", "echo / mic dBFS", "VAD score dB", "buffer ms"]

    var svg: String {
        let duration = max(report.durationS, 0.01)
        let plotW = Self.width - Self.left - Self.right
        let height = 30 + Double(Self.lanes.count) * Self.laneHeight + 40 + 44
        var s = SVG(width: Self.width, height: height, fontSize: 11)
        func x(_ t: Double) -> Double { Self.left + plotW * min(max(t, 0), duration) / duration }
        func top(_ lane: Int) -> Double { 30 + Double(lane) * Self.laneHeight }
        s.text(
            "\(report.mode) session, \(report.profile): \(report.bargeIns.count) user onsets in agent playout, "
                + "\(report.missedBargeIns) missed, \(report.falseBargeIns) false barge-ins", x: Self.left, y: 18,
            bold: true)
        for (k, name) in Self.lanes.enumerated() {
            s.open(["class": "lane", "data-lane": name])
            s.rect(x: Self.left, y: top(k) + 4, width: plotW, height: Self.laneHeight - 8, fill: "#f7f7f7")
            s.text(name, x: 8, y: top(k) + Self.laneHeight / 2 + 4)
            drawLane(&s, k, top: top(k), x: x)
            if let scale = scale(k) {
                SessionPlotParts.yTicks(
                    &s, scale.ticks, unit: scale.unit, x: Self.left, y: { laneY($0, scale.range, top(k)) }, size: 9)
            }
            s.close()
        }
        let bottom = top(Self.lanes.count)
        for b in report.bargeIns {
            s.line(x1: x(b.userOnsetS), y1: top(0), x2: x(b.userOnsetS), y2: bottom, stroke: "#4a90d9", dash: "3,3")
        }
        for i in report.interrupts {
            s.line(
                x1: x(i.timeS), y1: top(0), x2: x(i.timeS), y2: bottom, stroke: i.falseBargeIn ? "#d0021b" : "#2e7d32",
                width: 2)
            s.element("title", [:], text: String(format: "barge-in at %.2f s", i.timeS))
        }
        for b in report.bargeIns where b.detectedS == nil {
            SessionPlotParts.missed(
                &s, count: 1, x: x(b.userOnsetS), y: top(0) + 16,
                title: String(format: "missed barge-in: the user's onset at %.2f s was never answered", b.userOnsetS))
        }
        drawAxis(&s, y: bottom, x: x, duration: duration)
        SessionPlotParts.legend(&s, Self.legendEntries, x: Self.left, y: bottom + 52, maxX: Self.width - Self.right)
        return s.document
    }

    /// Every colour of the timeline, in lane order, then the markers across lanes.
    static let legendEntries: [(label: String, swatch: SessionPlotParts.Swatch)] = [
        ("user speech (labels)", .bar("#4a90d9")), ("agent playout", .bar("#f5a623")),
        ("loudspeaker level", .line("#8a5a00")), ("microphone level", .line("#999")),
        ("echo at the microphone", .line("#d0021b")), ("VAD speech", .bar("#7ed321")),
        ("VAD score", .line("#417505")), ("enter threshold", .line("#417505", dash: "4,3")),
        ("exit threshold", .line("#417505", dash: "1,3")), ("jitter buffer depth", .line("#9013fe")),
        ("user onset", .line("#4a90d9", dash: "3,3")), ("barge-in", .line("#2e7d32")),
        ("false barge-in", .line("#d0021b")), ("missed barge-in", .cross(SessionPlotParts.missedColor)),
    ]

    /// The value scale of lane `k` (nil: the user-speech lane, which has none): its range, the
    /// values labelled and their unit.
    private func scale(_ k: Int) -> (range: ClosedRange<Double>, ticks: [Double], unit: String)? {
        switch k {
        // Labels clear of the lane's edges, where they would meet the next lane's.
        case 1: return (-80...0, [-60, -20], "dBFS")
        case 2: return (-90...0, [-60, -20], "dBFS")
        case 3: return (-10...40, [0, 20], "dB")
        case 4:
            let ticks = SessionPlotParts.ticks(upTo: max(100, trace.maxBufferMs), count: 2)
            return (0...(ticks.last ?? 100), ticks, "ms")
        default: return nil
        }
    }

    /// The height of `v` in a lane whose scale is `range`.
    private func laneY(_ v: Double, _ range: ClosedRange<Double>, _ lane: Double) -> Double {
        let f =
            (min(max(v, range.lowerBound), range.upperBound) - range.lowerBound) / (range.upperBound - range.lowerBound)
        return lane + 4 + (Self.laneHeight - 8) * (1 - f)
    }

    /// The data of lane `k` (in the order of `lanes`).
    private func drawLane(_ s: inout SVG, _ k: Int, top: Double, x: (Double) -> Double) {
        switch k {
        case 0:
            for seg in user {
                s.rect(
                    x: x(seg.start), y: top + 14, width: max(1, x(seg.end) - x(seg.start)),
                    height: Self.laneHeight - 28, fill: "#4a90d9",
                    title: String(format: "user %.2f–%.2f s", seg.start, seg.end))
            }
        case 1:
            drawRuns(&s, trace.playing.runs, lane: top, x: x, color: "#f5a623")
            drawLevel(&s, .heard, lane: top, x: x, range: scale(1)!.range, color: "#8a5a00")
        case 2:
            drawLevel(&s, .mic, lane: top, x: x, range: scale(2)!.range, color: "#999")
            drawLevel(&s, .echo, lane: top, x: x, range: scale(2)!.range, color: "#d0021b")
        case 3:
            drawRuns(&s, trace.speech.runs, lane: top, x: x, color: "#7ed321", band: 0.25)
            drawLevel(&s, .vadScore, lane: top, x: x, range: scale(3)!.range, color: "#417505")
            for (v, dash) in [(configuration.vad.enterThreshold, "4,3"), (configuration.vad.exitThreshold, "1,3")] {
                let y = laneY(v, scale(3)!.range, top)
                s.line(x1: Self.left, y1: y, x2: Self.width - Self.right, y2: y, stroke: "#417505", dash: dash)
            }
        default:
            drawLevel(&s, .buffer, lane: top, x: x, range: scale(4)!.range, color: "#9013fe")
        }
    }

    /// Bars over `runs`, at least a pixel wide.
    private func drawRuns(
        _ s: inout SVG, _ runs: [SessionTimelineTrace.Run], lane: Double, x: (Double) -> Double, color: String,
        band: Double = 0.2
    ) {
        for r in runs {
            s.rect(
                x: x(r.start), y: lane + Self.laneHeight * band, width: max(1, x(r.end) - x(r.start)),
                height: Self.laneHeight * (1 - 2 * band), fill: color, opacity: "0.6")
        }
    }

    /// A line of a level through the maximum of each pixel column (`SessionTimelineTrace`'s
    /// buckets by their time: every tick while the session has at most its capacity).
    private func drawLevel(
        _ s: inout SVG, _ level: SessionTimelineTrace.Level, lane: Double, x: (Double) -> Double,
        range: ClosedRange<Double>, color: String
    ) {
        var d = PathData()
        var column = -1.0
        var peak = -Double.infinity
        func y(_ v: Double) -> Double { laneY(v, range, lane) }
        var started = false
        for b in 0..<trace.buckets {
            let c = x(trace.timeS(b)).rounded(.down)
            if c != column, column >= 0 {
                if started {
                    d.line(column, y(peak))
                } else {
                    d.move(column, y(peak))
                    started = true
                }
                peak = -Double.infinity
            }
            column = c
            peak = max(peak, trace.peak(level, b))
        }
        if column >= 0 {
            if started { d.line(column, y(peak)) } else { d.move(column, y(peak)) }
        }
        s.path(d.d, stroke: color, width: 1)
    }

    /// Time ticks (`Ticks.time`, as the VAD plots: about ten, in steps people count in; m:ss or
    /// h:mm:ss labels beyond a minute).
    private func drawAxis(_ s: inout SVG, y: Double, x: (Double) -> Double, duration: Double) {
        let step = Ticks.time(duration, target: 10)
        var t = 0.0
        s.open(["class": "x-ticks"])
        while t <= duration + 1e-9 {
            s.line(x1: x(t), y1: y, x2: x(t), y2: y + 5, stroke: "#333")
            s.text(Ticks.timeLabel(t, step: step, span: duration), x: x(t), y: y + 18, anchor: .middle)
            t += step
        }
        s.close()
        let unit = duration >= 3600 ? "h:mm:ss" : duration >= 60 ? "m:ss" : "s"
        s.text("time, \(unit)", x: Self.width - Self.right, y: y + 32, anchor: .end)
    }

    /// report.html: the headline figures, the timeline, the barge-ins, the settings.
    var page: String {
        func ms(_ v: Double?) -> String { v.map { String(format: "%.0f ms", $0) } ?? "–" }
        var h = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Session simulation</title>
            <style>body{font-family:sans-serif;margin:24px;max-width:1260px}table{border-collapse:collapse}
            td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#eee}
            .false{color:#d0021b}.missed{color:#d0021b}</style></head><body>
            <h1>Session simulation</h1>

            """
        let r = report
        h +=
            "<p id=\"headline\">\(r.mode) session, \(SVG.escape(r.profile)), \(String(format: "%.1f", r.durationS)) s: "
        h += "<b>\(r.bargeIns.count)</b> user onsets during agent playout, <b>\(r.missedBargeIns)</b> missed; "
        h += "barge-in latency p50 <b>\(ms(r.latencyMsP50))</b>, p90 <b>\(ms(r.latencyMsP90))</b>; "
        h += "talk-over p50 \(ms(r.talkOverMsP50)); <b>\(r.falseBargeIns)</b> false barge-ins in "
        h += String(format: "%.2f min of agent-only playout.</p>\n", r.agentOnlyMinutes)
        h += "<div id=\"timeline\">\n" + svg + "</div>\n"
        h += "<h2>User onsets during agent playout</h2>\n<table id=\"bargeins\"><tr><th>onset s</th>"
        h += "<th>detected s</th><th>latency</th><th>talk-over</th><th>response</th></tr>\n"
        for b in r.bargeIns {
            let missed = b.detectedS == nil
            h += "<tr\(missed ? " class=\"missed\"" : "")><td>\(String(format: "%.2f", b.userOnsetS))</td>"
            h += "<td>\(b.detectedS.map { String(format: "%.2f", $0) } ?? "missed")</td><td>\(ms(b.latencyMs))</td>"
            h += "<td>\(ms(b.talkOverMs))</td><td>\(b.response)</td></tr>\n"
        }
        h += "</table>\n<h2>Barge-ins the client made</h2>\n<table id=\"interrupts\"><tr><th>time s</th>"
        h += "<th>response</th><th>verdict</th></tr>\n"
        for i in r.interrupts {
            h += "<tr\(i.falseBargeIn ? " class=\"false\"" : "")><td>\(String(format: "%.2f", i.timeS))</td>"
            h += "<td>\(i.response)</td><td>\(i.falseBargeIn ? "false (no user speech)" : "user speech")</td></tr>\n"
        }
        h += "</table>\n"
        if !r.warnings.isEmpty {
            h += "<h2>Warnings</h2><ul>" + r.warnings.map { "<li>\(SVG.escape($0))</li>" }.joined() + "</ul>\n"
        }
        h += "<p>Files: heard.wav, mic.wav, vad-mic.wav, vad-reference.wav, sent.jsonl, events.jsonl, "
        h += "report.json, timeline.svg.</p>\n"
        // Marks the page with the lanes the browser laid out (width > 0), which a test reads back.
        h += "<script>window.addEventListener('load',()=>{const n=[...document.querySelectorAll('#timeline g.lane')]"
        h += ".filter(g=>g.getBBox().width>100).length;document.body.setAttribute('data-lanes-rendered',n);});"
        h += "</script></body></html>\n"
        return h
    }
}
