import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows

struct VAD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vad",
        abstract: "Energy voice-activity detection for barge-in, optionally echo-aware.",
        subcommands: [VADDetect.self, VADTune.self])

    func run() throws { throw ValidationError("choose a subcommand: vad detect or vad tune") }
}

struct VADDetect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Speech segments of a recording, as a streaming detector would decide them.",
        discussion: """
            Segments are on the streaming decision timeline: a segment starts when the detector \
            decided (the end of the frame that confirmed speech), as a live client experiences \
            it. --align moves onsets back to where the speech began (for offline labelling). \
            With --reference (the audio the client was playing, on the microphone's timeline) the \
            detector ignores the echo of that audio; a reference with another rate or channel \
            count is converted (with --resampler), one of another length padded or cut (with a \
            warning). Any input rate and channel count (mixed to mono). Formats: audacity \
            (start<TAB>end<TAB>speech), csv (start,end), json (segments and the configuration).

            Examples:
              audiopipe vad detect mic.wav -o mic.txt
              audiopipe vad detect mic.wav --reference played.wav --format json
              audiopipe vad detect mic.wav --config tuned.json --align -o labels.txt
            """)

    @Argument(help: "Microphone recording.") var input: String
    @Option(help: "Far-end reference: what the client was playing.") var reference: String?
    @OptionGroup var parameters: VADParameterOptions
    @Option(help: "Output format: audacity, csv or json.") var format: LabelFormat = .audacity
    @Flag(help: "Back-date onsets (offline labelling) instead of the streaming timeline.") var align = false
    @Option(help: "Resampler for a reference at another rate (see convert --help).") var resampler: ResamplerChoice =
        .default
    @Option(name: dataOutput, help: help("Output file (default: standard output)."))
    var outputPath: String = "-"
    @OptionGroup var output: OutputOptions

    func run() throws {
        var options = VADDetectOptions()
        options.configuration = try parameters.configuration()
        options.reference = reference
        options.align = align
        options.format = format
        options.resampler = resampler
        let r = try VADDetector.detect(input: input, output: outputPath, options: options)
        let printer = ReportPrinter(output, dataOutputs: [outputPath])
        // The labels are this command's output; its one-line summary is a note (on stderr), printed
        // when the labels went to a file. --json prints the whole report by the usual rule.
        if output.json {
            try printer.print(r, text: "")
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
            Pairs every audio file in --audio with LABELS/NAME.txt (Audacity labels) and, if \
            present, the far-end reference NAME<suffix> in --audio (default .ref.wav). Unmatched \
            files are listed and skipped. The sweep is every combination of the grid: --grid FILE \
            (JSON object, parameter -> list of values) and/or --set NAME=V1,V2,… (repeatable); the \
            default grid sweeps enter_db, exit_db, hangover_ms and min_speech_ms. Band features \
            are computed once per file, so hundreds of settings take seconds. Metrics use the \
            VAD kit's definitions (score.py), on the streaming timeline.

            --report DIR receives (all at once, when the sweep is done): best.json (the \
            configuration for `vad detect --config`, with its scores), sweep.csv and sweep.json \
            (every setting and its metrics), per-file.csv (the best setting per file), \
            plots/NAME.svg per file (waveform, frame level, noise floor, thresholds, labels and \
            detections on one time axis), f1-vs-threshold.svg, precision-recall.svg, and \
            index.html showing them all.

            Example:
              audiopipe vad tune --audio recordings --labels labels --report tuned
              audiopipe vad detect new.wav --config tuned/best.json
            """)

    @Option(help: "Directory of recordings.") var audio: String
    @Option(help: "Directory of Audacity label files NAME.txt.") var labels: String
    @Option(help: "Suffix of far-end reference files in the audio directory.") var referenceSuffix: String = ".ref.wav"
    @Option(help: "JSON grid file: {\"enter_db\": [6, 8, 10], …}.") var grid: String?
    @Option(name: .customLong("set"), help: "A grid axis NAME=V1,V2,… (repeatable).") var axes: [String] = []
    @OptionGroup var parameters: VADParameterOptions
    @Option(help: "What to maximise: f1, precision, recall, fa (lowest false alarm), f1-latency.")
    var objective: VADSweep.Objective = .f1
    @Option(help: "Only settings with a false-alarm rate at most this (0…1) compete, if any do.")
    var maxFalseAlarm: Double?
    @Option(help: "Refuse grids with more combinations than this.") var maxSettings: Int = VADGrid.maximumSettings
    @Option(help: "Resampler for references at another rate (see convert --help).")
    var resampler: ResamplerChoice = .default
    @Option(help: "Report directory (written when the sweep is done).") var report: String
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let maxFalseAlarm, !(maxFalseAlarm >= 0 && maxFalseAlarm <= 1) {
            throw ValidationError("--max-false-alarm must be in 0…1 (a fraction), not \(maxFalseAlarm)")
        }
        guard maxSettings >= 1 else { throw ValidationError("--max-settings must be at least 1") }
    }

    func run() throws {
        var o = VADTuneOptions(audioDirectory: audio, labelDirectory: labels, reportDirectory: report)
        o.referenceSuffix = referenceSuffix
        o.base = try parameters.configuration()
        o.grid = try VADGrid.load(file: grid, set: axes)
        o.objective = objective
        o.maxFalseAlarm = maxFalseAlarm
        o.maxSettings = maxSettings
        o.resampler = resampler
        let printer = ReportPrinter(output)
        let bar = output.progressBar()
        defer { bar.finish() }
        let summary = try VADTuner.tune(o, notes: printer.note, progress: bar.update)
        bar.finish()
        try printer.print(summary, text: summary.text)
    }
}
