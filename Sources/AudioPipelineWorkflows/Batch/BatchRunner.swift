import AudioPipelineCore
import Dispatch
import Foundation

/// How a batch runs.
public struct BatchOptions: Sendable {
    /// Files processed at once, each by its own worker streaming one file (default: the cores).
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Stop at the first failure (files already running finish).
    public var failFast = false
    /// Append one JSON line per finished file here (`BatchResult`), flushed as it is written.
    public var reportPath: String?
    /// Skip inputs whose last line in the report says ok for the same input (size, mtime), the same
    /// options and an output that exists.
    public var resume = false
    /// Take only this shard's inputs.
    public var shard: Shard?
    /// Identifies the options that shape the outputs (`digest(_:)`), for `resume`.
    public var optionsDigest = ""

    /// On every core; no report, resume or shard.
    public init() {}

    /// The most workers `--jobs` may ask for, in every command that takes it (a big server's cores;
    /// more would only be threads waiting on the disk).
    public static let maximumJobs = 1024

    /// The defaults with `jobs` workers when given (`--jobs`: 1…`maximumJobs`, else exit code 64).
    public init(jobs: Int?) throws(AudioPipelineError) {
        if let jobs {
            self.jobs = try Checked.integer(
                Double(jobs), in: 1...Self.maximumJobs, "--jobs", code: .invalidConfiguration)
        }
    }

    /// A short stable digest of option values (their full description): a resumed batch redoes
    /// files made with other options.
    public static func digest(_ values: Any...) -> String {
        String(Shard.hash(values.map { String(reflecting: $0) }.joined(separator: "|")), radix: 16)
    }
}

/// One file of a batch and where its output goes (nil: a job without an output file, such as info).
public struct BatchItem: Sendable, Hashable {
    /// The input.
    public var input: BatchInput
    /// Its output path.
    public var output: String?
}

/// What a job reports of one file.
public struct FileOutcome: Sendable {
    /// Audio processed, s.
    public var audioSeconds: Double
    /// Samples saturated.
    public var clippedSamples: Int
    /// What was wrong but did not stop the job (each names the file).
    public var warnings: [String]
    /// An outcome with the given figures.
    public init(audioSeconds: Double, clippedSamples: Int = 0, warnings: [String] = []) {
        self.audioSeconds = audioSeconds
        self.clippedSamples = clippedSamples
        self.warnings = warnings
    }
}

/// One line of the results file (`--report results.jsonl`).
public struct BatchResult: Codable, Sendable, Hashable {
    /// The input's path.
    public var input: String
    /// Its output's path.
    @NullWhenAbsent public var output: String?
    /// `ok` or `failed`.
    public var status: String
    /// Audio processed, s.
    public var audioSeconds: Double
    /// Samples saturated.
    public var clippedSamples: Int
    /// Why it failed (nil: ok).
    @NullWhenAbsent public var error: String?
    /// The exit status the file alone would have given (0, 65 …).
    public var exitCode: Int32
    /// What was wrong but did not stop it.
    public var warnings: [String]
    /// The digest of the options it ran with.
    public var optionsDigest: String
    /// The input as it was when processed (what `--resume` compares).
    public var inputSize: Int64
    /// The input's modification time, s since 1970.
    public var inputMtime: Double
    /// Wall time of its job, s.
    public var elapsedSeconds: Double

    /// What a person should see of this file as it finishes: its error, then its warnings (each
    /// names the file), or nothing.
    public var notices: [String] { (error.map { [$0] } ?? []) + warnings.map { "warning: \($0)" } }
}

/// Where a batch is.
public struct BatchProgress: Sendable {
    /// Files finished, files in all, and failures so far.
    public var done: Int, total: Int, failed: Int
    /// Audio processed so far, s.
    public var audioSeconds: Double

    /// `[####------]  40%  812/2000 files, 3 failed, 0.23 h audio, 410× realtime, ETA 25 s`.
    public func bar(elapsed: Double, width: Int = 24) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int(fraction * Double(width))
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return String(
            format: "[%@] %3.0f%%  %d/%d files, %d failed, %.2f h audio, %.0f× realtime, ETA %.0f s", bar,
            fraction * 100,
            done, total, failed, audioSeconds / 3600, audioSeconds / max(elapsed, 1e-9), eta)
    }
}

