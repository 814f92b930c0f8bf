import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineWorkflows

/// The limits' defaults and the options' help (in the library, where the tuner is).
private let limits = VADConstraints()
private typealias Help = OptionHelp.VADTune

struct VADTune: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Sweep VAD parameters against reference labels; write the best configuration, the sweep and plots.",
        discussion: OptionHelp.VADTune.discussion)

    @Option(help: "Directory of recordings.") var audio: String
    @Option(help: "Directory of Audacity label files NAME.txt (default: --audio).") var labels: String?
    @Option(parsing: .unconditional, help: "Far-end references: NAME + this suffix.") var referenceSuffix = ".ref.wav"
    @Option(help: "JSON grid file: {\"enter_db\": [6, 8, 10], …}.") var grid: String?
    @Option(name: .customLong("set"), help: "A grid axis NAME=V1,V2,… (repeatable).") var axes: [String] = []
    @OptionGroup var parameters: VADParameterOptions
    @Option(help: ArgumentHelp(Help.objective)) var objective: VADSweep.Objective?
    @Option(parsing: .number, help: ArgumentHelp(Help.maxFalseAlarm)) var maxFalseAlarm = limits.maxFalseAlarm!
    @Option(parsing: .number, help: ArgumentHelp(Help.maxFalseTriggersPerMin))
    var maxFalseTriggersPerMin = limits.maxFalseTriggersPerMinute!
    @Option(parsing: .number, help: ArgumentHelp(Help.maxOnsetLatencyMs)) var maxOnsetLatencyMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(Help.maxFalseBargeInsPerMin))
    var maxFalseBargeInsPerMin = limits.maxFalseBargeInsPerMinute!
    @Option(parsing: .number, help: ArgumentHelp(Help.maxMissedBargeIns)) var maxMissedBargeIns = limits
        .maxMissedBargeIns!
    @Option(parsing: .number, help: ArgumentHelp(Help.maxBargeInLatencyMs))
    var maxBargeInLatencyMs = limits.maxBargeInLatencyMs!
    @Flag(help: "No limits: the best by --objective of all settings.") var noLimits = false
    @Option(help: "manifest.csv column grouping files for the cross-validation (a talker, a room).")
    var groupBy: String?
    @Flag(help: "When no setting meets the limits, write the closest to best.json (marked).") var bestEffort = false
    @Option(parsing: .number, help: "Refuse grids with more settings than this.") var maxSettings: Int = VADGrid
        .maximumSettings
    @Option(help: "Resampler for references at another rate.") var resampler: ResamplerChoice = .default
    @Option(help: "Report directory (written when the sweep is done).") var report: String
    @Option(help: "manifest.csv columns of a condition (default: condition or noise).") var conditionBy: String?
    @Option(help: "Emulate a framework's VAD over --scores: pipecat or livekit.") var emulate: FrameworkVAD?
    @Option(help: "Directory of score files NAME.csv (scripts/vad-scores.py), for --emulate.") var scores: String?
    @Option(help: "Beside the energy VAD, tuned alike: FRAMEWORK=SCORES_DIR (repeatable).") var compare: [String] = []
    @OptionGroup var output: OutputOptions

    func run() throws {
        let given = VADConstraints(
            maxFalseAlarm: maxFalseAlarm, maxFalseTriggersPerMinute: maxFalseTriggersPerMin,
            maxOnsetLatencyMs: maxOnsetLatencyMs ?? limits.maxOnsetLatencyMs,
            maxFalseBargeInsPerMinute: maxFalseBargeInsPerMin, maxMissedBargeIns: maxMissedBargeIns,
            maxBargeInLatencyMs: maxBargeInLatencyMs)
        try given.validate()
        var o = try VADTuneOptions(
            audio: audio, labels: labels, report: report, objective: objective,
            constraints: noLimits ? .none : given, groupBy: groupBy, bestEffort: bestEffort,
            conditionBy: conditionBy, referenceSuffix: referenceSuffix, maxSettings: maxSettings, resampler: resampler)
        o.onsetLatencyWithReferences = maxOnsetLatencyMs != nil
        // --emulate: --config and --set are the framework's (FrameworkTuneOptions reads them).
        if emulate == nil {
            o.base = try parameters.configuration()
            o.basePolicy = try parameters.policy()
        }
        o.compare = compare
        let printer = ReportPrinter(output)
        let bar = output.progressBar()
        defer { bar.finish() }
        let summary = try VADTuner.tune(
            o, emulate: emulate, scores: scores, gridFile: grid, axes: axes, config: parameters.config,
            notes: printer.note, progress: bar.update)
        bar.finish()
        try printer.print(summary, text: emulate.map(summary.frameworkText) ?? summary.text)
        // No setting meets the limits: a check the user asked for failed.
        if summary.use == "none" { throw FailureExit(status: .checkFailed) }
    }
}
