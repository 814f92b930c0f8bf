import AudioPipelineCore
import Dispatch
import Foundation

/// What `vad tune --scores DIR --emulate pipecat|livekit` should do.
public struct FrameworkTuneOptions: Sendable {
    /// The framework emulated (`--emulate`).
    public var framework: FrameworkVAD
    /// The recordings' directory (`--audio`).
    public var audioDirectory: String
    /// The labels' directory: Audacity labels `NAME.txt`, one per recording (`--labels`; by default
    /// the audio directory).
    public var labelDirectory: String
    /// `NAME.csv` per recording `NAME.*` (scripts/vad-scores.py).
    public var scoresDirectory: String
    /// The report directory (`--report`; written whole, or not at all); with `--compare`,
    /// REPORT/FRAMEWORK.
    public var reportDirectory: String
    /// `NAME=V1,V2,…` axes replacing the default grid's (`--set`).
    public var axes: [String] = []
    /// A JSON grid `{"confidence": [0.5, 0.7], …}` whose axes replace the default grid's (`--grid`),
    /// before `axes`.
    public var gridFile: String?
    /// The baseline: the framework's defaults, or `--config CURRENT.json` (what the user runs today).
    public var base: [String: Double]?
    /// What the choice maximises (`--objective`; default `f1`).
    public var objective = VADSweep.Objective.f1
    /// The limits a chosen setting must meet (voice-agent defaults); from `vad tune` without the
    /// barge-in ones, as the frameworks' decisions are scored by frames only.
    public var constraints = VADConstraints()
    /// A `manifest.csv` column whose values group files for the cross-validation (`--group-by`);
    /// nil: every file its own group.
    public var groupBy: String?
    /// With no setting meeting the constraints, write the closest to best.json anyway (marked so).
    public var bestEffort = false
    /// The name suffix of a recording's far-end reference (default `.ref.wav`): files so named are
    /// not taken for recordings.
    public var referenceSuffix = ".ref.wav"
    /// Most settings swept (`--max-settings`; a larger grid is refused before anything runs).
    public var maxSettings = VADGrid.maximumSettings

    /// The options `vad tune` shares with the energy tuner's (`energy`), then the framework's: the
    /// score directory, `--grid` file and `--set` axes, and `--config` (a `{"pipecat": {…}}` file) as
    /// the baseline.
    public init(
        _ framework: FrameworkVAD, like energy: VADTuneOptions, scores: String?, grid: String?, axes: [String],
        config: String?
    ) throws(AudioPipelineError) {
        guard let scores else {
            throw AudioPipelineError(
                .invalidConfiguration, "--emulate needs --scores DIR: score files NAME.csv (scripts/vad-scores.py)")
        }
        self.init(
            framework: framework, audioDirectory: energy.audioDirectory, labelDirectory: energy.labelDirectory,
            scoresDirectory: scores, reportDirectory: energy.reportDirectory)
        self.axes = axes
        gridFile = grid
        referenceSuffix = energy.referenceSuffix
        maxSettings = energy.maxSettings
        objective = energy.objective ?? .f1
        // The frameworks' decisions are scored by frames: barge-ins are the energy VAD's alone.
        constraints = energy.constraints.withoutBargeIns
        groupBy = energy.groupBy
        bestEffort = energy.bestEffort
        if let config {
            let c = try FrameworkConfiguration.read(config)
            guard c.framework == framework else {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "\(config): a \(c.framework.rawValue) configuration, not \(framework.rawValue)'s")
            }
            base = c.setting.merging(framework.defaults) { mine, _ in mine }
        }
    }

    /// Tuning of `framework` over a corpus with the defaults: the framework's default grid around its
    /// defaults (the baseline), `f1`, the voice-agent limits, leave one file out.
    /// - Parameters:
    ///   - framework: the framework emulated.
    ///   - audioDirectory: the recordings' directory.
    ///   - labelDirectory: the labels' directory (Audacity labels, one per recording).
    ///   - scoresDirectory: the score files' directory, `NAME.csv` per recording.
    ///   - reportDirectory: where the report goes.
    public init(
        framework: FrameworkVAD, audioDirectory: String, labelDirectory: String, scoresDirectory: String,
        reportDirectory: String
    ) {
        self.framework = framework
        self.audioDirectory = audioDirectory
        self.labelDirectory = labelDirectory
        self.scoresDirectory = scoresDirectory
        self.reportDirectory = reportDirectory
    }
}

