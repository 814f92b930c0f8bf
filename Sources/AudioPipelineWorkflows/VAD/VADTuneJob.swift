import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// What `vad tune` should do.
public struct VADTuneOptions: Sendable {
    public var audioDirectory: String
    public var labelDirectory: String
    public var referenceSuffix = ".ref.wav"
    /// The configuration the grid varies.
    public var base = VADConfiguration()
    public var grid = VADGrid.default
    public var objective = VADSweep.Objective.f1
    /// Only settings with a false-alarm rate at most this (0…1) compete, if any do.
    public var maxFalseAlarm: Double?
    public var maxSettings = VADGrid.maximumSettings
    /// Converts references whose rate differs from their microphone's.
    public var resampler = ResamplerChoice.default
    /// The report directory (written whole, or not at all).
    public var reportDirectory: String
    /// The columns of the corpus's `manifest.csv` whose values make a condition for the report's
    /// per-condition table (nil: `condition`, else `noise`, if the manifest has one).
    public var conditionColumns: [String]?

    public init(audioDirectory: String, labelDirectory: String, reportDirectory: String) {
        self.audioDirectory = audioDirectory
        self.labelDirectory = labelDirectory
        self.reportDirectory = reportDirectory
    }
}

/// What `vad tune` found; `vad tune --json` prints it.
public struct VADTuningSummary: WorkflowReport, Codable, Hashable {
    public var objective: String
    @NullWhenAbsent public var maxFalseAlarm: Double?
    public var files: Int
    public var filesWithReference: Int
    public var settings: Int
    /// Settings whose false alarm is within `maxFalseAlarm` (all settings without the constraint).
    public var qualified: Int
    /// The chosen setting's values of the swept parameters.
    public var best: [String: Double]
    /// The chosen setting's scores over the corpus (score.py's names).
    public var scores: VADScoring.Metrics
    public var skipped: [String]
    public var warnings: [String]
    public var report: String
    public var elapsedSeconds: Double
}

