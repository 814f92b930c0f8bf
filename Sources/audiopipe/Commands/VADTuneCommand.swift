import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineWorkflows

struct VADTune: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Sweep VAD parameters against reference labels; write the best configuration, the sweep and plots.",
        discussion: """
            Pairs each recording NAME.wav in --audio with an Audacity label file NAME.txt (in --labels, \
            default: next to it; without any, the error says how to make them; exit code 66) and a \
            far-end reference NAME<suffix> if present; sweeps every combination of --grid FILE and --set \
            NAME=V1,V2,… (default: enter_db, exit_db, hangover_ms, min_speech_ms) with the VAD kit's \
            metrics. The choice: the best by --objective among the settings that meet the limits \
            (false alarm ≤ 15 %, false triggers ≤ 3 per minute, fresh-onset latency p90 ≤ 200 ms by \
            default), made again fold by fold (leave one file out up to 10 files, or one --group-by \
            group) and scored on files it was not made on; the baseline (the defaults, or --config) is \
            kept unless the cross-validated gain beats the folds' spread. --report DIR gets \
            summary.json, best.json (for `vad detect --config`), sweep.csv/json, per-file.csv, \
            per-condition.csv (with a manifest.csv), one plot per file and index.html. Exit code 1 when \
            no setting meets the limits (no best.json; --best-effort writes the closest, marked).
              audiopipe vad tune --audio recordings --labels labels --report tuned
            """)

    @Option(help: "Directory of recordings.") var audio: String
    @Option(help: "Directory of Audacity label files NAME.txt (default: --audio).") var labels: String?
    @Option(help: "Suffix of far-end reference files in the audio directory.") var referenceSuffix: String = ".ref.wav"
    @Option(help: "JSON grid file: {\"enter_db\": [6, 8, 10], …}.") var grid: String?
    @Option(name: .customLong("set"), help: "A grid axis NAME=V1,V2,… (repeatable).") var axes: [String] = []
    @OptionGroup var parameters: VADParameterOptions
    @Option(help: "Maximise: f1, precision, recall, fa (lowest), f1-latency.") var objective: VADSweep.Objective = .f1
    @Option(parsing: .number, help: "Limit: false-alarm rate (0…1).") var maxFalseAlarm: Double = 0.15
    @Option(parsing: .number, help: "Limit: false triggers per minute.") var maxFalseTriggersPerMin: Double = 3
    @Option(parsing: .number, help: "Limit: fresh-onset latency p90, ms.") var maxOnsetLatencyMs: Double = 200
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
        var o = try VADTuneOptions(
            audio: audio, labels: labels, report: report, objective: objective,
            constraints: try VADConstraints.checked(
                maxFalseAlarm: maxFalseAlarm, maxFalseTriggersPerMinute: maxFalseTriggersPerMin,
                maxOnsetLatencyMs: maxOnsetLatencyMs, noLimits: noLimits),
            groupBy: groupBy, bestEffort: bestEffort, conditionBy: conditionBy, referenceSuffix: referenceSuffix,
            maxSettings: maxSettings, resampler: resampler)
        // --emulate: --config and --set are the framework's (FrameworkTuneOptions reads them).
        if emulate == nil { o.base = try parameters.configuration() }
        if emulate == nil { o.grid = try VADGrid.load(file: grid, set: axes) }
        o.compare = compare
        let printer = ReportPrinter(output)
        let bar = output.progressBar()
        defer { bar.finish() }
        let summary =
            try emulate.map { f in
                let framework = try FrameworkTuneOptions(
                    f, like: o, scores: scores, grid: grid, axes: axes, config: parameters.config)
                return try FrameworkTuner.tune(framework, notes: printer.note, progress: bar.update)
            } ?? VADTuner.tune(o, notes: printer.note, progress: bar.update)
        bar.finish()
        try printer.print(summary, text: emulate.map(summary.frameworkText) ?? summary.text)
        // No setting meets the limits: a check the user asked for failed.
        if summary.use == "none" { throw FailureExit(status: .checkFailed) }
    }
}
