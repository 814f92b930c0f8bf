import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation

/// Where messages go: errors, warnings and progress on stderr; reports on stdout unless stdout
/// carries data. Every write is checked.
enum Terminal {
    static func error(_ message: String) {
        stderr("audiopipe: \(shown(message))\n")
    }

    /// A message as printed (`MessageText.shown`: control characters escaped).
    static func shown(_ message: String) -> String {
        MessageText.shown(message, arguments: Array(CommandLine.arguments.dropFirst()))
    }

    static func stderr(_ text: String) {
        // A failed write to stderr has nowhere to be reported.
        try? write(text, to: STDERR_FILENO)
    }

    static func write(_ text: String, to fd: Int32) throws(AudioPipelineError) {
        try Array(text.utf8).withUnsafeBufferPointer { (b) throws(AudioPipelineError) in
            try FileDescriptorIO.writeAll(fd, UnsafeRawBufferPointer(b), path: fd == STDOUT_FILENO ? "-" : "stderr")
        }
    }

    /// True when stderr is a terminal that can draw a progress bar.
    static var stderrIsInteractive: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }
}