public enum VADTuner {
    /// Loads the corpus, sweeps the grid, writes the report directory.
    /// - Parameter notes: called with what was skipped or adjusted and what is about to be swept,
    ///   before the sweep (the CLI prints them on stderr as they come).
    public static func tune(
        _ o: VADTuneOptions, notes: (String) -> Void = { _ in }, progress: ProgressHandler = { _ in }
    ) throws(AudioPipelineError) -> VADTuningSummary {
        let start = DispatchTime.now().uptimeNanoseconds
        guard !o.referenceSuffix.isEmpty else {  // every recording would be its own reference
            throw AudioPipelineError(.invalidConfiguration, "--reference-suffix must not be empty (default .ref.wav)")
        }
        let settings = try VADSweep.settings(base: o.base, grid: o.grid, maximumSettings: o.maxSettings)
        guard !settings.isEmpty else {
            throw AudioPipelineError(
                .invalidConfiguration, "the grid has no valid setting (is every exit_db above every enter_db?)")
        }
        let report = try ReportDirectory(path: o.reportDirectory)
        let corpus = try VADCorpus(
            audioDirectory: o.audioDirectory, labelDirectory: o.labelDirectory, referenceSuffix: o.referenceSuffix,
            frameMilliseconds: Set(settings.map(\.configuration.frameMilliseconds)), resampler: o.resampler)
        for s in corpus.skipped { notes("skipped \(s)") }
        // The manifest's conditions (a missing column is an error before the sweep, not after).
        var conditions: [String] = [], conditionColumns: [String] = []
        if let manifest = try VADManifest.find(audioDirectory: o.audioDirectory, labelDirectory: o.labelDirectory),
            let columns = try manifest.conditionColumns(o.conditionColumns)
        {
            conditionColumns = columns
            conditions = corpus.items.map { manifest.condition(of: $0.name, columns: columns) }
            notes("\(manifest.path): \(Set(conditions).count) conditions by \(columns.joined(separator: ", "))")
        } else if o.conditionColumns != nil {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--condition-by needs a manifest.csv in \(o.audioDirectory) or \(o.labelDirectory)")
        }
        let withReference = corpus.items.filter { $0.referencePath != nil }.count
        notes("\(corpus.items.count) files (\(withReference) with a reference), \(settings.count) settings")
        let outcomes = try VADSweep.run(settings, on: corpus, progress: progress)
        let (best, qualified) = VADSweep.best(outcomes, objective: o.objective, maxFalseAlarm: o.maxFalseAlarm)
        let writer = VADTuningReport(
            options: o, corpus: corpus, outcomes: outcomes, best: best, qualified: qualified, conditions: conditions,
            conditionColumns: conditionColumns)
        try writer.write(into: report)
        try report.publish()
        return VADTuningSummary(
            objective: o.objective.rawValue, maxFalseAlarm: o.maxFalseAlarm, files: corpus.items.count,
            filesWithReference: withReference, settings: outcomes.count, qualified: qualified,
            best: Dictionary(uniqueKeysWithValues: o.grid.axes.map { ($0.name, best.setting.configuration[$0.name]!) }),
            scores: best.metrics, skipped: corpus.skipped, warnings: corpus.warnings, report: o.reportDirectory,
            elapsedSeconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}

/// A directory written whole or not at all: files go into a temporary directory beside it, which
/// `publish()` renames into place (an existing report of that name is replaced only then). Dropped
/// unpublished, the temporary directory is removed.
///
/// A report replaces its directory whole, so the directory must be new, empty, or an earlier
/// report — one holding `marker`, which every report gets. Anything else (recordings, a user's
/// own files) is refused before any work, never deleted.
public final class ReportDirectory {
    public let path: String
    public let temporaryPath: String
    private var published = false
    /// The file that marks a directory as an audiopipe report (which a later report may replace).
    public static let marker = ".audiopipe-report"

    public init(path: String) throws(AudioPipelineError) {
        self.path = path
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue {
            throw AudioPipelineError(
                .outputFailed, "\(path): exists and is not a directory; give a new or existing directory for the report"
            )
        }
        try Self.checkReplaceable(path)
        let (parent, name) = AtomicOutput.split(path)
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDir), isDir.boolValue else {
            throw AudioPipelineError(.outputFailed, "\(path): directory \(parent) does not exist")
        }
        temporaryPath = parent + "/" + AtomicOutput.temporaryName(for: name)
        TemporaryFiles.register(temporaryPath)
        guard mkdir(temporaryPath, 0o777) == 0 else {
            let reason = String(cString: strerror(errno))
            TemporaryFiles.unregister(temporaryPath)
            throw AudioPipelineError(.outputFailed, "\(path): cannot create a directory in \(parent): \(reason)")
        }
        try write(Self.marker, "An audiopipe report: a later report written here replaces this directory whole.\n")
    }

    /// Refuses an existing directory that is neither empty nor an earlier report.
    static func checkReplaceable(_ path: String) throws(AudioPipelineError) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path), !entries.isEmpty,
            !entries.contains(marker)
        else { return }
        let shown = entries.sorted().prefix(3).joined(separator: ", ") + (entries.count > 3 ? ", …" : "")
        throw AudioPipelineError(
            .outputFailed,
            "\(path): holds files that are not an audiopipe report (\(shown)); a report replaces its directory "
                + "whole, so give a new or empty directory (or an earlier report's)")
    }

    deinit { if !published { TemporaryFiles.remove(temporaryPath) } }

    /// Writes one file (a relative path; its directory is created).
    public func write(_ relative: String, _ text: String) throws(AudioPipelineError) {
        let full = temporaryPath + "/" + relative
        let dir = AtomicOutput.split(full).directory
        if !FileManager.default.fileExists(atPath: dir) {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw AudioPipelineError(.outputFailed, "\(path)/\(relative): cannot create its directory")
            }
        }
        let fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw AudioPipelineError(.outputFailed, "\(path)/\(relative): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        try Array(text.utf8).withUnsafeBufferPointer { (b) throws(AudioPipelineError) in
            try FileDescriptorIO.writeAll(fd, UnsafeRawBufferPointer(b), path: path + "/" + relative)
        }
    }

    /// Puts the finished directory in place of `path` (an old report there is removed).
    public func publish() throws(AudioPipelineError) {
        try Self.checkReplaceable(path)  // again: the directory may have been filled meanwhile
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            // rename(2) cannot replace a non-empty directory: move the old one aside first.
            let (parent, name) = AtomicOutput.split(path)
            let old = parent + "/" + AtomicOutput.temporaryName(for: name + ".old")
            guard rename(path, old) == 0 else {
                throw AudioPipelineError(
                    .outputFailed, "\(path): cannot replace the old report: \(String(cString: strerror(errno)))")
            }
            try TemporaryFiles.publish(temporaryPath, as: path)
            try? FileManager.default.removeItem(atPath: old)
        } else {
            try TemporaryFiles.publish(temporaryPath, as: path)
        }
        published = true
    }
}

extension VADTuningSummary {
    /// The human summary `audiopipe` prints: the choice and why, its scores, where the report is.
    public var text: String {
        let m = scores
        var why = "\(objective) of \(settings) settings"
        if let limit = maxFalseAlarm {
            let pct = NumberText.plain((limit * 1000).rounded() / 10) + " %"
            why =
                qualified > 0
                ? "\(objective) among the \(qualified) of \(settings) settings with false alarm ≤ \(pct)"
                : why + "; none kept false alarm ≤ \(pct), so the limit was set aside"
        }
        return String(
            format:
                "best (%@): F1 %.3f, precision %.3f, recall %.3f, false alarm %.1f %%, fresh onset latency p50 "
                + "%.0f ms, %.2f false triggers/min\n  %@\nswept in %.1f s -> %@/best.json; the report: %@/index.html",
            why, m.f1, m.precision, m.recall, m.falseAlarm * 100, m.freshLatencyP50, m.falseTriggersPerMinute,
            best.keys.sorted().map { "\($0)=\(NumberText.plain(best[$0]!))" }.joined(separator: " "), elapsedSeconds,
            report, report)
    }
}