/// `vad tune --emulate`: the framework's own decision logic over a VAD's scores, swept with the
/// energy tuner's metrics, cross-validation by file, baseline (the framework's defaults) and
/// constraints (`VADSelection`); best.json holds `{"pipecat": {…}}` or `{"livekit": {…}}`, and the
/// report the code to paste.
public enum FrameworkTuner {
    /// Reads the scores and recordings, sweeps the grid with the framework's decision, chooses
    /// (cross-validated) and writes the report directory. Throws nothing when no setting meets the
    /// constraints: `use == "none"` says so (the CLI exits 1).
    /// - Parameters:
    ///   - o: the framework, the corpus and its scores, the grid, the constraints and the report
    ///     directory.
    ///   - notes: called with what was skipped and what is about to be swept, before the sweep (the
    ///     CLI prints them on stderr as they come).
    ///   - progress: called when the settings have been swept.
    public static func tune(
        _ o: FrameworkTuneOptions, notes: (String) -> Void = { _ in }, progress: ProgressHandler = { _ in }
    ) throws(AudioPipelineError) -> VADTuningSummary {
        let start = DispatchTime.now().uptimeNanoseconds
        let f = o.framework
        let base = o.base ?? f.defaults
        try f.validate(base)
        let grid = try Self.grid(f, file: o.gridFile, axes: o.axes, base: base)
        let settings = try Self.settings(grid, base: base, framework: f, maximum: o.maxSettings)
        let report = try ReportDirectory(path: o.reportDirectory)
        let pairs = try VADCorpus.pair(
            audioDirectory: o.audioDirectory, labelDirectory: o.labelDirectory,
            references: try ReferenceNaming(suffix: o.referenceSuffix))
        guard !pairs.items.isEmpty else {
            throw VADCorpus.missingLabels(
                audioDirectory: o.audioDirectory, labelDirectory: o.labelDirectory, recordings: pairs.recordings,
                labelFiles: pairs.labelFiles)
        }
        for s in pairs.skipped { notes("skipped \(s)") }
        var names: [String] = []
        var recordings: [FrameworkRecording] = []
        var labels: [[SpeechSegment]] = []
        var warnings: [String] = []
        for (name, audio, labelPath) in pairs.items {
            let r = try FrameworkRecording(audio: audio, scores: o.scoresDirectory + "/" + name + ".csv", framework: f)
            warnings += r.warnings
            names.append(name)
            recordings.append(r)
            labels.append(try AudacityLabels.read(path: labelPath))
        }
        let manifest = try VADManifest.find(audioDirectory: o.audioDirectory, labelDirectory: o.labelDirectory)
        let folds = try VADTuner.folds(names: names, manifest: manifest, groupBy: o.groupBy)
        notes("\(f.rawValue): \(names.count) files, \(settings.count) settings, \(folds.folds.count) folds")
        let perFile = try Self.sweep(settings, f, recordings, labels, progress: progress)
        let baseline = settings.firstIndex(of: base)!
        let selection = VADSelection(
            perFile: perFile, baseline: baseline, folds: folds, objective: o.objective, constraints: o.constraints,
            fileNames: names)
        let minutes = recordings.reduce(0) { $0 + $1.duration } / 60
        let overall = perFile.map { $0.reduce(VADScoring.Counts(), +) }
        func candidate(_ i: Int, _ cv: VADScoring.Counts?) -> VADTuningSummary.Candidate {
            .init(
                setting: settings[i], tuning: .init(VADScoring.metrics(overall[i])),
                crossValidated: cv.map { .init(VADScoring.metrics($0)) })
        }
        warnings += VADTuner.smallCorpusWarnings(files: names.count, minutes: minutes, onsets: overall[baseline].onsets)
        if let chosen = selection.chosen { warnings += Self.edgeWarnings(grid, settings[chosen]) }
        warnings += selection.warnings
        let use = selection.chosen == nil ? "none" : selection.adopt ? "chosen" : "baseline"
        var summary = VADTuningSummary(
            objective: o.objective.rawValue, settings: settings.count, qualified: selection.qualified,
            constraints: o.constraints, warnings: warnings, baseline: candidate(baseline, overall[baseline]),
            chosen: selection.chosen.map { candidate($0, selection.crossValidated) },
            closest: selection.closest.map { candidate($0, nil) }, use: use, reason: selection.reason,
            folds: folds.folds.count, foldSpread: selection.spread, files: names.count, filesWithReference: 0,
            minutes: minutes, bestJSON: nil, bestEffort: use == "none" && o.bestEffort, skipped: pairs.skipped,
            report: o.reportDirectory, elapsedSeconds: 0)
        let written = VADTuner.written(summary, selection: selection, bestEffort: o.bestEffort)
        summary.bestJSON = written.map { _ in o.reportDirectory + "/best.json" }
        summary.elapsedSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let files = FrameworkTuningReport(
            options: o, grid: grid, settings: settings, overall: overall, perFile: perFile, names: names,
            summary: summary, written: written)
        try files.write(into: report)
        try report.publish()
        return summary
    }

