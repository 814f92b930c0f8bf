import ArgumentParser
import AudioPipelineCore
import AudioPipelineWorkflows

struct Session: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Simulate a whole barge-in conversation offline: how soon the agent stops, how often for nothing.",
        subcommands: [SessionSimulate.self])

    func run() throws { throw UsageError(missingSubcommandOf: Self.self) }
}

struct SessionSimulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate", abstract: "Run one conversation through the client pipeline on a simulated clock.",
        discussion: """
            Synthetic: the agent's audio (WAV, or a captured session) arrives per --trace or \
            --network, plays through the jitter buffer; its echo plus the user's track and a noise \
            floor is the microphone; the VAD with the far-end reference barges in (flush, interrupt \
            message). Recorded: a microphone recording with real echo and the played reference.
              audiopipe session simulate --agent agent.wav --user user.wav -o sim
              audiopipe session simulate --recorded mic.wav --reference played.wav --user-labels user.txt -o sim
            -o DIR gets heard.wav, mic.wav, vad-mic.wav and vad-reference.wav (what the detector got), sent.jsonl, \
            events.jsonl, report.json, timeline.svg and report.html (all or nothing). --sweep NAME=v1,v2,… runs once \
            per value (NAME: echo_gain_db, echo_delay_ms, min_barge_in_ms, ignore_first_ms, jitter_ms, or any VAD \
            parameter such as enter_db) into DIR/sweep.csv and sweep.svg. --scenarios SDIR runs every scenario file \
            SDIR/*.json (a SessionConfiguration; paths relative to it, every setting from it: other options are \
            refused) on --jobs workers into DIR/NAME/ and one table, DIR/scenarios.csv. --rooms N draws N random \
            rooms (echo delay 0–300 ms and gain −20…+6 dB, the loudspeaker's band and resonance, RT60 100–600 ms and \
            direct-to-reverberant ratio 0–12 dB, soft clipping, noise floor, network jitter; --room NAME=LOW:HIGH \
            changes a range, and --echo-delay-ms, --echo-gain-db, --noise-dbfs or --network jitter=MS fixes one) and \
            runs the session in each on --jobs workers into DIR/rooms.csv, rooms.json, rooms.txt (worst rooms first) \
            and rooms.svg.
            """)

    @Option(help: "Agent audio: WAV (or any audio file) or a captured session (.jsonl, .har).") var agent: String?
    @Option(help: "The user's clean microphone track.") var user: String?
    @Option(help: "User speech as Audacity labels (default: from the clean user track).") var userLabels: String?
    @Option(help: "Recorded mode: microphone recording that holds real echo.") var recorded: String?
    @Option(help: "Recorded mode: what was played, on the microphone's timeline.") var reference: String?
    @Option(help: "Arrival trace of the agent's packets (the jitter kit's CSV).") var trace: String?
    @Option(help: "Synthetic network: delay=MS,jitter=MS,loss=PCT,burst=X,packet=MS.") var network: String?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Session.echoDelayMs)) var echoDelayMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Session.echoGainDb)) var echoGainDb: Double?
    @Option(help: "Echo path impulse response (WAV), instead of the small-speaker response.") var echoIr: String?
    @Flag(help: "No echo path.") var noEcho = false
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Session.noiseDbfs)) var noiseDbfs: Double?
    @Option(help: ArgumentHelp(ProfileLoader.help)) var profile = "openai-realtime"
    @Option(parsing: .number, help: "Audio device rate, Hz (synthetic mode).") var deviceRate = 48_000
    @Option(parsing: .number, help: "Client audio per message, ms.") var chunkMs = 20.0
    @Option(parsing: .number, help: "Speech confirmed before the client barges in, ms (default: --config's, or 0).")
    var minBargeInMs: Double?
    @Option(parsing: .number, help: "Ignore barge-ins in a response's first N ms (default: --config's, else 0).")
    var ignoreFirstMs: Double?
    @Option(parsing: .number, help: "Pauses at least this long split the agent's audio into responses, ms.")
    var responseGapMs = 1500.0
    @Option(parsing: .number, help: "Seed of the noise floor and the synthetic network.") var seed: UInt64 = 1
    @Option(help: "Vary one parameter: NAME=v1,v2,… (see above).") var sweep: String?
    @Option(help: "A directory of scenario files (*.json) to run instead.") var scenarios: String?
    @Option(parsing: .number, help: "Draw this many random rooms and run the session in each.") var rooms: Int?
    @Option(parsing: .number, help: "Seed of the rooms drawn (the same seed, the same rooms).") var roomSeed: UInt64 = 1
    @Option(help: "A room parameter's range, NAME=LOW:HIGH or NAME=VALUE (repeatable; see above).")
    var room: [String] = []
    @Option(parsing: .number, help: "Scenarios simulated at once (default: the cores).") var jobs: Int?
    @Option(name: dataOutput, help: help("Output directory.")) var outputPath: String
    @OptionGroup var vad: VADParameterOptions
    @OptionGroup var buffer: JitterBufferOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let printer = ReportPrinter(output, dataOutputs: [outputPath])
        // Options that another one would silently override are refused (read from the command line
        // as given: an option left at its default is not one the user set).
        let given = SessionModes.given(Array(CommandLine.arguments.dropFirst()))
        try SessionModes.refuseConflicts(given)
        var c = SessionConfiguration()
        c.agent = agent
        c.user = user
        c.userLabels = userLabels
        c.recorded = recorded
        c.reference = reference
        c.trace = trace
        if let network { c.network = try NetworkConditions.parse(network) }
        c.echo.enabled = !noEcho
        if let echoDelayMs { c.echo.delayMs = echoDelayMs }
        if let echoGainDb { c.echo.gainDb = echoGainDb }
        c.echo.impulseResponse = echoIr
        if let noiseDbfs { c.noiseDbfs = noiseDbfs }
        c.profile = profile
        c.deviceRate = deviceRate
        c.chunkMs = chunkMs
        c.responseGapMs = responseGapMs
        c.seed = seed
        c.policy = try vad.policy()
        if let minBargeInMs { c.policy.minimumSpeechMs = minBargeInMs }
        if let ignoreFirstMs { c.policy.ignoreFirstMs = ignoreFirstMs }
        c.vad = try vad.configuration()
        c.jitter = buffer.settings
        var request = SessionModes.Request(output: outputPath)
        request.scenarios = scenarios
        request.rooms = rooms
        request.roomSeed = roomSeed
        request.roomRanges = room + (try SessionModes.fixedInRooms(given, ranges: room, configuration: c))
        request.sweep = sweep
        request.jobs = jobs
        let outcome = try SessionModes.run(c, request, failure: Terminal.error) { printer.note("warning: \($0)") }
        try printer.print(outcome.report, text: outcome.text)
        if outcome.exitCode != 0 { throw FailureExit(status: ExitStatus(rawValue: outcome.exitCode) ?? .ioError) }
    }
}
