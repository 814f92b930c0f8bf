import Foundation

/// What every session plot (timeline.svg, sweep.svg, rooms.svg) draws the same way: a legend of
/// swatches and labels (`<g class="legend">`, one `<g class="legend-entry">` each), a value axis
/// with tick labels in its unit (`<g class="y-ticks">`), and a missed barge-in — a user onset the
/// client never answered — as a red ✕ with "missed" (`<g class="missed">`), so a plot never loses
/// it. The classes let a test, or a person reading the SVG, find each part.
enum SessionPlotParts {
    static let missedColor = "#d0021b"

    /// How a legend entry's swatch looks.
    enum Swatch {
        case line(String, dash: String = "")
        case lineAndDot(String)
        case dot(String)
        case bar(String)
        case cross(String)
    }

    /// Entries laid out left to right from `x`, wrapping before `maxX`; returns the y below the last row.
    @discardableResult
    static func legend(
        _ s: inout SVG, _ entries: [(label: String, swatch: Swatch)], x: Double, y: Double, maxX: Double
    ) -> Double {
        s.open(["class": "legend"])
        var cx = x
        var cy = y
        for entry in entries {
            let width = 28 + Double(entry.label.count) * 6.2
            if cx > x && cx + width > maxX {
                cx = x
                cy += 16
            }
            s.open(["class": "legend-entry"])
            swatch(&s, entry.swatch, x: cx, y: cy - 4)
            s.text(entry.label, x: cx + 22, y: cy)
            s.close()
            cx += width + 12
        }
        s.close()
        return cy + 16
    }

    private static func swatch(_ s: inout SVG, _ swatch: Swatch, x: Double, y: Double) {
        switch swatch {
        case .line(let color, let dash):
            s.line(x1: x, y1: y, x2: x + 16, y2: y, stroke: color, width: 2, dash: dash)
        case .lineAndDot(let color):
            s.line(x1: x, y1: y, x2: x + 16, y2: y, stroke: color, width: 2)
            s.circle(x: x + 8, y: y, r: 3, fill: color)
        case .dot(let color):
            s.circle(x: x + 8, y: y, r: 3.5, fill: color)
        case .bar(let color):
            s.rect(x: x, y: y - 5, width: 16, height: 10, fill: color, opacity: "0.6")
        case .cross(let color):
            s.text("✕", x: x + 8, y: y + 4, anchor: .middle, fill: color, bold: true)
        }
    }

    /// Tick labels (with `unit`) and tick marks at `values` on a vertical axis at `x`; `y` maps a
    /// value to its height.
    static func yTicks(
        _ s: inout SVG, _ values: [Double], unit: String, x: Double, y: (Double) -> Double, size: Int? = nil
    ) {
        s.open(["class": "y-ticks"])
        let step = values.count > 1 ? abs(values[1] - values[0]) : 1
        for v in values {
            s.line(x1: x - 4, y1: y(v), x2: x, y2: y(v), stroke: "#999")
            let label = Ticks.label(v, step: step) + (unit.isEmpty ? "" : " " + unit)
            s.text(label, x: x - 6, y: y(v) + 4, anchor: .end, size: size)
        }
        s.close()
    }

    /// A red ✕ and, with `label`, "missed" (with a count when more than one) at `x`, `y`, with a
    /// tooltip. (Many rooms leave the label out: their labels would overlap; the title counts them.)
    static func missed(_ s: inout SVG, count: Int, x: Double, y: Double, title: String, label: Bool = true) {
        s.open(["class": "missed"])
        s.text("✕", x: x, y: y, anchor: .middle, fill: missedColor, bold: true)
        if label {
            s.text(
                count > 1 ? "missed \(count)" : "missed", x: x, y: y - 11, anchor: .middle, fill: missedColor, size: 9)
        }
        s.element("title", [:], text: title)
        s.close()
    }

    /// 0 up to a 1-2-5 ceiling at least `maximum`, in `count` equal steps.
    static func ticks(upTo maximum: Double, count: Int = 4) -> [Double] {
        let step = Ticks.step(max(maximum, 1e-9), target: count)
        let top = (max(maximum, 1e-9) / step).rounded(.up) * step
        return stride(from: 0, through: top + step * 1e-9, by: step).map { $0 }
    }

    /// The unit of a swept parameter, from its name's suffix (`echo_gain_db` → dB); "" when none.
    static func unit(of parameter: String) -> String {
        for (suffix, unit) in [
            ("_dbfs", "dBFS"), ("_db", "dB"), ("_ms", "ms"), ("_hz", "Hz"), ("_pct", "%"), ("_s", "s"),
        ] where parameter.hasSuffix(suffix) {
            return unit
        }
        return ""
    }
}
