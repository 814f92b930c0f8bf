import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation

/// The one rule for reports: on stdout, or on stderr when the command writes data to stdout (an
/// output given as `-`, `/dev/stdout` or a link to it: `StandardOutput`); JSON with `--json`, the
/// human text otherwise, nothing with `--quiet`.
struct ReportPrinter {
    let options: OutputOptions
    /// Standard error when a data output of the command is standard output, else standard output.
    let fd: Int32

    init(_ options: OutputOptions, dataOutputs: [String?] = []) {
        self.options = options
        fd = StandardOutput.any(dataOutputs) ? STDERR_FILENO : STDOUT_FILENO
    }

    /// The report's warnings as notes, then the report.
    func print(_ report: some WorkflowReport, text: @autoclosure () -> String) throws(AudioPipelineError) {
        for w in report.warnings { note("warning: \(w)") }
        if options.json {
            try Terminal.write(try ReportJSON.encode(report) + "\n", to: fd)
        } else if !options.quiet {
            try Terminal.write(text() + "\n", to: fd)
        }
    }

    /// A note while the job runs (skipped files, warnings): stderr, unless --quiet.
    func note(_ message: String) {
        if !options.quiet { Terminal.stderr("audiopipe: \(Terminal.shown(message))\n") }
    }
}
