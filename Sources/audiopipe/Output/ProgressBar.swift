import AudioPipelineWorkflows
import Foundation

/// A one-line progress bar on stderr: percentage, × realtime (or items per second) and ETA, redrawn
/// at most 10 times a second, and only when stderr is a terminal and the job has run for half a
/// second (short jobs show nothing). Nothing is drawn on a pipe.
final class ProgressBar {
    private let enabled: Bool
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(enabled: Bool) {
        self.enabled = enabled && Terminal.stderrIsInteractive
    }

    func update(_ p: JobProgress) {
        guard enabled, let total = p.total, total > 0 else { return }
        let now = Date()
        let elapsed = now.timeIntervalSince(start)
        guard elapsed >= 0.5, now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let fraction = min(1, Double(p.done) / Double(total))
        let width = 30
        let filled = Int(fraction * Double(width))
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let speed: String
        switch p.unit {
        case .frames(let rate):
            speed = String(format: "%.0f× realtime", Double(p.done) / Double(rate) / max(elapsed, 1e-9))
        case .items(let label): speed = String(format: "%.0f %@/s", Double(p.done) / max(elapsed, 1e-9), label)
        }
        Terminal.stderr(String(format: "\r[%@] %3.0f%%  %@  ETA %.0f s ", bar, fraction * 100, speed, eta))
        drawn = true
    }

    func finish() {
        if drawn { Terminal.stderr("\r\u{1B}[K") }
        drawn = false
    }
}