    /// The default grid with `--set` axes replacing theirs; the baseline's values always included.
    static func grid(_ f: FrameworkVAD, file: String? = nil, axes: [String], base: [String: Double])
        throws(AudioPipelineError) -> [(name: String, values: [Double])]
    {
        var grid = f.defaultGrid
        for (name, values) in try file.map(Self.gridFile) ?? [] {
            try Self.set(&grid, name, values, framework: f, what: "\(file ?? ""): \(name)")
        }
        for a in axes {
            let (name, values) = try VADGrid.axis(a)
            try Self.set(&grid, name, values, framework: f, what: "--set")
        }
        for i in grid.indices {
            if let v = base[grid[i].name], !grid[i].values.contains(v) { grid[i].values.append(v) }
            grid[i].values = Array(Set(grid[i].values)).sorted()
        }
        return grid
    }

    /// Replaces (or adds) one axis of `grid`.
    static func set(
        _ grid: inout [(name: String, values: [Double])], _ name: String, _ values: [Double], framework f: FrameworkVAD,
        what: String
    ) throws(AudioPipelineError) {
        guard f.parameterNames.contains(name) else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(what): \(f.rawValue) has no parameter '\(name)' (known: \(f.parameterNames.joined(separator: ", ")))"
            )
        }
        if let i = grid.firstIndex(where: { $0.name == name }) {
            grid[i].values = values
        } else {
            grid.append((name, values))
        }
    }

    /// A JSON grid file: an object of non-empty number arrays, by parameter name.
    static func gridFile(_ path: String) throws(AudioPipelineError) -> [(String, [Double])] {
        let text = try TextInput.text(path, what: "the grid")
        guard case .object(let o)? = try? JSON.parse(text) else {
            throw AudioPipelineError(.invalidData, "\(path): want a JSON object {\"NAME\": [V1, V2, …]}")
        }
        return try o.keys.sorted().map { (name) throws(AudioPipelineError) -> (String, [Double]) in
            guard case .array(let a)? = o[name], !a.isEmpty else {
                throw AudioPipelineError(.invalidData, "\(path): \(name) wants a non-empty array of numbers")
            }
            let values = a.compactMap { v -> Double? in if case .number(let n) = v { return n } else { return nil } }
            guard values.count == a.count else {
                throw AudioPipelineError(.invalidData, "\(path): \(name) holds something other than numbers")
            }
            return (name, values)
        }
    }

    static func settings(
        _ grid: [(name: String, values: [Double])], base: [String: Double], framework: FrameworkVAD, maximum: Int
    ) throws(AudioPipelineError) -> [[String: Double]] {
        let count = grid.reduce(1) { $0 * $1.values.count }
        guard count <= maximum else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "the grid has \(count) settings, more than --max-settings \(maximum): narrow an axis or raise it")
        }
        var out: [[String: Double]] = [base]
        for axis in grid {
            out = out.flatMap { s in
                axis.values.map { v in
                    var t = s
                    t[axis.name] = v
                    return t
                }
            }
        }
        for s in out { try framework.validate(s) }
        return out
    }

    /// Every setting over every file: the counts per file, on every core.
    static func sweep(
        _ settings: [[String: Double]], _ f: FrameworkVAD, _ recordings: [FrameworkRecording],
        _ labels: [[SpeechSegment]], progress: ProgressHandler
    ) throws(AudioPipelineError) -> [[VADScoring.Counts]] {
        final class Box: @unchecked Sendable {
            var results: [[VADScoring.Counts]]
            var firstError: AudioPipelineError?
            let lock = NSLock()
            init(_ n: Int) { results = Array(repeating: [], count: n) }
        }
        let box = Box(settings.count)
        DispatchQueue.concurrentPerform(iterations: settings.count) { s in
            var counts: [VADScoring.Counts] = []
            for (i, r) in recordings.enumerated() {
                do throws(AudioPipelineError) {
                    let segments = try r.segments(f, settings[s])
                    counts.append(VADScoring.score(reference: labels[i], hypothesis: segments, duration: r.duration))
                } catch {
                    box.lock.lock(); box.firstError = box.firstError ?? error; box.lock.unlock()
                    return
                }
            }
            box.lock.lock(); box.results[s] = counts; box.lock.unlock()
        }
        if let e = box.firstError { throw e }
        progress(JobProgress(done: settings.count, total: settings.count, unit: .items("settings")))
        return box.results
    }

    static func edgeWarnings(_ grid: [(name: String, values: [Double])], _ chosen: [String: Double]) -> [String] {
        grid.compactMap { axis in
            guard axis.values.count > 1, let v = chosen[axis.name], let lo = axis.values.first,
                let hi = axis.values.last
            else { return nil }
            if v == lo {
                return "\(axis.name) chose the lowest value swept, \(NumberText.plain(v)): extend the grid below"
            }
            if v == hi {
                return "\(axis.name) chose the highest value swept, \(NumberText.plain(v)): extend the grid above"
            }
            return nil
        }
    }
}

