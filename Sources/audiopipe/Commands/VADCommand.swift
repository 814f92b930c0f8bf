import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows

struct VAD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vad", abstract: "Energy voice-activity detection for barge-in, optionally echo-aware.",
        subcommands: [VADDetect.self, VADTune.self])

    func run() throws { throw UsageError(missingSubcommandOf: Self.self) }
}

struct VADDetect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect", abstract: "Speech segments of a recording, as a streaming detector would decide them.",
        discussion: """
            Segments start when a streaming detector decided (as a live client experiences it); --align \
            back-dates onsets for offline labelling. --reference (what the client was playing) makes it \
            ignore that audio's echo. Formats: audacity, csv, json. Many files: IN... -o DIR (see convert; \
            NAME.ref.wav beside NAME.wav is its --reference). --explain says per segment which bands (excess \
            in dB over noise floor ⊕ echo) and rules opened it and which test closed it (with --json: an \
            `explain` object per segment); --frames FILE.csv every frame's (why a user was heard late).
              audiopipe vad detect mic.wav --reference played.wav --format json
              audiopipe vad detect mic.wav --reference played.wav --frames frames.csv -o mic.txt
              audiopipe vad detect mic.wav --explain -o mic.txt
              audiopipe vad detect mic.wav --config tuned.json --align -o labels.txt
              audiopipe vad detect mic.wav --scores scores/mic.csv --config tuned/best.json
            """)

    @Argument(help: "Microphone recording, or a batch's inputs.") var inputs: [String] = []
    @Option(help: "Far-end reference: what the client was playing.") var reference: String?
    @Option(parsing: .unconditional, help: "A batch's references: NAME + this suffix.") var referenceSuffix = ".ref.wav"
    @OptionGroup var parameters: VADParameterOptions
    @Option(help: "Output format: audacity, csv or json.") var format: LabelFormat = .audacity
    @Flag(help: "Back-date onsets (offline labelling) instead of the streaming timeline.") var align = false
    @Flag(help: "Say per segment which bands and rules opened it and what closed it.") var explain = false
    @Option(help: "CSV of what every frame's decision was made of (levels, echo, gates).") var frames: String?
    @Option(help: "Resampler for a reference at another rate.") var resampler: ResamplerChoice = .default
    @Option(help: "A VAD's scores (scripts/vad-scores.py): what the framework of --config reports.") var scores: String?
    @Option(name: dataOutput, help: help("Output file (default: stdout); a batch's directory."))
    var outputPath: String = "-"
    @OptionGroup var batch: BatchArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var options = VADDetectOptions()
        options.reference = reference
        options.align = align
        options.format = format
        options.resampler = resampler
        options.explain = explain
        options.frames = frames
        // With --scores, --config names a framework ({"pipecat": …}); else it is the energy VAD's.
        if try !options.emulate(scores: scores, config: parameters.config) {
            options.configuration = try parameters.configuration()
        }
        if try batch.isBatch(inputs, output: nil) {
            try options.checkForBatch()
            let pairing = try ReferenceNaming(suffix: referenceSuffix)
            return try batch.run(
                inputs, kinds: BatchSelection.audioExtensions, output: outputPath, ext: format.fileExtension,
                digest: "vad", options, referenceSuffix, report: output, references: pairing,
                job: BatchJobs.vadDetect(options, references: pairing))
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
