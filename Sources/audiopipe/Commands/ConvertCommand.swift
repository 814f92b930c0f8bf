import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows

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

    @Argument(help: "Input audio file ('-' for standard input).") var input: String
    @Argument(help: ArgumentHelp("Output file ('-' for standard output).", valueName: "output")) var outputPath: String
    @Option(name: [.short, .long], help: "Output sample rate, Hz (default: the input's).") var rate: Int?
    @Option(name: [.short, .long], help: "Output channels: 1 downmixes (mean of channels); default: the input's.")
    var channels: Int?
    @Option(help: "Take channel K (1 = first) instead of the mean when making mono.") var channel: Int?
    @Option(name: [.short, .long], help: "Output encoding: pcm16 or float32.") var encoding: SampleEncoding = .pcm16
    @Option(help: "Dither for float -> pcm16: none or tpdf (triangular, ±1 LSB).") var dither: DitherOption = .none
    @Option(help: "Seed of the TPDF dither generator (output is repeatable for a given seed).")
    var ditherSeed: UInt64 = 1
    @Option(help: "PCM conversion convention: standard, or ios (what common iOS client code does).")
    var compat: PCMCompatibility = .standard
    @Option(name: [.short, .long], help: "Output type: wav, flac or raw (default: from the extension).")
    var type: OutputFileType?
    @Option(help: "Resampler: \(resamplerNames).") var resampler: ResamplerChoice = .default
    @OptionGroup var raw: RawInputOptions
    @OptionGroup var output: OutputOptions

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
        options.type = try ConvertOptions.outputType(path: outputPath, type: type)
        options.dither = dither == .tpdf ? .tpdf(seed: ditherSeed) : .none
        options.compatibility = compat
        options.resampler = resampler
        options.strict = raw.strict
        let bar = output.progressBar()
        defer { bar.finish() }
        let report = try FileConverter.convert(
            input: input, raw: try raw.rawFormat(), output: outputPath, options: options, progress: bar.update)
        bar.finish()
        try ReportPrinter(output, dataOutputs: [outputPath]).print(report, text: report.text)
    }
}