/// What a batch did; `--json` prints it.
public struct BatchSummary: WorkflowReport, Codable, Hashable {
    /// Files in the batch (this shard's).
    public var files: Int
    /// Files that succeeded.
    public var ok: Int
    /// Files that failed.
    public var failed: Int
    /// Skipped by `--resume` (already done).
    public var skipped: Int
    /// Audio processed, s.
    public var audioSeconds: Double
    /// Wall time, s.
    public var elapsedSeconds: Double
    /// Audio seconds per wall second.
    public var realtimeFactor: Double
    /// Files processed at once.
    public var jobs: Int
    /// The shard run (`2/8`), when one was.
    @NullWhenAbsent public var shard: String?
    /// The results file, when one was written.
    @NullWhenAbsent public var report: String?
    /// The failures, `input: reason` (the first 100).
    public var failures: [String]
    /// The exit status of the batch: 0, or the failure's of the earliest failing file in input order
    /// (not the first to finish: the status does not depend on `--jobs` or timing).
    public var exitCode: Int32

    /// The summary line the CLI prints.
    public var text: String {
        String(
            format: "%d files: %d ok, %d failed, %d skipped; %.3f h of audio in %.1f s (%.0f× realtime, %d jobs)",
            files, ok, failed,
            skipped, audioSeconds / 3600, elapsedSeconds, realtimeFactor, jobs)
            + (shard.map { "; shard \($0)" } ?? "") + (report.map { " -> \($0)" } ?? "")
    }
}

/// The batch engine: runs one job per file on `jobs` workers in this process, each streaming one
/// file at a time (memory does not grow with the number of files); a failing file is reported and
/// the batch goes on; each finished file's result is appended to the report as one line, written
/// whole and at once, so the report survives a crash and `resume` can pick up after it. Outputs
/// are whatever the job writes (every job writes atomically), so a partial output is never left.
public enum BatchRunner {
    /// The work on one file. An `AudioPipelineError` gives the result its message and exit code;
    /// any other error fails the file with its description and exit code 1.
    public typealias Job = @Sendable (BatchItem) throws -> FileOutcome

    /// Runs `job` over `items` (this shard's, not done before when resuming). `progress` and
    /// `result` (every finished file, in the order they finish: a report sink of the caller's own)
    /// are called one at a time, under the runner's lock, from the worker threads.
    public static func run(
        _ items: [BatchItem], options: BatchOptions, progress: @escaping (BatchProgress) -> Void = { _ in },
        result: @escaping (BatchResult) -> Void = { _ in }, job: @escaping Job
    ) throws(AudioPipelineError) -> BatchSummary {
        try TemporaryFiles.publishingEach { () throws(AudioPipelineError) in
            try runPublishingEach(items, options: options, progress: progress, result: result, job: job)
        }
    }

    private static func runPublishingEach(
        _ items: [BatchItem], options: BatchOptions, progress: @escaping (BatchProgress) -> Void,
        result: @escaping (BatchResult) -> Void, job: @escaping Job
    ) throws(AudioPipelineError) -> BatchSummary {
        let start = DispatchTime.now().uptimeNanoseconds
        let mine = options.shard.map { s in items.filter { s.contains($0.input.relativePath) } } ?? items
        let previous = options.resume ? try ResultsFile.read(options.reportPath) : [:]
        let todo = mine.filter { !ResultsFile.isDone($0, previous[$0.input.path], digest: options.optionsDigest) }
        // All of this shard's outputs: a temporary left beside an output finished since is stale too.
        OutputTree.removeStaleTemporaries(of: mine)
        if let report = options.reportPath { try OutputTree.makeParent(of: report) }
        let results = try ResultsFile(path: options.reportPath, append: options.resume)
        let state = State(todo, progress: progress, result: result)
        let workers = max(1, min(options.jobs, todo.count))
        // Threads of our own, not `concurrentPerform` (which never runs more at once than there are
        // cores): `--jobs` above the core count is for inputs on slow or remote storage.
        let group = DispatchGroup()
        for _ in 0..<workers {
            group.enter()
            let worker = Thread {
                while let (index, item) = state.next(failFast: options.failFast) {
                    let result = process(item, options.optionsDigest, job)
                    results.append(result)
                    state.finished(result, index: index)
                }
                group.leave()
            }
            worker.stackSize = 8 << 20
            worker.start()
        }
        group.wait()
        // Those of files that failed: the directories above this run's outputs and report.
        let outputs = todo.compactMap(\.output) + (options.reportPath.map { [$0] } ?? [])
        TemporaryFiles.removeEmptyDirectories(among: OutputTree.parents(of: outputs))
        if let e = results.error { throw e }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return state.summary(
            files: mine.count, skipped: mine.count - todo.count, elapsed: elapsed, jobs: workers, options: options)
    }

