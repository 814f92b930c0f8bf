import Foundation

/// The rooms at a glance (`rooms.svg`): per room, barge-in latency p90 against the echo gain (a
/// room with a missed barge-in drawn as a red cross on the top line, never dropped) and false
/// barge-ins per minute against the echo delay; axes with their values, a legend.
enum SessionRoomsPlot {
    static func svg(_ r: SessionRoomsReport) -> String {
        let width = 980.0, height = 400.0, left = 70.0, top = 56.0
        let panelWidth = (width - left - 120) / 2, plotHeight = height - top - 70
        var s = SVG(width: width, height: height, fontSize: 11)
        let s0 = r.summary
        let p90 = s0.latencyMsP90.map { String(format: "%.0f ms", $0) } ?? "n/a"
        let perMinute = s0.falseBargeInsPerMinute.map { String(format: "%.2f", $0) } ?? "n/a"
        s.text(
            "\(s0.rooms) rooms (seed \(r.seed)): latency p90 \(p90), missed \(s0.missed) of \(s0.userOnsets), "
                + "false barge-ins \(perMinute) per min", x: left, y: 20, bold: true)
        SessionPlotParts.legend(
            &s,
            [
                ("a room's latency p90", .dot("#2e7d32")),
                ("a room with false barge-ins", .dot("#d0021b")),
                ("a room with a missed barge-in (on the top line)", .cross(SessionPlotParts.missedColor)),
                ("target 300 ms", .line("#f5a623", dash: "4 3")),
            ], x: left, y: 42, maxX: width - 10)
        let ran = r.rooms.filter { $0.error == nil }
        func value(_ room: SessionRoomsReport.Room, _ name: String) -> Double? {
            room.parameters.first { $0.name == name }?.value
        }
        let panels: [(x: String, y: String, unit: String, value: (SessionRoomsReport.Room) -> Double?)] = [
            ("echo_gain_db", "latency p90, ms", "ms", { $0.headline.latencyMsP90 }),
            ("echo_delay_ms", "false barge-ins per min", "/min", { $0.headline.falseBargeInsPerMinute ?? 0 }),
        ]
        for (p, panel) in panels.enumerated() {
            let x0 = left + Double(p) * (panelWidth + 90)
            let xs = ran.compactMap { value($0, panel.x) }
            let low = xs.min() ?? 0, high = max(xs.max() ?? 1, (xs.min() ?? 0) + 1e-9)
            let ys = ran.compactMap(panel.value)
            let ticks = SessionPlotParts.ticks(upTo: niceCeiling(max(ys.max() ?? 1, p == 0 ? 300 : 1)))
            let ceiling = ticks.last ?? 1
            s.rect(x: x0, y: top, width: panelWidth, height: plotHeight, stroke: "#999")
            s.text(panel.y, x: x0 - 52, y: top + plotHeight / 2, anchor: .middle, rotate: true)
            s.text(panel.x, x: x0 + panelWidth / 2, y: top + plotHeight + 40, anchor: .middle)
            SessionPlotParts.yTicks(
                &s, ticks, unit: panel.unit, x: x0,
                y: { top + plotHeight * (1 - $0 / ceiling) })
            s.open(["class": "x-ticks"])
            for k in 0...4 {
                let xv = low + (high - low) * Double(k) / 4
                let x = x0 + panelWidth * Double(k) / 4
                s.line(x1: x, y1: top + plotHeight, x2: x, y2: top + plotHeight + 4, stroke: "#999")
                let label = NumberText.plain((xv * 10).rounded() / 10) + " " + SessionPlotParts.unit(of: panel.x)
                s.text(label, x: x, y: top + plotHeight + 16, anchor: .middle)
            }
            s.close()
            if p == 0 {
                // The target line: 300 ms.
                let y = top + plotHeight * (1 - 300 / ceiling)
                s.line(x1: x0, y1: y, x2: x0 + panelWidth, y2: y, stroke: "#f5a623", dash: "4 3")
                s.text("300 ms", x: x0 + panelWidth - 4, y: y - 4, anchor: .end, fill: "#f5a623")
            }
            for room in ran {
                guard let xv = value(room, panel.x) else { continue }
                let x = x0 + panelWidth * (xv - low) / (high - low)
                if p == 0 && room.headline.missedBargeIns > 0 {
                    SessionPlotParts.missed(
                        &s, count: room.headline.missedBargeIns, x: x, y: top + 14,
                        title: "room \(room.index): \(room.headline.missedBargeIns) of \(room.headline.bargeIns) "
                            + "user onsets missed", label: false)
                    continue
                }
                guard let v = panel.value(room) else { continue }
                let y = top + plotHeight * (1 - min(v, ceiling) / ceiling)
                s.circle(x: x, y: y, r: 3, fill: v > 0 && p == 1 ? "#d0021b" : "#2e7d32", opacity: "0.7")
            }
        }
        return s.document
    }

    /// 1, 2 or 5 times a power of ten, at least `v`.
    static func niceCeiling(_ v: Double) -> Double {
        guard v > 0 else { return 1 }
        let p = pow(10, (log10(v)).rounded(.down))
        for m in [1.0, 2, 5, 10] where m * p >= v { return m * p }
        return 10 * p
    }
}
