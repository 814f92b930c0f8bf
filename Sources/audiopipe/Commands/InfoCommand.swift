import ArgumentParser
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe audio files: container, encoding, rate, channels, length, levels, clipping, DC offset.",
        discussion: """
            Levels in dBFS as sox reports them (a full-scale sine is -3.01 dB RMS); clipped: at or \
            beyond full scale. --json: an array. A bad file is reported, the others still described.
            """)

    @Argument(help: "Audio files ('-' for standard input).") var files: [String] = []
    @OptionGroup var raw: RawInputOptions
    @OptionGroup var batch: BatchArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        let rawFormat = try raw.rawFormat()
        let collector = BatchJobs.InfoCollector()
        // Listed files print as ever (in order); a directory, a list or a batch option adds a summary.
        let asBatch = batch.optionGiven || files.isEmpty || files.contains(where: BatchSelection.isDirectory)
        try batch.run(
            files, kinds: BatchSelection.audioExtensions, output: nil, ext: nil, digest: "info",
            rawFormat as Any, report: output, summary: asBatch ? .note : .none,
            job: collector.job(raw: rawFormat, strict: raw.strict)
        ) { try print(collector.reports($0)) }
    }

    /// The reports (their warnings were printed as each file finished).
    func print(_ reports: [InfoReport]) throws {
        guard output.json || (!output.quiet && !reports.isEmpty) else { return }
        let text = output.json ? try ReportJSON.encode(reports) : reports.map(\.text).joined(separator: "\n")
        try Terminal.write(text + "\n", to: STDOUT_FILENO)
    }
}