extension VADTuner {
    /// `vad tune` as the command line asks: with `emulate`, the framework's VAD tuned over the score
    /// files in `scores` (its grid from `gridFile` and `axes`, its baseline from `config`), else the
    /// energy VAD, its grid from `gridFile` (swept as it is) or the default grid with each of `axes`
    /// (`--set NAME=V1,V2,…`) replacing its axis. Score files without `emulate` are refused (they
    /// are a framework's, and the energy VAD would be tuned without them).
    /// - Parameters:
    ///   - o: the corpus, limits and report, and for the energy VAD its baseline.
    ///   - emulate: the framework whose VAD to tune, nil for the energy VAD.
    ///   - scores: the framework's score files (`--scores`).
    ///   - gridFile: a JSON grid (`--grid`).
    ///   - axes: `--set` axes.
    ///   - config: the framework's current configuration (`--config`), its baseline.
    ///   - notes: what was skipped or adjusted, before the sweep.
    ///   - progress: called as files are analysed and settings swept.
    public static func tune(
        _ o: VADTuneOptions, emulate: FrameworkVAD?, scores: String?, gridFile: String?, axes: [String],
        config: String?, notes: (String) -> Void = { _ in }, progress: ProgressHandler = { _ in }
    ) throws(AudioPipelineError) -> VADTuningSummary {
        if let emulate {
            let framework = try FrameworkTuneOptions(
                emulate, like: o, scores: scores, grid: gridFile, axes: axes, config: config)
            return try FrameworkTuner.tune(framework, notes: notes, progress: progress)
        }
        // Score files without a framework would have tuned the energy VAD and said nothing of them.
        if scores != nil {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--scores gives a framework's scores: name it with --emulate pipecat or livekit "
                    + "(or tune it beside the energy VAD: --compare FRAMEWORK=DIR)")
        }
        var energy = o
        energy.grid = try VADGrid.load(file: gridFile, set: axes)
        energy.bargeInAxes = gridFile == nil  // a grid file is swept as it is
        return try tune(energy, notes: notes, progress: progress)
    }
}
