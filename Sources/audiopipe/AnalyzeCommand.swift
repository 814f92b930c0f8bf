import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure processing stages on this machine.",
        subcommands: [AnalyzeResampler.self])
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
            as output power relative to a full-scale sine. Speed: 10 s fed in 20 ms chunks.

            Examples:
              audiopipe analyze resampler --from 48000 --to 16000
              audiopipe analyze resampler --from 44100 --to 16000 --resampler all --json
            """)

    @Option(help: "Input rate, Hz.") var from: Int
    @Option(help: "Output rate, Hz.") var to: Int
    @Option(help: "Resampler, or 'all': \(ResamplerChoice.allCases.map(\.rawValue).joined(separator: ", ")).")
    var resampler: String = "all"
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Skip the speed measurement.") var noSpeed = false

    func run() throws {
        let choices: [ResamplerChoice]
        if resampler == "all" {
            choices = ResamplerChoice.allCases
        } else if let c = ResamplerChoice(rawValue: resampler) {
            choices = [c]
        } else {
            throw ValidationError("unknown resampler '\(resampler)'; choose one of \(ResamplerChoice.allCases.map(\.rawValue).joined(separator: ", ")) or all")
        }
        let format: ResamplingFormat
        do {
            format = try ResamplingFormat(from: SampleRate(from), to: SampleRate(to))
        } catch {
            throw AudioPipelineError(.invalidConfiguration, "--from/--to: \(error.message)")
        }
        guard from != to else { throw ValidationError("--from and --to are equal: nothing to resample") }
        var results: [ResamplerQuality] = []
        for choice in choices {
            let q = try ResamplerAnalyzer.analyze({ () throws(AudioPipelineError) in try choice.make(format) }, measureSpeed: !noSpeed)
            results.append(q)
            if !json { print(Self.text(q)) }
        }
        if json {
            let e = JSONEncoder()
            e.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try e.encode(results), as: UTF8.self))
        }
    }

    static func text(_ q: ResamplerQuality) -> String {
        var s = String(format: "%@  %d Hz -> %d Hz\n", q.resampler, q.fromHz, q.toHz)
        s += String(format: "  SNR (worst tone <= 0.40 x lower rate)  %7.1f dB\n", q.worstToneSNRdB)
        s += String(format: "  SNR (five tones)                       %7.1f dB\n", q.multiToneSNRdB)
        s += String(format: "  passband ripple                        %7.4f dB\n", q.passbandRippleDB)
        s += String(format: "  leakage (worst)                        %7.1f dBFS\n", q.worstLeakageDBFS)
        s += String(format: "  latency                                %7.2f ms (%d frames)\n", q.latencyMs, q.latencyFrames)
        if let rt = q.realtimeFactor { s += String(format: "  speed                                  %7.0f x realtime\n", rt) }
        return s
    }
}
