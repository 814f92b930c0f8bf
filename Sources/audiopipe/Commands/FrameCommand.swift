import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows

struct Frame: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn an audio file into the WebSocket messages a voice-API client sends.",
        discussion: """
            Converts IN to the profile's format (rate, mono, PCM16), cuts it into --chunk-ms \
            chunks and writes one message per line (JSON Lines), byte for byte as it would be sent. \
            Binary profiles (deepgram) write a length-prefixed stream instead: per message a 4-byte \
            little-endian length, a 1-byte WebSocket opcode (1 text, 2 binary), the payload.

            Examples:
              audiopipe frame capture.wav --profile openai-realtime -o messages.jsonl
              audiopipe frame capture.wav --profile gemini-live --chunk-ms 100 -o - | head -1
              audiopipe frame capture.wav --profile deepgram --rate 16000 -o stream.bin
            """)

    @Argument(help: "Input audio file ('-' for standard input).") var input: String
    @Option(help: ArgumentHelp(ProfileLoader.help)) var profile: String
    @Option(help: "Chunk duration, ms.") var chunkMs: Double = 20
    @Option(help: "Client rate for profiles that let the client choose (atoms, deepgram); others must match.") var rate:
        Int?
    @Option(help: "Last partial chunk: short, pad or drop.") var last: Chunker<Int16>.LastChunk = .emitShort
    @Option(help: "PCM conversion convention: standard or ios.") var compat: PCMCompatibility = .standard
    @Option(help: "Resampler (see convert --help).") var resampler: ResamplerChoice = .default
    @Flag(help: "Append the profile's commit message (openai-realtime refuses under 100 ms of audio).") var commit =
        false
    @Flag(help: "Put the profile's start/stop control messages around the audio.") var control = false
    @Option(name: dataOutput, help: help("Output file ('-' for standard output)."))
    var outputPath: String
    @OptionGroup var raw: RawInputOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard chunkMs > 0, chunkMs <= 60_000 else { throw ValidationError("--chunk-ms must be in (0, 60000]") }
    }

    func run() throws {
        var options = FrameOptions(profile: try ProfileLoader.load(profile, rate: rate))
        options.chunkMilliseconds = chunkMs
        options.lastChunk = last
        options.compatibility = compat
        options.resampler = resampler
        options.commit = commit
        options.control = control
        options.strict = raw.strict
        let bar = output.progressBar()
        defer { bar.finish() }
        let r = try Framer.frame(
            input: input, raw: try raw.rawFormat(), output: outputPath, options: options, progress: bar.update)
        bar.finish()
        try ReportPrinter(output, dataOutputs: [outputPath]).print(r, text: r.text)
    }
}

struct Deframe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn captured WebSocket messages back into audio, with the session's events.",
        discussion: """
            Reads JSON Lines (one message per line, or HAR-style entries {"type":"send|receive", \
            "time":SECONDS,"opcode":1,"data":"…"}), a browser HAR export (Chrome's \
            _webSocketMessages), or frame's length-prefixed stream (.bin). Detects the profile \
            unless given, decodes the audio of one direction into a mono PCM16 WAV at the \
            profile's rate, and reports interruptions, turn ends, errors, stalls and audio per \
            response. --trace writes the audio messages' arrival timeline in the jitter kit's \
            trace format (needs arrival times: HAR or timed JSON Lines).

            Examples:
              audiopipe deframe session.har -o agent.wav
              audiopipe deframe messages.jsonl -o mic.wav --direction client
              audiopipe deframe session.har -o agent.wav --trace arrivals.csv
            """)

    @Argument(help: "Captured messages ('-' for standard input).") var input: String
    @Option(name: dataOutput, help: help("Output WAV."))
    var outputPath: String
    @Option(help: "Which side's audio: server (the agent) or client (the microphone).")
    var direction: WireDirection = .server
    @Option(help: "Write the arrival timeline (seq,send_ms,arrival_ms,duration_ms,media_ms,utt) here.") var trace:
        String?
    @OptionGroup var capture: CaptureOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        var options = try capture.deframeOptions()
        options.direction = direction
        options.tracePath = trace
        let r = try Deframer.deframe(input: input, output: outputPath, options: options)
        try ReportPrinter(output, dataOutputs: [outputPath, trace]).print(r, text: r.text(output: outputPath))
    }
}
