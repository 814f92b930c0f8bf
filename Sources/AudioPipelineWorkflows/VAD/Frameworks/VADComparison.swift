import AudioPipelineAdapters
import AudioPipelineCore
import Dispatch
import Foundation

/// `vad tune --compare FRAMEWORK=SCORES_DIR`: the energy VAD's tuned setting beside each
/// framework's, tuned the same way on the same files (same metrics, constraints, folds), with what
/// each costs per 10 ms of audio.
public struct VADComparisonRow: Codable, Sendable, Hashable {
    /// `energy`, `pipecat` or `livekit`.
    public var vad: String
    /// What its tuning says to use: `chosen`, `baseline` or `none`.
    public var use: String
    /// The setting that choice uses, by parameter name (the energy VAD's swept parameters, a
    /// framework's options by its own names); null when no setting meets the limits.
    @NullWhenAbsent public var setting: [String: Double]?
    /// How that choice does on files it was not made on (the baseline's figures where it is kept:
    /// nothing was tuned on them).
    @NullWhenAbsent public var crossValidated: VADTuningSummary.Figures?
    /// Time per 10 ms of audio, µs: the energy VAD's streaming run here (decode included); a
    /// framework's from its score directory's timing.json (scripts/vad-scores.py: the model and
    /// framing, one thread). nil when not measured.
    @NullWhenAbsent public var microsecondsPer10ms: Double?
    /// Where the framework's report went (REPORT/FRAMEWORK).
    @NullWhenAbsent public var report: String?
}

enum VADComparison {
    /// Parses `FRAMEWORK=DIR`.
    static func parse(_ entries: [String]) throws(AudioPipelineError) -> [(FrameworkVAD, String)] {
        try entries.map { (e) throws(AudioPipelineError) -> (FrameworkVAD, String) in
            let parts = e.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let f = FrameworkVAD(rawValue: parts[0]), !parts[1].isEmpty else {
                throw AudioPipelineError(
                    .invalidConfiguration, "--compare wants FRAMEWORK=SCORES_DIR (pipecat or livekit), not '\(e)'")
            }
            return (f, parts[1])
        }
    }

    /// The energy VAD's row, then each framework's, tuned into `into/FRAMEWORK`.
    static func rows(
        _ o: VADTuneOptions, energy: VADTuningSummary, setting: VADConfiguration, corpus: VADCorpus, into: String,
        notes: (String) -> Void
    ) throws(AudioPipelineError) -> [VADComparisonRow] {
        var rows = [row("energy", energy, cost: try cost(setting, corpus))]
        for (framework, scores) in try parse(o.compare) {
            var f = try FrameworkTuneOptions(framework, like: o, scores: scores, grid: nil, axes: [], config: nil)
            f.reportDirectory = into + "/" + framework.rawValue
            let summary = try FrameworkTuner.tune(f, notes: notes)
            var r = row(framework.rawValue, summary, cost: Self.timing(scores))
            r.report = o.reportDirectory + "/" + framework.rawValue
            rows.append(r)
        }
        return rows
    }

    static func row(_ vad: String, _ s: VADTuningSummary, cost: Double?) -> VADComparisonRow {
        switch s.use {
        case "chosen":
            return VADComparisonRow(
                vad: vad, use: s.use, setting: s.chosen?.setting, crossValidated: s.chosen?.crossValidated,
                microsecondsPer10ms: cost)
        case "baseline":
            return VADComparisonRow(
                vad: vad, use: s.use, setting: s.baseline.setting, crossValidated: s.baseline.tuning,
                microsecondsPer10ms: cost)
        default:
            return VADComparisonRow(vad: vad, use: s.use, setting: nil, crossValidated: nil, microsecondsPer10ms: cost)
        }
    }

    /// The energy VAD's streaming run over every file with `c`, per 10 ms of audio.
    static func cost(_ c: VADConfiguration, _ corpus: VADCorpus) throws(AudioPipelineError) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        var seconds = 0.0
        for item in corpus.items {
            let r = try VADRun.streaming(
                path: item.audioPath, reference: item.referencePath, configuration: c)
            seconds += r.run.duration
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return seconds > 0 ? elapsed / seconds * 0.01 * 1e6 : .nan
    }

    /// `microseconds_per_10ms` of DIR/timing.json, if it is there and says so.
    static func timing(_ dir: String) -> Double? {
        guard let text = try? TextInput.text(dir + "/timing.json", what: "the timing"),
            case .object(let o)? = try? JSON.parse(text), case .number(let v)? = o["microseconds_per_10ms"],
            v.isFinite, v >= 0
        else { return nil }
        return v
    }

    /// The comparison as a table.
    static func text(_ rows: [VADComparisonRow]) -> String {
        var lines = ["  compared, cross-validated on the same files (µs per 10 ms of audio):"]
        for r in rows {
            let f = r.crossValidated
            let figures =
                [
                    f?.f1.map { String(format: "F1 %.3f", $0) },
                    f?.falseAlarm.map { String(format: "FA %.1f %%", $0 * 100) },
                    f?.miss.map { String(format: "miss %.1f %%", $0 * 100) },
                    f?.falseTriggersPerMinute.map { String(format: "%.2f FT/min", $0) },
                    f?.onsetLatencyP90Ms.map { String(format: "onset p90 %.0f ms", $0) },
                    r.microsecondsPer10ms.map { String(format: "%.1f µs", $0) },
                ].compactMap { $0 }.joined(separator: ", ")
            let setting = r.setting.map { s in
                s.keys.sorted().map { "\($0)=\(NumberText.plain(s[$0]!))" }.joined(separator: " ")
            }
            let met = r.use == "none" ? "no setting meets the limits" + (figures.isEmpty ? "" : "; ") : ""
            lines.append("    \(r.vad) (\(r.use)): \(met)\(figures)")
            if let setting { lines.append("      \(setting)") }
        }
        return lines.joined(separator: "\n")
    }
}
