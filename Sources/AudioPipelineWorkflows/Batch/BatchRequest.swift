import AudioPipelineCore
import Foundation

/// A batch as a command runs it: which inputs, where their outputs go, and how it runs. The CLI's
/// batch-capable commands (convert, frame, deframe, vad detect, info) fill one in from their flags;
/// an app does the same and passes its own per-file job.
public struct BatchRequest: Sendable {
    /// Which inputs.
    public var selection = BatchSelection()
    /// How the batch runs.
    public var options = BatchOptions()
    /// Where outputs go (the input tree mirrored under it); nil when the job writes no files.
    public var outputDirectory: String?
    /// The outputs' extension (nil: the job writes no output file, as `info`).
    public var outputExtension: String?
    /// Output names under `outputDirectory` (see `OutputTree.path`).
    public var nameTemplate = OutputTree.defaultTemplate

    /// An empty request: fill in the selection and outputs.
    public init() {}

    /// A batch over `paths` (files and directories) of the files with these extensions, writing
    /// outputs with extension `outputExtension` under `outputDirectory` (nil, nil: no outputs).
    public init(paths: [String], extensions: Set<String>, outputDirectory: String?, outputExtension: String?) {
        (selection.paths, selection.extensions) = (paths, extensions)
        (self.outputDirectory, self.outputExtension) = (outputDirectory, outputExtension)
    }

    /// Whether arguments ask for a batch: more than one path, a directory, or any batch option.
    public static func isBatch(paths: [String], outputDirectory: String?, batchOptionGiven: Bool) -> Bool {
        outputDirectory != nil || batchOptionGiven || paths.count > 1
            || paths.contains(where: BatchSelection.isDirectory)
    }

    /// `isBatch`, refusing in one file's run the options only a batch reads (`convert a.wav b.wav
    /// --include '*.wav'` converted a.wav): `--include`, `--exclude`, `--name` (other than the
    /// default), `--fail-fast`.
    /// - Throws: a usage error (exit code 64) naming the first one given.
    public static func isBatch(
        paths: [String], outputDirectory: String?, batchOptionGiven: Bool, include: [String], exclude: [String],
        name: String, failFast: Bool
    ) throws(AudioPipelineError) -> Bool {
        if isBatch(paths: paths, outputDirectory: outputDirectory, batchOptionGiven: batchOptionGiven) { return true }
        let given = [
            ("--include", !include.isEmpty), ("--exclude", !exclude.isEmpty),
            ("--name", name != OutputTree.defaultTemplate), ("--fail-fast", failFast),
        ]
        if let option = given.first(where: \.1)?.0 {
            throw AudioPipelineError(
                .invalidConfiguration, "\(option) is for a batch's files, and this run has one file: drop \(option)")
        }
        return false
    }

    /// Each input with its output, refusing collisions and an empty set before anything runs.
    public func plan() throws(AudioPipelineError) -> [BatchItem] {
        // An empty directory would put every output at the filesystem's root (`{dir}/{stem}.{ext}`).
        if outputExtension != nil && outputDirectory == "" {
            throw AudioPipelineError(.outputFailed, "an empty output directory (-o \"\"): give a directory")
        }
        var selection = selection
        selection.skipDirectory = outputDirectory
        let inputs = try selection.collect()
        if !inputs.isEmpty && outputExtension != nil && (outputDirectory == nil || outputDirectory == "-") {
            throw AudioPipelineError(.invalidConfiguration, Self.directoryNeeded(selection.paths))
        }
        let items = try OutputTree.plan(
            inputs, directory: outputDirectory, ext: outputExtension, template: nameTemplate)
        try refuseOverwritingInputs(items)
        return items
    }

    /// Why a batch needs `-o DIR`, naming what made it a batch: a directory argument (`convert
    /// calls/ out.wav`), or several inputs.
    static func directoryNeeded(_ paths: [String]) -> String {
        let why =
            paths.first(where: BatchSelection.isDirectory).map { "\($0) is a directory: " }
            ?? (paths.count > 1
                ? "\(paths.count) inputs (\(paths.prefix(3).joined(separator: ", "))\(paths.count > 3 ? ", …" : "")): "
                : "")
        return why + "a batch writes files: give an output directory, -o DIR"
    }

    /// Neither an output (an input list's `output` column may name anything) nor the `--report`
    /// file may be the input list, an input or (the report) an output: each would be overwritten.
    func refuseOverwritingInputs(_ items: [BatchItem]) throws(AudioPipelineError) {
        var paths = SamePathGuard.Canonicalizer()
        let list = selection.inputList.flatMap { $0 == "-" ? nil : paths.canonical($0) }
        if let list, let item = items.first(where: { $0.output.map { paths.canonical($0) } == list }) {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(item.output!): output of \(item.input.path) is the input list; choose another output path")
        }
        guard let report = options.reportPath else { return }
        let r = paths.canonical(report)
        let clash =
            r == list
            ? "the input list"
            : items.first { paths.canonical($0.input.path) == r }.map { "the input file \($0.input.path)" }
                ?? items.first { $0.output.map { paths.canonical($0) } == r }.map { "the output of \($0.input.path)" }
        if let clash {
            throw AudioPipelineError(.invalidConfiguration, "\(report): --report is \(clash); choose another path")
        }
    }

    /// Plans and runs `job` over the inputs (see `BatchRunner.run`).
    public func run(
        progress: @escaping (BatchProgress) -> Void = { _ in }, result: @escaping (BatchResult) -> Void = { _ in },
        job: @escaping BatchRunner.Job
    ) throws(AudioPipelineError) -> (items: [BatchItem], summary: BatchSummary) {
        let items = try plan()
        let summary = try BatchRunner.run(items, options: options, progress: progress, result: result, job: job)
        return (items, summary)
    }
}
