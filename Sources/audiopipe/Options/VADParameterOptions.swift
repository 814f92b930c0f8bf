import ArgumentParser
import AudioPipelineCore
import AudioPipelineWorkflows

/// The detector's configuration: `--config FILE`, then the common parameters' own options, then
/// `--param NAME=VALUE` for any parameter by its JSON name (each overrides what came before).
struct VADParameterOptions: ParsableArguments {
    @Option(help: "JSON file with parameters (what `vad tune` writes).") var config: String?
    @Option(parsing: .number, help: "Frame length: 10, 20 or 30 ms.") var frameMs: Double?
    @Option(parsing: .number, help: "Speech starts this many dB above noise floor (+ expected echo).") var enterDb:
        Double?
    @Option(parsing: .number, help: "Speech continues while at least this many dB above.") var exitDb: Double?
    @Option(parsing: .number, help: "Hold speech this long after the level drops, ms.") var hangoverMs: Double?
    @Option(parsing: .number, help: "Speech must last this long before it is declared, ms.") var minSpeechMs: Double?
    @Option(parsing: .number, help: "Never speech below this band-limited level, dBFS.") var absoluteDbfs: Double?
    @Option(parsing: .number, help: "Noise floor = this quantile of recent frame energies.") var floorQuantile: Double?
    @Option(parsing: .number, help: "Window of the noise floor, s.") var floorWindowS: Double?
    @Option(parsing: .number, help: "With --reference: expected echo raised by at most this much, dB.")
    var echoMarginDb: Double?
    @Option(parsing: .number, help: "With --align: move onsets this much earlier, ms.") var prerollMs: Double?
    @Option(parsing: .number, help: "Speech only within this many dB of the loudest recent (0: off).") var talkerGateDb:
        Double?
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
}
