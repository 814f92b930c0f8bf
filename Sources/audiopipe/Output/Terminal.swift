import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation

/// Where messages go: errors, warnings and progress on stderr; reports on stdout unless stdout
/// carries data. Every write is checked.
enum Terminal {
    static func error(_ message: String) {
        stderr("audiopipe: \(shown(message))\n")
    }

    /// A message as printed: control characters (a file name's escape sequence or carriage return)
    /// escaped, and the command line's own arguments that hold a newline or tab escaped wherever they
    /// appear, so a file named `a<newline>b.wav` cannot split an error into two lines. A message's
    /// own line breaks (label help, usage) stay.
    static func shown(_ message: String, arguments: [String] = CommandLine.arguments) -> String {
        func escaped<S: StringProtocol>(_ text: S, keepingLines: Bool) -> String {
            var out = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\n" where keepingLines, "\t" where keepingLines: out.unicodeScalars.append(scalar)
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                case "\r": out += "\\r"
                case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
        var text = escaped(message, keepingLines: true)
        for argument in arguments.dropFirst() where argument.contains(where: { $0 == "\n" || $0 == "\t" }) {
            text = text.replacingOccurrences(
                of: escaped(argument, keepingLines: true), with: escaped(argument, keepingLines: false))
        }
        return text
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
