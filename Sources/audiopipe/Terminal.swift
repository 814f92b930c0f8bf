import Foundation

/// Where messages go: errors and progress on stderr; results on stdout unless stdout carries audio.
enum Terminal {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("audiopipe: \(message)\n".utf8))
    }

    static func stderr(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// True when stderr is a terminal that can draw a progress bar.
    static var stderrIsInteractive: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }
}

/// A one-line progress bar on stderr: percentage, × realtime and ETA, redrawn at most 10 times a
/// second, and only when stderr is a terminal and the job has run for half a second (short jobs
/// show nothing). Nothing is drawn on a pipe.
final class ProgressBar {
    private let total: Int
    private let sampleRate: Int
    /// Counting things (settings, files) instead of audio frames: shows "N/s LABEL".
    private var label: String?
    private let enabled: Bool
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(totalFrames: Int?, sampleRate: Int, enabled: Bool) {
        self.total = totalFrames ?? 0
        self.sampleRate = sampleRate
        self.enabled = enabled && (totalFrames ?? 0) > 0 && Terminal.stderrIsInteractive
    }

    convenience init(total: Int, label: String) {
        self.init(totalFrames: total, sampleRate: 1, enabled: true)
        self.label = label
    }

    func update(_ done: Int) {
        guard enabled else { return }
        let now = Date()
        let elapsed = now.timeIntervalSince(start)
        guard elapsed >= 0.5, now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let fraction = min(1, Double(done) / Double(total))
        let width = 30
        let filled = Int(fraction * Double(width))
        let realtime = Double(done) / Double(sampleRate) / max(elapsed, 1e-9)
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let speed = label.map { String(format: "%.0f %@/s", realtime, $0) } ?? String(format: "%.0f× realtime", realtime)
        Terminal.stderr(String(format: "\r[%@] %3.0f%%  %@  ETA %.0f s ", bar, fraction * 100, speed, eta))
        drawn = true
    }

    func finish() {
        if drawn { Terminal.stderr("\r\u{1B}[K") }
    }
}
