import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an audio file: rate, channels, encoding, container (streaming, constant memory).",
        discussion: """
            Like `sox IN -r 16000 -c 1 -b 16 OUT`; the type from OUT's extension or --type; '-' is \
            stdin/stdout. Atomic: a failed run leaves nothing. --compat ios: x32767 and truncation. \
            Many files: IN... -o DIR or --recursive / --input-list, on every core (--jobs), \
            resumable (--report, --resume), shardable (--shard I/N or auto).
              audiopipe convert song.flac - --rate 24000 --channels 1 --type raw > agent.pcm
              audiopipe convert calls/ --recursive -o calls16k/ -r 16000 -c 1 --report done.jsonl
            """)

    @Argument(help: "IN OUT, or the inputs of a batch ('-' for standard input/output).") var paths: [String] = []
    @Option(name: dataOutput, help: help("Output directory of a batch.")) var outputDirectory: String?
    @Option(name: [.short, .long], parsing: .number, help: "Output sample rate, Hz (default: the input's).") var rate:
        Int?
    @Option(name: [.short, .long], parsing: .number, help: "Output channels (1: the mean; default: the input's).")
    var channels: Int?
    @Option(parsing: .number, help: "Take channel K (1 = first) instead of the mean when making mono.") var channel:
        Int?
    @Option(name: [.short, .long], help: "Output encoding: pcm16 or float32.") var encoding: SampleEncoding = .pcm16
    @Option(help: "Dither for float -> pcm16: none or tpdf (triangular, ±1 LSB).") var dither: DitherOption = .none
    @Option(parsing: .number, help: "Seed of the TPDF dither (the same seed, the same output).") var ditherSeed:
        UInt64 = 1
    @Option(help: "PCM convention: standard, or ios (as iOS client code).") var compat: PCMCompatibility = .standard
    @Option(name: [.short, .long], help: "Output type: wav, flac or raw (default: by extension).") var type:
        OutputFileType?
    @Option(help: "Resampler: \(resamplerNames).") var resampler: ResamplerChoice = .default
    @OptionGroup var raw: RawInputOptions
    @OptionGroup var batch: BatchArguments
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if paths.count == 1 && outputDirectory == nil && !batch.optionGiven && !BatchSelection.isDirectory(paths[0]) {
            throw ValidationError("give IN OUT, or the inputs and -o DIR")
        }
    }

    func run() throws {
        var options = ConvertOptions()
        options.sampleRate = try ConvertOptions.rate(rate)
        options.channels = channels
        options.channel = channel.map { $0 - 1 }
        options.encoding = encoding
        options.dither = dither == .tpdf ? .tpdf(seed: ditherSeed) : .none
        options.compatibility = compat
        options.resampler = resampler
        options.strict = raw.strict
        let rawFormat = try raw.rawFormat()
        // IN OUT is one file, as ever; anything else (or -o DIR) is a batch.
        if try batch.isBatch(paths.count == 2 && outputDirectory == nil ? [paths[0]] : paths, output: outputDirectory) {
            options.type = type ?? .wav
            try options.validate()
            return try batch.run(
                paths, kinds: BatchSelection.audioExtensions, output: outputDirectory, ext: options.type.rawValue,
                digest: "convert", options, rawFormat as Any, report: output,
                job: BatchJobs.convert(options, raw: rawFormat, typeGiven: type != nil))
        }
        options.type = try ConvertOptions.outputType(path: paths[1], type: type)
        let bar = output.progressBar()
        defer { bar.finish() }
        let report = try FileConverter.convert(
            input: paths[0], raw: rawFormat, output: paths[1], options: options, progress: bar.update)
        bar.finish()
        try ReportPrinter(output, dataOutputs: [paths[1]]).print(report, text: report.text)
    }
}
