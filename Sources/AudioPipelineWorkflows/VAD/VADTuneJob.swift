import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// What `vad tune` should do.
public struct VADTuneOptions: Sendable {
    /// The recordings' directory.
    public var audioDirectory: String
    /// The labels' directory (Audacity labels, one per recording).
    public var labelDirectory: String
    /// The name suffix of a recording's far-end reference beside it.
    public var referenceSuffix = ".ref.wav"
    /// The baseline: the configuration the grid varies, and the one kept unless tuning beats it
    /// (the defaults, or `--config CURRENT.json`: what the user runs today).
    public var base = VADConfiguration()
    /// The baseline's barge-in policy (what the client does with the detector's decisions).
    public var basePolicy = BargeInPolicy()
    /// The parameters swept and their values.
    public var grid = VADGrid.default
    /// With far-end references and no policy axis in `grid`, sweep `VADGrid.bargeInAxes` too.
    public var bargeInAxes = true
    /// nil: `barge-in` when any recording has a far-end reference, else `f1`.
    public var objective: VADSweep.Objective?
    /// The limits a chosen setting must meet (voice-agent defaults).
    public var constraints = VADConstraints()
    /// Hold recordings with references to `constraints.maxOnsetLatencyMs` too. By default they are
    /// held to the barge-in latency limit instead: their user onsets come under the agent's echo,
    /// where the barge-in latency is what the user lives (`--max-onset-latency-ms` given: true).
    public var onsetLatencyWithReferences = false
    /// A `manifest.csv` column whose values group files for the cross-validation (a talker, a room:
    /// one group never on both sides); nil: every file its own group.
    public var groupBy: String?
    /// With no setting meeting the constraints, write the closest to best.json anyway (marked so).
    public var bestEffort = false
    /// Most settings swept (a larger grid is refused before anything runs).
    public var maxSettings = VADGrid.maximumSettings
    /// Converts references whose rate differs from their microphone's.
    public var resampler = ResamplerChoice.default
    /// The report directory (written whole, or not at all).
    public var reportDirectory: String
    /// The columns of the corpus's `manifest.csv` whose values make a condition for the report's
    /// per-condition table (nil: `condition`, else `noise`, if the manifest has one).
    public var conditionColumns: [String]?
    /// `FRAMEWORK=SCORES_DIR` (`--compare`): each framework tuned the same way beside the energy VAD.
    public var compare: [String] = []

    /// Tuning of the corpus in `audioDirectory` and `labelDirectory` into `reportDirectory`.
    public init(audioDirectory: String, labelDirectory: String, reportDirectory: String) {
        self.audioDirectory = audioDirectory
        self.labelDirectory = labelDirectory
        self.reportDirectory = reportDirectory
    }

    /// The options as `vad tune` takes them: `labels` nil for labels beside the audio, `conditionBy`
    /// as comma-separated manifest columns. Refuses a `maxSettings` below 1.
    public init(
        audio: String, labels: String?, report: String, objective: VADSweep.Objective?, constraints: VADConstraints,
        groupBy: String?, bestEffort: Bool, conditionBy: String?, referenceSuffix: String, maxSettings: Int,
        resampler: ResamplerChoice
    ) throws(AudioPipelineError) {
        guard maxSettings >= 1 else {
            throw AudioPipelineError(.invalidConfiguration, "--max-settings must be at least 1, not \(maxSettings)")
        }
        self.init(audioDirectory: audio, labelDirectory: labels ?? audio, reportDirectory: report)
        self.objective = objective
        self.constraints = constraints
        self.groupBy = groupBy
        self.bestEffort = bestEffort
        conditionColumns = conditionBy?.split(separator: ",").map(String.init)
        self.referenceSuffix = referenceSuffix
        self.maxSettings = maxSettings
        self.resampler = resampler
    }
}

/// What `vad tune` found (`summary.json` in the report, and `vad tune --json`): the baseline and
/// the chosen setting, each scored on all files (`tuning`) and as the tuning does on files it was
/// not chosen on (`crossValidated`); which to use, and why.
public struct VADTuningSummary: WorkflowReport, Codable, Hashable {
    /// The figures users live by, for one setting over some files (fresh-onset latencies).
    public struct Figures: Codable, Sendable, Hashable {
        /// Frame F1.
        @NullWhenAbsent public var f1: Double?
        /// False-alarm rate (fraction of non-speech frames).
        @NullWhenAbsent public var falseAlarm: Double?
        /// Miss rate (fraction of speech frames).
        @NullWhenAbsent public var miss: Double?
        /// False triggers per minute.
        @NullWhenAbsent public var falseTriggersPerMinute: Double?
        /// Fresh-onset latency p50, ms.
        @NullWhenAbsent public var onsetLatencyP50Ms: Double?
        /// Fresh-onset latency p90, ms.
        @NullWhenAbsent public var onsetLatencyP90Ms: Double?
        /// With far-end references (else null): the session simulator's barge-in figures.
        @NullWhenAbsent public var falseBargeInsPerMinute: Double?
        /// Missed barge-ins: a fraction of the user onsets during agent playout.
        @NullWhenAbsent public var missedBargeIns: Double?
        /// Barge-in latency p50 over the answered onsets (nearest rank), ms.
        @NullWhenAbsent public var bargeInLatencyP50Ms: Double?
        /// Barge-in latency p90 over the answered onsets (nearest rank), ms.
        @NullWhenAbsent public var bargeInLatencyP90Ms: Double?

