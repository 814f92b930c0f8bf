import Foundation

/// Axis ticks: "nice" steps (1-2-5 series) and labels with as many decimals as the step needs; time
/// axes in steps people count in (… 10 s, 15 s, 30 s, 1 min, 2, 5, 10, 15, 30 min, 1 h …) with
/// m:ss or h:mm:ss labels beyond a minute.
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

    /// Time steps, s: a 1-2-5 series below 10 s, then the clock's divisions.
    static let timeSteps: [Double] = [
        0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
        3600, 7200, 10800, 21600, 43200, 86400,
    ]

    /// The smallest time step that puts at most `target` ticks on `span` seconds.
    static func time(_ span: Double, target: Int) -> Double {
        let raw = max(span, 1e-9) / Double(max(1, target))
        return timeSteps.first { $0 >= raw } ?? step(raw / 86400, target: 1) * 86400
    }

    /// A time tick's label: seconds with the step's decimals on an axis under a minute, else
    /// m:ss (h:mm:ss from an hour).
    static func timeLabel(_ t: Double, step: Double, span: Double) -> String {
        guard span >= 60 else { return label(t, step: step) }
        let total = Int(t.rounded())
        let (h, m, s) = (total / 3600, total % 3600 / 60, total % 60)
        return span >= 3600 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", total / 60, s)
    }
}
