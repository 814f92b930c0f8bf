import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an audio file: rate, channels, encoding, container (streaming, constant memory).",
        discussion: """
            Like `sox IN -r 16000 -c 1 -b 16 OUT`. The output type comes from OUT's extension \
            (.wav, .flac, .raw/.pcm) or --type; '-' reads stdin / writes stdout (then --type is \
            required). The output is written to a temporary file beside OUT and renamed on \
            success: a failed run leaves no partial file and never touches an existing OUT.

            Conversion conventions: Float32 -> PCM16 multiplies by 32768, rounds to nearest, \
            saturates (clipped samples are counted), NaN -> 0; PCM16 -> Float32 divides by 32768, \
            so PCM16 -> PCM16 is exact. --compat ios reproduces the common iOS client code \
            instead (x32767 and truncation; /32767 on playback).

            Examples:
              audiopipe convert capture.wav mic16k.wav --rate 16000 --channels 1
              audiopipe convert song.flac - --rate 24000 --channels 1 --type raw > agent.pcm
            """)

    @Argument(help: "Input audio file ('-' for standard input).")
    var input: String

    @Argument(help: "Output file ('-' for standard output).")
    var output: String

    @Option(name: [.short, .long], help: "Output sample rate, Hz (default: the input's).")
    var rate: Int?

    @Option(name: [.short, .long], help: "Output channels: 1 downmixes (mean of channels); default: the input's.")
    var channels: Int?

    @Option(help: "Take channel K (1 = first) instead of the mean when making mono.")
    var channel: Int?

    @Option(name: [.short, .long], help: "Output encoding: pcm16 or float32.")
    var encoding: SampleEncoding = .pcm16

    @Option(help: "Dither for float -> pcm16: none or tpdf (triangular, ±1 LSB).")
    var dither: DitherOption = .none

    @Option(help: "Seed of the TPDF dither generator (output is repeatable for a given seed).")
    var ditherSeed: UInt64 = 1

    @Option(help: "PCM conversion convention: standard, or ios (what common iOS client code does).")
    var compat: PCMCompatibility = .standard

    @Option(name: [.short, .long], help: "Output type: wav, flac or raw (default: from the extension).")
    var type: OutputFileType?

    @Option(help: "Resampler: \(ResamplerChoice.allCases.map(\.rawValue).joined(separator: ", ")).")
    var resampler: ResamplerChoice = .default

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(name: [.short, .long], help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Never draw a progress bar.")
    var noProgress = false

    @OptionGroup var raw: RawInputOptions

    func validate() throws {
        if let channels, channels < 1 { throw ValidationError("--channels must be at least 1 (got \(channels))") }
        if let channel, channel < 1 { throw ValidationError("--channel counts from 1 (got \(channel))") }
        if let channel, let channels, channels != 1 {
            throw ValidationError("--channel \(channel) selects one channel; it cannot make \(channels) channels")
        }
        if compat == .ios && dither != .none {
            throw ValidationError("--dither cannot be used with --compat ios (the iOS code truncates without dither)")
        }
        if type == nil && OutputFileType(pathExtension: output) == nil {
            throw ValidationError(
                output == "-" ? "writing to stdout needs --type (wav, flac or raw)"
                    : "cannot tell the output type from '\(output)': use a .wav, .flac or .raw name, or --type")
        }
    }

    func run() throws {
        var options = ConvertOptions()
        do {
            options.sampleRate = try rate.map { r throws(AudioPipelineError) in try SampleRate(r) }
        } catch {
            throw AudioPipelineError(.invalidConfiguration, "--rate: \(error.message)")
        }
        options.channels = channels
        options.channel = channel.map { $0 - 1 }
        options.encoding = encoding
        options.type = type ?? OutputFileType(pathExtension: output)!
        options.dither = dither == .tpdf ? .tpdf(seed: ditherSeed) : .none
        options.compatibility = compat
        options.resampler = resampler

        let rawFormat = try raw.rawFormat()
        // The header's frame count drives the progress bar; a pipe has none (no bar).
        let expected = (input == "-") ? nil : (try? AudioFileReader(path: input, raw: rawFormat))?.description
        let bar = ProgressBar(
            totalFrames: expected?.frames, sampleRate: expected?.format.sampleRate.hz ?? 1, enabled: !quiet && !noProgress)
        let started = Date()
        let report: ConvertReport
        do {
            report = try FileConverter.convert(input: input, raw: rawFormat, output: output, options: options, progress: bar.update)
        } catch {
            bar.finish()
            throw error
        }
        bar.finish()
        if quiet { return }
        let elapsed = Date().timeIntervalSince(started)
        let toStdout = output != "-"
        let text = json ? Self.json(report, input: input, output: output, elapsed: elapsed) : Self.text(report, input: input, output: output, elapsed: elapsed)
        if toStdout { print(text) } else { Terminal.stderr(text + "\n") }
    }

    static func text(_ r: ConvertReport, input: String, output: String, elapsed: Double) -> String {
        let inSec = r.input.format.sampleRate.seconds(frames: r.framesIn)
        var s = "\(input) (\(r.input.container), \(r.input.encoding), \(r.input.format.sampleRate.hz) Hz, \(r.input.format.channels) ch, \(Units.seconds(inSec)))"
        s += "\n  -> \(output) (\(r.outputType.rawValue), \(r.outputEncoding), \(r.output.sampleRate.hz) Hz, \(r.output.channels) ch)"
        s += "\n  frames \(r.framesIn) -> \(r.framesOut)"
        if let name = r.resampler { s += "; resampler \(name) (latency \(r.resamplerLatencyFrames) frames, delay-compensated)" }
        if r.outputEncoding == .pcm16 { s += "\n  clipped \(r.clippedSamples) samples" + (r.nanSamples > 0 ? ", NaN \(r.nanSamples)" : "") }
        s += String(format: "\n  %.3f s, %.0f× realtime", elapsed, elapsed > 0 ? inSec / elapsed : 0)
        return s
    }

    static func json(_ r: ConvertReport, input: String, output: String, elapsed: Double) -> String {
        let object: [String: Any] = [
            "input": input, "output": output,
            "inputFormat": ["container": r.input.container, "encoding": r.input.encoding, "sampleRate": r.input.format.sampleRate.hz, "channels": r.input.format.channels],
            "outputFormat": ["type": r.outputType.rawValue, "encoding": r.outputEncoding.rawValue, "sampleRate": r.output.sampleRate.hz, "channels": r.output.channels],
            "framesIn": r.framesIn, "framesOut": r.framesOut, "clippedSamples": r.clippedSamples, "nanSamples": r.nanSamples,
            "resampler": r.resampler ?? NSNull(), "resamplerLatencyFrames": r.resamplerLatencyFrames, "elapsedSeconds": elapsed,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