        /// The figures of `m` (nil where it is NaN).
        public init(_ m: VADScoring.Metrics) {
            func finite(_ v: Double) -> Double? { v.isFinite ? v : nil }
            f1 = finite(m.f1)
            falseAlarm = finite(m.falseAlarm)
            miss = finite(m.miss)
            falseTriggersPerMinute = finite(m.falseTriggersPerMinute)
            onsetLatencyP50Ms = finite(m.freshLatencyP50)
            onsetLatencyP90Ms = finite(m.freshLatencyP90)
            falseBargeInsPerMinute = finite(m.falseBargeInsPerMinute)
            missedBargeIns = finite(m.missedBargeIns)
            bargeInLatencyP50Ms = finite(m.bargeInLatencyP50)
            bargeInLatencyP90Ms = finite(m.bargeInLatencyP90)
        }
    }

    /// One setting and its figures.
    public struct Candidate: Codable, Sendable, Hashable {
        /// The swept parameters' values.
        public var setting: [String: Double]
        /// On all files.
        public var tuning: Figures
        /// How the choice does on files it was not made on (the baseline, not chosen: its tuning
        /// figures); nil without at least two folds.
        @NullWhenAbsent public var crossValidated: Figures?
    }

    /// The objective's name (`f1`, `fa` …).
    public var objective: String
    /// Settings swept, and how many meet the constraints on all files.
    public var settings: Int
    /// Of them, meeting the constraints.
    public var qualified: Int
    /// The limits applied.
    public var constraints: VADConstraints
    public var warnings: [String]
    /// The baseline (the defaults or `--config`).
    public var baseline: Candidate
    /// nil when no setting meets the constraints.
    @NullWhenAbsent public var chosen: Candidate?
    /// When none does: the closest settings (all-files figures).
    public var closest: [Candidate]
    /// `chosen`, `baseline` (kept), or `none` (no setting meets the constraints).
    public var use: String
    /// Why, in words.
    public var reason: String
    /// Cross-validation folds (fewer than two: none).
    public var folds: Int
    /// The spread of the per-fold gains over the baseline (a standard deviation of the objective).
    @NullWhenAbsent public var foldSpread: Double?
    /// Recordings tuned on.
    public var files: Int
    /// Of them, with a far-end reference.
    public var filesWithReference: Int
    /// Audio tuned on, minutes.
    public var minutes: Double
    /// best.json's path when one was written.
    @NullWhenAbsent public var bestJSON: String?
    /// With `--compare`: the energy VAD's choice beside each framework's (absent otherwise).
    public var comparison: [VADComparisonRow]?
    /// best.json holds the closest setting though none meets the constraints.
    public var bestEffort: Bool
    /// Files left out (no labels, no audio), with the reason.
    public var skipped: [String]
    /// The report directory.
    public var report: String
    /// Wall time, s.
    public var elapsedSeconds: Double
}

