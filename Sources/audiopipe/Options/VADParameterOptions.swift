import ArgumentParser
import AudioPipelineCore
import AudioPipelineWorkflows

/// The detector's configuration: `--config FILE`, then the common parameters' own options, then
/// `--param NAME=VALUE` for any parameter by its JSON name (each overrides what came before).
struct VADParameterOptions: ParsableArguments {
    @Option(help: "JSON file with parameters (what `vad tune` writes).") var config: String?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.frameMs)) var frameMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.enterDb)) var enterDb: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.exitDb)) var exitDb: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.hangoverMs)) var hangoverMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.minSpeechMs)) var minSpeechMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.absoluteDbfs)) var absoluteDbfs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.floorQuantile)) var floorQuantile: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.floorWindowS)) var floorWindowS: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.echoMarginDb)) var echoMarginDb: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.prerollMs)) var prerollMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.VAD.talkerGateDb)) var talkerGateDb: Double?
    @Option(
        name: .customLong("param"),
        help: ArgumentHelp(
            "Any parameter by its JSON name, NAME=VALUE (repeatable; applied last).",
            discussion: "Names: \(VADConfiguration.parameterNames.joined(separator: ", "))."))
    var params: [String] = []

    func configuration() throws -> VADConfiguration {
        let named: [(String, Double?)] = [
            ("frame_ms", frameMs), ("enter_db", enterDb), ("exit_db", exitDb), ("hangover_ms", hangoverMs),
            ("min_speech_ms", minSpeechMs), ("absolute_dbfs", absoluteDbfs), ("floor_quantile", floorQuantile),
            ("floor_window_s", floorWindowS), ("echo_margin_db", echoMarginDb), ("preroll_ms", prerollMs),
            ("talker_gate_db", talkerGateDb),
        ]
        let base = try config.map { try VADConfigurationFile.read($0) } ?? VADConfiguration()
        return try VADConfigurationFile.applying(named, assignments: params, to: base)
    }

    /// The client's barge-in policy in the --config file (`barge_in`, from `vad tune` with
    /// references), else none (0, 0).
    func policy() throws -> BargeInPolicy {
        try config.flatMap { try VADConfigurationFile.policy($0) } ?? BargeInPolicy()
    }
}
