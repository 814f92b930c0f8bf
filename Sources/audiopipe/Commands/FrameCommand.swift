import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows

struct Frame: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frame", abstract: "Turn an audio file into the WebSocket messages a voice-API client sends.",
        discussion: """
            Converts IN to the profile's format, cuts --chunk-ms chunks and writes the messages, \
            byte for byte as sent: JSON Lines, or for binary profiles (deepgram) per message a 4-byte \
            little-endian length, a 1-byte opcode, the payload. Many files: IN... -o DIR.
              audiopipe frame capture.wav --profile openai-realtime -o messages.jsonl
              audiopipe frame prompts/ --recursive --profile gemini-live -o framed/
            """)

    @Argument(help: "Input audio file ('-' for standard input), or a batch's inputs.") var inputs: [String] = []
    @Option(help: ArgumentHelp(ProfileLoader.help)) var profile: String
    @Option(parsing: .number, help: ChunkOption.help) var chunkMs: Double = 20
    @Option(
        parsing: .number,
        help: "Client rate, where the profile lets the client choose (atoms, deepgram; default: its own).") var rate:
        Int?
    @Option(help: "Last partial chunk: short, pad or drop.") var last: Chunker<Int16>.LastChunk = .emitShort
    @Option(help: "PCM conversion convention: standard or ios.") var compat: PCMCompatibility = .standard
    @Option(help: "Resampler (see convert --help).") var resampler: ResamplerChoice = .default
    @Flag(help: "Append the profile's commit message (openai-realtime: ≥ 100 ms).") var commit = false
    @Flag(help: "Put the profile's start/stop control messages around the audio.") var control = false
    @Option(name: dataOutput, help: help("Output file ('-': stdout); a batch's directory.")) var outputPath: String
    @OptionGroup var raw: RawInputOptions
    @OptionGroup var batch: BatchArguments
    @OptionGroup var output: OutputOptions

    func validate() throws { try ChunkOption.check(chunkMs) }

    func run() throws {
        let options = try FrameOptions(
            profile: try ProfileLoader.load(profile, rate: rate), chunkMilliseconds: chunkMs, lastChunk: last,
            compatibility: compat, resampler: resampler, commit: commit, control: control, strict: raw.strict)
        let rawFormat = try raw.rawFormat()
        if try batch.isBatch(inputs, output: nil) {
            return try batch.run(
                inputs, kinds: BatchSelection.audioExtensions, output: outputPath,
                ext: options.profile.isBinary ? "bin" : "jsonl", digest: "frame", options, rawFormat as Any,
                report: output, job: BatchJobs.frame(options, raw: rawFormat))
        }
        let bar = output.progressBar()
        defer { bar.finish() }
        let r = try Framer.frame(
            input: inputs[0], raw: rawFormat, output: outputPath, options: options, progress: bar.update)
        bar.finish()
        try ReportPrinter(output, dataOutputs: [outputPath]).print(r, text: r.text)
    }
}

struct Deframe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deframe",
        abstract: "Turn captured WebSocket messages back into audio, with the session's events.",
        discussion: """
            Reads JSON Lines (messages, or HAR-style entries with type/time/opcode/data), a browser \
            HAR export, or frame's .bin stream; decodes one direction's audio to a PCM16 WAV and \
            reports interruptions, turn ends, errors, stalls. --trace writes the arrival timeline \
            (jitter-kit format). Many files: IN... -o DIR.
              audiopipe deframe session.har -o agent.wav --trace arrivals.csv
            """)

    @Argument(help: "Captured messages ('-' for standard input), or a batch's inputs.") var inputs: [String] = []
    @Option(name: dataOutput, help: help("Output WAV; a batch's directory.")) var outputPath: String
    @Option(help: "Whose audio: server (the agent) or client (the mic).") var direction: WireDirection = .server
    @Option(help: "Write the arrival timeline (jitter-kit trace) here.") var trace: String?
    @OptionGroup var capture: CaptureOptions
    @OptionGroup var batch: BatchArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var options = try capture.deframeOptions()
        options.direction = direction
        if try batch.isBatch(inputs, output: nil) {
            try BatchJobs.refuseOneFileOptions(["--trace": trace])
            return try batch.run(
                inputs, kinds: BatchSelection.captureExtensions, output: outputPath, ext: "wav",
                digest: "deframe", options, report: output, job: BatchJobs.deframe(options))
        }
        options.tracePath = trace
        let r = try Deframer.deframe(input: inputs[0], output: outputPath, options: options)
        try ReportPrinter(output, dataOutputs: [outputPath, trace]).print(r, text: r.text(output: outputPath))
    }
}
