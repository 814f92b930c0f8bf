import AudioPipelineCore
import Foundation

extension VADTuner {
    /// The summary of a sweep and its choice: the baseline and chosen candidates, what to use and
    /// why, and the warnings (a small corpus, a choice on the grid's edge, the folds').
    static func summary(
        _ o: VADTuneOptions, grid: VADGrid, corpus: VADCorpus, outcomes: [VADSweep.Outcome], selection: VADSelection
    ) -> VADTuningSummary {
        let names = grid.axes.map(\.name)
        func candidate(_ i: Int, crossValidated: VADScoring.Counts?) -> VADTuningSummary.Candidate {
            let s = outcomes[i].setting
            return .init(
                setting: Dictionary(uniqueKeysWithValues: names.map { ($0, s[$0]!) }),
                tuning: .init(outcomes[i].metrics),
                crossValidated: crossValidated.map { .init(VADScoring.metrics($0)) })
        }
        let base = candidate(selection.baseline, crossValidated: outcomes[selection.baseline].overall)
        var warnings = corpus.warnings + smallCorpusWarnings(corpus, outcomes[selection.baseline])
        if let chosen = selection.chosen {
            warnings += edgeWarnings(grid, outcomes[chosen].setting)
        }
        warnings += selection.warnings
        let use = selection.chosen == nil ? "none" : selection.adopt ? "chosen" : "baseline"
        return VADTuningSummary(
            objective: (o.objective ?? .f1).rawValue, settings: outcomes.count, qualified: selection.qualified,
            constraints: o.constraints, warnings: warnings, baseline: base,
            chosen: selection.chosen.map { candidate($0, crossValidated: selection.crossValidated) },
            closest: selection.closest.map { candidate($0, crossValidated: nil) }, use: use, reason: selection.reason,
            folds: 0, foldSpread: selection.spread, files: corpus.items.count,
            filesWithReference: corpus.items.count { $0.referencePath != nil },
            minutes: corpus.items.reduce(0) { $0 + $1.duration } / 60, bestJSON: nil,
            bestEffort: use == "none" && o.bestEffort, skipped: corpus.skipped, report: o.reportDirectory,
            elapsedSeconds: 0)
    }

    /// Fewer than 10 files, 5 minutes or 30 labelled speech onsets: what is missing, in words.
    static func smallCorpusWarnings(_ corpus: VADCorpus, _ baseline: VADSweep.Outcome) -> [String] {
        smallCorpusWarnings(
            files: corpus.items.count, minutes: corpus.items.reduce(0) { $0 + $1.duration } / 60,
            onsets: baseline.overall.onsets)
    }

    /// The same from the counts (the frameworks' tuner has no `VADCorpus`).
    static func smallCorpusWarnings(files: Int, minutes: Double, onsets: Int) -> [String] {
        var missing: [String] = []
        if files < 10 { missing.append("\(files) file\(files == 1 ? "" : "s") (fewer than 10)") }
        if minutes < 5 { missing.append(String(format: "%.1f minutes (less than 5)", minutes)) }
        if onsets < 30 { missing.append("\(onsets) labelled speech onsets (fewer than 30)") }
        guard !missing.isEmpty else { return [] }
        return [
            "a small corpus: " + missing.joined(separator: ", ")
                + "; a choice made on it may not hold on the next recording: add recordings (the folds' spread "
                + "says how uncertain it is)"
        ]
    }

    /// The axes whose chosen value is the lowest or highest swept: the best may lie beyond — unless
    /// a grid step beyond is no valid setting (min_barge_in_ms 0 has nothing below it).
    static func edgeWarnings(_ grid: VADGrid, _ chosen: VADSweep.Setting) -> [String] {
        func valid(_ name: String, _ value: Double) -> Bool {
            var s = chosen
            s[name] = value
            do {
                try s.configuration.validate()
                try s.policy.validate()
                return true
            } catch {
                return false
            }
        }
        return grid.axes.compactMap { axis in
            let sorted = axis.values.sorted()
            guard sorted.count > 1, let v = chosen[axis.name], let lo = sorted.first, let hi = sorted.last else {
                return nil
            }
            if v == lo && valid(axis.name, lo - (sorted[1] - lo)) {
                return "\(axis.name) chose the lowest value swept, \(NumberText.plain(v)): extend the grid below"
            }
            if v == hi && valid(axis.name, hi + (hi - sorted[sorted.count - 2])) {
                return "\(axis.name) chose the highest value swept, \(NumberText.plain(v)): extend the grid above"
            }
            return nil
        }
    }
}

extension VADTuningSummary {
    /// The headline: what to use, chosen against baseline, cross-validated, and why.
    public var text: String {
        func setting(_ c: Candidate) -> String {
            c.setting.keys.sorted().map { "\($0)=\(NumberText.plain(c.setting[$0]!))" }.joined(separator: " ")
        }
        func figures(_ f: Figures?) -> String {
            guard let f else { return "n/a" }
            let f1 = f.f1.map { String(format: "F1 %.3f", $0) } ?? "F1 n/a"
            let fa = f.falseAlarm.map { String(format: "false alarm %.1f %%", $0 * 100) } ?? "false alarm n/a"
            let ft = f.falseTriggersPerMinute.map { String(format: "%.2f false triggers/min", $0) } ?? ""
            let lat = f.onsetLatencyP90Ms.map { String(format: "onset p90 %.0f ms", $0) } ?? ""
            let fb = f.falseBargeInsPerMinute.map { String(format: "%.2f false barge-ins/min", $0) } ?? ""
            let missed = f.missedBargeIns.map { String(format: "missed %.1f %%", $0 * 100) } ?? ""
            let bargeIn = f.bargeInLatencyP90Ms.map { String(format: "barge-in p90 %.0f ms", $0) } ?? ""
            return [f1, fa, ft, lat, fb, missed, bargeIn].filter { !$0.isEmpty }.joined(separator: ", ")
        }
        var lines: [String] = []
        switch use {
        case "chosen": lines.append("Use the chosen setting: \(chosen.map(setting) ?? "")")
        case "baseline": lines.append("Keep the baseline: \(setting(baseline))")
        default: lines.append("No setting meets \(constraints.text)\(bestEffort ? " (best effort written)" : "")")
        }
        lines.append("  why: \(reason)")
        if let chosen {
            lines.append("  chosen \(setting(chosen))")
            lines.append("    on all files: \(figures(chosen.tuning))")
            lines.append("    cross-validated (\(folds) folds): \(figures(chosen.crossValidated))")
        }
        lines.append("  baseline \(setting(baseline)): \(figures(baseline.tuning))")
        for c in closest { lines.append("  closest \(setting(c)): \(figures(c.tuning))") }
        lines.append(
            "  \(settings) settings (\(qualified) meet \(constraints.text)), \(files) files, "
                + String(format: "%.1f min", minutes)
                + (foldSpread.map { String(format: ", fold spread %.3f", $0) } ?? ""))
        // (The warnings go to stderr as notes, before the report.)
        if !warnings.isEmpty { lines.append("  \(warnings.count) warning\(warnings.count == 1 ? "" : "s") (above)") }
        lines.append("  -> \(report)/index.html" + (bestJSON.map { ", \($0)" } ?? " (no best.json)"))
        if let comparison { lines.append(VADComparison.text(comparison)) }
        return lines.joined(separator: "\n")
    }
}
