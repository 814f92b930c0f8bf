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

    func update(_ p: JobProgress) { update { p.bar(elapsed: $0) } }

    /// Redraws with the line `render` makes from the seconds elapsed (nil: nothing to show yet).
    func update(_ render: (Double) -> String?) {
        guard enabled else { return }
        let now = Date()
        let elapsed = now.timeIntervalSince(start)
        guard elapsed >= 0.5, now.timeIntervalSince(lastDraw) >= 0.1, let line = render(elapsed) else { return }
        lastDraw = now
        Terminal.stderr("\r" + line + " ")
        drawn = true
    }

    func finish() {
        if drawn { Terminal.stderr("\r\u{1B}[K") }
        drawn = false
    }
}
