import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows

struct VAD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vad",
        abstract: "Energy voice-activity detection for barge-in, optionally echo-aware.",
        subcommands: [VADDetect.self, VADTune.self])

    func run() throws { throw UsageError(missingSubcommandOf: Self.self) }
}

struct VADDetect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Speech segments of a recording, as a streaming detector would decide them.",
        discussion: """
            Segments start when a streaming detector decided (as a live client experiences it); \
            --align back-dates onsets for offline labelling. --reference (what the client was \
            playing) makes it ignore that audio's echo. Formats: audacity, csv, json. Many files: \
            IN... -o DIR (see convert). --explain says per segment which bands (excess in dB over \
            noise floor ⊕ echo) and rules opened it and which test closed it (with --json: an \
            `explain` object per segment).
              audiopipe vad detect mic.wav --reference played.wav --format json
              audiopipe vad detect mic.wav --explain -o mic.txt
              audiopipe vad detect mic.wav --config tuned.json --align -o labels.txt
            """)

    @Argument(help: "Microphone recording, or a batch's inputs.") var inputs: [String] = []
    @Option(help: "Far-end reference: what the client was playing.") var reference: String?
    @OptionGroup var parameters: VADParameterOptions
    @Option(help: "Output format: audacity, csv or json.") var format: LabelFormat = .audacity
    @Flag(help: "Back-date onsets (offline labelling) instead of the streaming timeline.") var align = false
    @Flag(help: "Say per segment which bands and rules opened it and what closed it.") var explain = false
    @Option(help: "Resampler for a reference at another rate.") var resampler: ResamplerChoice = .default
    @Option(name: dataOutput, help: help("Output file (default: stdout); a batch's directory."))
    var outputPath: String = "-"
    @OptionGroup var batch: BatchArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var options = VADDetectOptions()
        (options.configuration, options.reference) = (try parameters.configuration(), reference)
        (options.align, options.format, options.resampler, options.explain) = (align, format, resampler, explain)
        if batch.isBatch(inputs, output: nil) {
            try batch.refuse(["--reference": reference])
            if explain && format != .json { throw ValidationError("--explain with many files needs --format json") }
            return try batch.run(
                inputs, kinds: BatchSelection.audioExtensions, output: outputPath, ext: format.fileExtension,
                digest: "vad", options, report: output, job: BatchJobs.vadDetect(options))
        }
        let r = try VADDetector.detect(input: inputs[0], output: outputPath, options: options)
        let printer = ReportPrinter(output, dataOutputs: [outputPath])
        // The labels are this command's output; its one-line summary is a note (on stderr), printed
        // when the labels went to a file. --json and --explain print the report by the usual rule.
        if output.json || explain {
            try printer.print(r, text: r.explanationText(output: outputPath))
        } else {
            for w in r.warnings { printer.note("warning: \(w)") }
            if outputPath != "-" { printer.note(r.text(output: outputPath)) }
        }
    }
}

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
    @Option(parsing: .number, help: "Refuse grids with more combinations than this.") var maxSettings: Int = VADGrid
        .maximumSettings
    @Option(help: "Resampler for references at another rate.") var resampler: ResamplerChoice = .default
    @Option(help: "Report directory (written when the sweep is done).") var report: String
    @Option(help: "manifest.csv columns of a condition (default: condition or noise).") var conditionBy: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard maxFalseAlarm >= 0 && maxFalseAlarm <= 1 else {
            throw ValidationError("--max-false-alarm must be in 0…1 (a fraction), not \(maxFalseAlarm)")
        }
        guard maxFalseTriggersPerMin >= 0 && maxFalseTriggersPerMin.isFinite else {
            throw ValidationError("--max-false-triggers-per-min must be a number ≥ 0, not \(maxFalseTriggersPerMin)")
        }
        guard maxOnsetLatencyMs >= 0 && maxOnsetLatencyMs.isFinite else {
            throw ValidationError("--max-onset-latency-ms must be a number ≥ 0, not \(maxOnsetLatencyMs)")
        }
        guard maxSettings >= 1 else { throw ValidationError("--max-settings must be at least 1") }
    }

    func run() throws {
        var o = VADTuneOptions(audioDirectory: audio, labelDirectory: labels ?? audio, reportDirectory: report)
        o.conditionColumns = conditionBy?.split(separator: ",").map(String.init)
        o.referenceSuffix = referenceSuffix
        o.base = try parameters.configuration()
        o.grid = try VADGrid.load(file: grid, set: axes)
        o.objective = objective
        o.constraints =
            noLimits
            ? VADConstraints(maxFalseAlarm: nil, maxFalseTriggersPerMinute: nil, maxOnsetLatencyMs: nil)
            : VADConstraints(
                maxFalseAlarm: maxFalseAlarm, maxFalseTriggersPerMinute: maxFalseTriggersPerMin,
                maxOnsetLatencyMs: maxOnsetLatencyMs)
        o.groupBy = groupBy
        o.bestEffort = bestEffort
        o.maxSettings = maxSettings
        o.resampler = resampler
        let printer = ReportPrinter(output)
        let bar = output.progressBar()
        defer { bar.finish() }
        let summary = try VADTuner.tune(o, notes: printer.note, progress: bar.update)
        bar.finish()
        try printer.print(summary, text: summary.text)
        // No setting meets the limits: a check the user asked for failed.
        if summary.use == "none" { throw FailureExit(status: .checkFailed) }
    }
}
