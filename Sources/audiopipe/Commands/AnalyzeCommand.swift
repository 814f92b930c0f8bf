import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze", abstract: "Measure processing stages on this machine.",
        subcommands: [AnalyzeResampler.self])

    func run() throws { throw UsageError(missingSubcommandOf: Self.self) }
}

struct AnalyzeResampler: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resampler",
        abstract: "Measure a resampler: SNR, passband ripple, alias/image leakage, latency, speed.",
        discussion: """
            Coherent test tones (an exact number of cycles per 16384-frame FFT window), so every \
            other bin is error: SNR (worst of single tones, and five at once), ripple, alias/image \
            leakage, latency, speed (10 s in 20 ms chunks). --json: one object per resampler.
              audiopipe analyze resampler --from 44100 --to 16000 --resampler all --json
            """)

    @Option(parsing: .number, help: "Input rate, Hz.") var from: Int
    @Option(parsing: .number, help: "Output rate, Hz.") var to: Int
    @Option(help: "Resampler, or 'all': \(resamplerNames).") var resampler: String = "all"
    @Flag(help: "Skip the speed measurement.") var noSpeed = false
    @OptionGroup var output: OutputOptions

    func run() throws {
        let choices = try ResamplerChoice.selection(resampler)
        let results = try ResamplerAnalyzer.analyze(
            from: from, to: to, resamplers: choices, measureSpeed: !noSpeed
        ) { (q) throws(AudioPipelineError) in
            if !output.json && !output.quiet { try Terminal.write(q.text + "\n", to: STDOUT_FILENO) }
        }
        if output.json { try Terminal.write(try ReportJSON.encode(results) + "\n", to: STDOUT_FILENO) }
    }
}
