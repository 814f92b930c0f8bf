import ArgumentParser
import AudioPipelineCore
import AudioPipelineWorkflows

/// Many inputs (convert, frame, deframe, vad detect, info): paths, directories and lists, run on
/// every core, resumable, shardable. With one input and none of these, a command is as ever.
struct BatchArguments: ParsableArguments {
    @Flag(help: "Take the files in subdirectories of directory arguments too.") var recursive = false
    @Option(help: "Only files matching this glob (path or name; repeatable).") var include: [String] = []
    @Option(help: "Not the files matching this glob (repeatable).") var exclude: [String] = []
    @Option(help: "Inputs: a path a line, or CSV/JSONL with input (and output).") var inputList: String?
    @Option(name: [.customShort("j"), .long], parsing: .number, help: "Files at once (default: cores).") var jobs: Int?
    @Flag(help: "Stop at the first file that fails.") var failFast = false
    @Option(name: .customLong("report"), help: "Each file's result to this JSONL file.") var results: String?
    @Flag(help: "Skip the files --report says are done, with the same options and input.") var resume = false
    @Option(help: "One shard of the inputs: I/N, or auto (Slurm array, k8s Indexed Job).") var shard: String?
    @Option(parsing: .number, help: "With --shard auto in a Kubernetes Indexed Job: the number of shards.") var shards:
        Int?
    @Option(help: "Output names under -o DIR ({dir} {stem} {name} {ext}).") var name = OutputTree.defaultTemplate

    var optionGiven: Bool { recursive || inputList != nil || results != nil || shard != nil || jobs != nil }

    func isBatch(_ paths: [String], output: String?) throws -> Bool {
        try BatchRequest.isBatch(
            paths: paths, outputDirectory: output, batchOptionGiven: paths.isEmpty || optionGiven,
            include: include, exclude: exclude, name: name, failFast: failFast)
    }

    func validate() throws {
        do { _ = try BatchOptions(jobs: jobs) } catch { throw ValidationError(error.message) }
        if resume && results == nil { throw ValidationError("--resume needs the --report file of the earlier run") }
    }

    /// Where the batch's summary goes: it is the report, a note on stderr, or not shown.
    enum Summary { case report, note, none }

    /// Runs `job` over the inputs: failures printed as they come, the progress on a terminal, then
    /// `done` with the items, then the summary; exits non-zero when a file failed.
    func run(
        _ paths: [String], kinds: Set<String>, output: String?, ext: String?, digest: Any..., report: OutputOptions,
        summary style: Summary = .report, references: ReferenceNaming? = nil, job: @escaping BatchRunner.Job,
        done: ([BatchItem]) throws -> Void = { _ in }
    ) throws {
        var r = BatchRequest(paths: paths, extensions: kinds, outputDirectory: output, outputExtension: ext)
        r.selection.references = references
        r.selection.recursive = recursive
        r.selection.include = include
        r.selection.exclude = exclude
        r.selection.inputList = inputList
        r.nameTemplate = name
        r.options.failFast = failFast
        r.options.reportPath = results
        r.options.resume = resume
        r.options.jobs = jobs ?? r.options.jobs
        r.options.shard = try shard.map { try Shard.parse($0, shards: shards) }
        r.options.optionsDigest = BatchOptions.digest(digest)
        let bar = report.progressBar(), printer = ReportPrinter(report, dataOutputs: [output])
        defer { bar.finish() }
        let (items, summary) = try r.run(
            progress: { p in bar.update { p.bar(elapsed: $0) } },
            result: { f in
                if !f.notices.isEmpty { bar.finish() }
                f.error.map(Terminal.error)
                f.warnings.forEach { printer.note("warning: \($0)") }
            }, job: job)
        bar.finish()
        try done(items)
        if style == .report { try printer.print(summary, text: summary.text) }
        if style == .note { printer.note(summary.text) }
        if summary.exitCode != 0 { throw FailureExit(status: ExitStatus(rawValue: summary.exitCode) ?? .ioError) }
    }
}