    /// Runs the job on one file, turning any error into a failed result.
    static func process(_ item: BatchItem, _ digest: String, _ job: Job) -> BatchResult {
        let started = DispatchTime.now().uptimeNanoseconds
        var st = stat()
        let stated = stat(item.input.path, &st) == 0
        var result = BatchResult(
            input: item.input.path, output: item.output, status: "ok", audioSeconds: 0, clippedSamples: 0, error: nil,
            exitCode: 0, warnings: [], optionsDigest: digest, inputSize: stated ? Int64(st.st_size) : -1,
            inputMtime: stated ? ResultsFile.mtime(st) : 0, elapsedSeconds: 0)
        do {
            if let output = item.output { try OutputTree.makeParent(of: output) }
            let outcome = try job(item)
            result.audioSeconds = outcome.audioSeconds
            result.clippedSamples = outcome.clippedSamples
            result.warnings = outcome.warnings
        } catch let error as AudioPipelineError {
            (result.status, result.error, result.exitCode) = ("failed", error.message, ExitStatus(error.code).rawValue)
        } catch {
            (result.status, result.error, result.exitCode) = ("failed", "\(item.input.path): \(error)", 1)
        }
        result.elapsedSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return result
    }

    /// The shared work list and counts, behind one lock.
    final class State: @unchecked Sendable {
        private let lock = NSLock()
        private let queue: [BatchItem]
        private var nextIndex = 0
        private var stopped = false
        private var done = 0, ok = 0, failed = 0, audio = 0.0
        private var failures: [String] = []
        /// The exit code of the earliest failing file in input order, and its index.
        private var firstFailure: Int32 = 0
        private var firstFailureIndex = Int.max
        private let total: Int
        /// Called under the lock, so callers need not be thread-safe.
        private let progress: (BatchProgress) -> Void
        private let result: (BatchResult) -> Void

        init(
            _ items: [BatchItem], progress: @escaping (BatchProgress) -> Void, result: @escaping (BatchResult) -> Void
        ) {
            queue = items
            total = items.count
            self.progress = progress
            self.result = result
        }

        /// The next file to run and its index in input order.
        func next(failFast: Bool) -> (Int, BatchItem)? {
            lock.lock()
            defer { lock.unlock() }
            guard !(failFast && stopped), nextIndex < queue.count else { return nil }
            nextIndex += 1
            return (nextIndex - 1, queue[nextIndex - 1])
        }

        func finished(_ r: BatchResult, index: Int) {
            lock.lock()
            defer { lock.unlock() }
            done += 1
            audio += r.audioSeconds
            if r.status == "ok" {
                ok += 1
            } else {
                failed += 1
                stopped = true
                if index < firstFailureIndex {
                    firstFailure = r.exitCode
                    firstFailureIndex = index
                }
                if failures.count < 100 { failures.append(r.error ?? "\(r.input): failed") }
            }
            result(r)
            progress(BatchProgress(done: done, total: total, failed: failed, audioSeconds: audio))
        }

        func summary(files: Int, skipped: Int, elapsed: Double, jobs: Int, options: BatchOptions) -> BatchSummary {
            BatchSummary(
                files: files, ok: ok, failed: failed, skipped: skipped, audioSeconds: audio, elapsedSeconds: elapsed,
                realtimeFactor: elapsed > 0 ? audio / elapsed : 0, jobs: jobs, shard: options.shard?.description,
                report: options.reportPath, failures: failures, exitCode: firstFailure)
        }
    }
}
