import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure processing stages on this machine.",
        subcommands: [AnalyzeResampler.self])

    func run() throws { throw ValidationError("choose a subcommand: analyze resampler") }
}

struct AnalyzeResampler: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resampler",
        abstract: "Measure a resampler: SNR, passband ripple, alias/image leakage, latency, speed.",
        discussion: """
            Test tones are coherent (an exact number of cycles in a 16384-frame FFT window of the \
            output, after the start-up transient), so every FFT bin other than a tone's is error. \
            SNR: single -1 dBFS tones from 0.005 to 0.40 x the lower rate (worst reported) and five \
            tones at once. Ripple: max - min gain over those tones. Leakage: full-scale tones between \
            the two Nyquist frequencies (downsampling) or the images of in-band tones (upsampling), \
            as output power relative to a full-scale sine. Speed: 10 s fed in 20 ms chunks. --json \
            prints an array, one object per resampler.

            Examples:
              audiopipe analyze resampler --from 48000 --to 16000
              audiopipe analyze resampler --from 44100 --to 16000 --resampler all --json
            """)

    @Option(help: "Input rate, Hz.") var from: Int
    @Option(help: "Output rate, Hz.") var to: Int
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
