import ArgumentParser
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe audio files: container, encoding, rate, channels, length, levels, clipping, DC offset.",
        discussion: """
            Levels are in dBFS relative to a full-scale square wave (as sox reports them: a \
            full-scale sine has RMS -3.01 dBFS). A sample is counted as clipped when it is at or \
            beyond full scale (the largest code of an integer encoding, or |x| >= 1 for floats). \
            --json prints an array, one object per file. A bad file is reported and the others are \
            still described; the exit code is that of the first failure.
            """)

    @Argument(help: "Audio files ('-' for standard input).") var files: [String]
    @OptionGroup var raw: RawInputOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let rawFormat = try raw.rawFormat()
        var reports: [InfoReport] = []
        var failed: AudioPipelineError?
        for file in files {
            // One bad file does not stop the others; the exit code reports the first failure.
            let report: InfoReport
            do throws(AudioPipelineError) {
                report = try InfoReport.inspect(path: file, raw: rawFormat, strict: raw.strict)
            } catch {
                Terminal.error(error.message)
                failed = failed ?? error
                continue
            }
            reports.append(report)
            if !output.json { try ReportPrinter(output).print(report, text: report.text) }
        }
        if output.json {
            for w in reports.flatMap(\.warnings) { ReportPrinter(output).note("warning: \(w)") }
            try Terminal.write(try ReportJSON.encode(reports) + "\n", to: STDOUT_FILENO)
        }
        if let failed { throw FailureExit(status: ExitStatus(failed.code)) }
    }
}