/// `vad tune`: chooses VAD settings on a labelled corpus.
public enum VADTuner {
    /// Loads the corpus, sweeps the grid, chooses (cross-validated), writes the report directory.
    /// Throws nothing when no setting meets the constraints: `use == "none"` says so (the CLI exits 1).
    /// - Parameters:
    ///   - o: the corpus, the grid, the constraints and the report directory.
    ///   - notes: called with what was skipped or adjusted and what is about to be swept,
    ///     before the sweep (the CLI prints them on stderr as they come).
    ///   - progress: called as files are analysed and settings swept.
    public static func tune(
        _ o: VADTuneOptions, notes: (String) -> Void = { _ in }, progress: ProgressHandler = { _ in }
    ) throws(AudioPipelineError) -> VADTuningSummary {
        var o = o
        o.reportDirectory = PathParts.normalized(o.reportDirectory)  // `--report tuned/` prints tuned/index.html
        let start = DispatchTime.now().uptimeNanoseconds
        let references = try ReferenceNaming(suffix: o.referenceSuffix)
        var grid = o.grid.including(o.base, policy: o.basePolicy)
        var settings = try Self.settings(o, grid: grid)
        _ = try VADComparison.parse(o.compare)  // a malformed --compare fails before the sweep
        try SamePathGuard.refuse(inputs: [o.audioDirectory, o.labelDirectory], insideReport: o.reportDirectory)
        let report = try ReportDirectory(path: o.reportDirectory)
        let corpus = try VADCorpus(
            audioDirectory: o.audioDirectory, labelDirectory: o.labelDirectory, references: references,
            frameMilliseconds: Set(settings.map(\.configuration.frameMilliseconds)), resampler: o.resampler)
        for s in corpus.skipped { notes("skipped \(s)") }
        let manifest = try VADManifest.find(audioDirectory: o.audioDirectory, labelDirectory: o.labelDirectory)
        let folds = try Self.folds(corpus, manifest: manifest, groupBy: o.groupBy)
        // The manifest's conditions (a missing column is an error before the sweep, not after).
        var conditions: [String] = []
        var conditionColumns: [String] = []
        if let manifest, let columns = try manifest.conditionColumns(o.conditionColumns) {
            conditionColumns = columns
            conditions = corpus.items.map { manifest.condition(of: $0.name, columns: columns) }
            notes("\(manifest.path): \(Set(conditions).count) conditions by \(columns.joined(separator: ", "))")
        } else if o.conditionColumns != nil {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--condition-by needs a manifest.csv in \(o.audioDirectory) or \(o.labelDirectory)")
        }
        let withReference = corpus.items.filter { $0.referencePath != nil }.count
        if withReference > 0 {
            // What barge-in lives by: the client's policy is swept too, unless the grid says otherwise.
            if o.bargeInAxes && !o.grid.axes.contains(where: { VADSweep.policyNames.contains($0.name) }) {
                var withPolicy = VADGrid(axes: o.grid.axes + VADGrid.bargeInAxes)
                withPolicy.origins = o.grid.origins
                grid = withPolicy.including(o.base, policy: o.basePolicy)
                settings = try Self.settings(o, grid: grid)
            }
            o.objective = o.objective ?? .bargeIn
            if !o.onsetLatencyWithReferences { o.constraints.maxOnsetLatencyMs = nil }
            notes(
                "\(withReference) of \(corpus.items.count) files have a far-end reference: barge-ins scored as the "
                    + "session simulator counts them, objective \(o.objective!.rawValue)")
        } else {
            o.objective = o.objective ?? .f1
            o.constraints = o.constraints.withoutBargeIns
        }
        let objective = o.objective!
        // `settings(_:grid:)` made sure the baseline is among them.
        let baseline = settings.firstIndex { $0.configuration == o.base && $0.policy == o.basePolicy }!
        notes(
            "\(corpus.items.count) files (\(withReference) with a reference), \(settings.count) settings, "
                + "\(folds.folds.count) folds")
        let outcomes = try VADSweep.run(settings, on: corpus, progress: progress)
        let selection = VADSelection(
            outcomes: outcomes, baseline: baseline, folds: folds, objective: objective, constraints: o.constraints,
            fileNames: corpus.items.map(\.name))
        var summary = Self.summary(o, grid: grid, corpus: corpus, outcomes: outcomes, selection: selection)
        summary.folds = folds.folds.count
        let written = Self.written(summary, selection: selection, bestEffort: o.bestEffort)
        summary.bestJSON = written.map { _ in o.reportDirectory + "/best.json" }
        if !o.compare.isEmpty {
            // The setting best.json holds (or, with none, the baseline) is the one whose cost is timed.
            let shown = written ?? selection.baseline
            summary.comparison = try VADComparison.rows(
                o, energy: summary, setting: outcomes[shown].setting.configuration, corpus: corpus,
                into: report.temporaryPath, notes: notes)
        }
        summary.elapsedSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let writer = VADTuningReport(
            options: o, grid: grid, corpus: corpus, outcomes: outcomes, selection: selection, summary: summary,
            written: written, conditions: conditions, conditionColumns: conditionColumns)
        try writer.write(into: report)
        try report.publish()
        return summary
    }

    /// The settings of `grid`, after checking that every value the user gave is in a valid one.
    static func settings(_ o: VADTuneOptions, grid: VADGrid) throws(AudioPipelineError) -> [VADSweep.Setting] {
        let settings = try VADSweep.settings(
            base: o.base, policy: o.basePolicy, grid: grid, maximumSettings: o.maxSettings)
        guard settings.contains(where: { $0.configuration == o.base && $0.policy == o.basePolicy }) else {
            throw AudioPipelineError(
                .invalidConfiguration, "the grid has no valid setting (is every exit_db above every enter_db?)")
        }
        // A value the user gave that no valid setting uses is a mistake, not a value to drop quietly
        // (the baseline's own values keep every axis non-empty).
        for (name, values) in o.grid.axes {
            for v in values where !settings.contains(where: { $0[name] == v }) {
                var alone = VADSweep.Setting(configuration: o.base, policy: o.basePolicy, values: [:])
                alone[name] = v
                let why: String
                do {
                    try alone.configuration.validate()
                    try alone.policy.validate()
                    why = "it fails with every other axis's values"
                } catch {
                    why = error.message
                }
                throw grid.fault(name, "the grid's \(name)=\(NumberText.plain(v)) is in no valid setting: \(why)")
            }
        }
        return settings
    }

    /// The setting best.json gets: the chosen one when tuning beat the baseline, the baseline when it
    /// did not; with no setting meeting the constraints, the closest with `bestEffort`, else none.
    static func written(_ s: VADTuningSummary, selection: VADSelection, bestEffort: Bool) -> Int? {
        switch s.use {
        case "chosen": return selection.chosen
        case "baseline": return selection.baseline
        default: return bestEffort ? selection.closest.first : nil
        }
    }

    /// Leave-one-file-out up to 10 files (or groups of `groupBy`'s manifest column), else 10 folds.
    static func folds(
        _ corpus: VADCorpus, manifest: VADManifest?, groupBy: String?
    ) throws(AudioPipelineError) -> VADFolds {
        try folds(names: corpus.items.map(\.name), manifest: manifest, groupBy: groupBy)
    }

    static func folds(
        names: [String], manifest: VADManifest?, groupBy: String?
    ) throws(AudioPipelineError) -> VADFolds {
        guard let groupBy else { return VADFolds(files: names) }
        guard let manifest else {
            throw AudioPipelineError(
                .invalidConfiguration, "--group-by \(groupBy) needs a manifest.csv beside the recordings or labels")
        }
        guard manifest.header.contains(groupBy) else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(manifest.path): no column '\(groupBy)' for --group-by (columns: "
                    + "\(manifest.header.joined(separator: ", ")))")
        }
        let groups = try names.map { (name) throws(AudioPipelineError) -> String in
            guard let value = manifest.rows[name]?[groupBy] else {
                throw AudioPipelineError(.invalidData, "\(manifest.path): no row for \(name) (--group-by \(groupBy))")
            }
            return value
        }
        return VADFolds(files: names, groups: groups)
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
    /// The directory, as given (trailing slashes dropped).
    public let path: String
    /// The temporary directory beside it that is written, and renamed to `path` by `publish()`.
    public let temporaryPath: String
    private var published = false
    /// The file that marks a directory as an audiopipe report (which a later report may replace).
    public static let marker = ".audiopipe-report"

    /// - Parameter path: the directory to create or replace; trailing slashes are dropped (`-o sim/`
    ///   is `sim`, and its files print as `sim/report.html`).
    public init(path: String) throws(AudioPipelineError) {
        let path = PathParts.normalized(path)
        self.path = path
        guard path != "-" else {
            throw AudioPipelineError(.outputFailed, "-: a report is a directory, not standard output; give a directory")
        }
        // Else the rename onto it fails at the very end, after all the work.
        guard !AtomicOutput.split(path).name.isEmpty else {
            throw AudioPipelineError(
                .outputFailed,
                path.isEmpty
                    ? "an empty output directory path: give a directory name"
                    : "\(path): give a directory below it for the report")
        }
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
        // Its directories one by one under the temporary directory, never that directory itself,
        // and under the lock an interruption removes it with (TemporaryFiles.creatingInside).
        let fd = try TemporaryFiles.creatingInside { () throws(AudioPipelineError) -> Int32 in
            var dir = temporaryPath
            for part in AtomicOutput.split(relative).directory.split(separator: "/") where part != "." {
                dir += "/" + part
                guard mkdir(dir, 0o777) == 0 || errno == EEXIST else {
                    throw AudioPipelineError(
                        .outputFailed,
                        "\(path)/\(relative): cannot create its directory: \(String(cString: strerror(errno)))")
                }
            }
            let fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
            guard fd >= 0 else {
                throw AudioPipelineError(.outputFailed, "\(path)/\(relative): \(String(cString: strerror(errno)))")
            }
            return fd
        }
        defer { close(fd) }
        try Array(text.utf8).withUnsafeBufferPointer { (b) throws(AudioPipelineError) in
            try FileDescriptorIO.writeAll(fd, UnsafeRawBufferPointer(b), path: path + "/" + relative)
        }
    }

    /// Puts the finished directory in place of `path` (an old report there is replaced), at once or,
    /// inside `TemporaryFiles.publishingLast`, once the command's report is written: a report that
    /// cannot be printed leaves the old directory as it was.
    public func publish() throws(AudioPipelineError) {
        try Self.checkReplaceable(path)  // again: the directory may have been filled meanwhile
        try TemporaryFiles.publish(temporaryPath, as: path)
        published = true
    }
}
