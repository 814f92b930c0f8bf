import AudioPipelineCore
import Foundation

/// The files of a `vad tune` report: `summary.json` (the choice against the baseline,
/// cross-validated), `best.json` (the configuration for `vad detect --config`, with its scores —
/// none when no setting meets the constraints, unless best effort), `sweep.csv` and `sweep.json`
/// (every setting and its metrics), `per-file.csv` (the setting shown, per file), `per-condition.csv`
/// (with a manifest), `plots/NAME.svg` per file, `f1-vs-threshold.svg`, `precision-recall.svg`,
/// and `index.html` showing them all.
struct VADTuningReport {
    let options: VADTuneOptions
    let grid: VADGrid
    let corpus: VADCorpus
    let outcomes: [VADSweep.Outcome]
    let selection: VADSelection
    let summary: VADTuningSummary
    /// The setting best.json holds, if any.
    let written: Int?
    /// Each item's condition (the manifest's), and the columns that make it; empty without one.
    var conditions: [String] = []
    var conditionColumns: [String] = []

    var names: [String] { grid.axes.map(\.name) }
    /// The setting the report shows per file: best.json's, else the choice, else the closest.
    var best: VADSweep.Outcome {
        outcomes[written ?? selection.chosen ?? selection.closest.first ?? selection.baseline]
    }

    func write(into dir: ReportDirectory) throws(AudioPipelineError) {
        try dir.write("summary.json", try ReportJSON.encode(summary) + "\n")
        if written != nil { try dir.write("best.json", try bestJSON()) }
        try dir.write("sweep.csv", sweepCSV())
        try dir.write("sweep.json", try sweepJSON())
        let header = ["file", "reference"] + (conditions.isEmpty ? [] : ["condition"]) + VADScoring.Metrics.names
        var perFile = CSVWriter(header: header)
        var rows: [VADTuningPage.FileRow] = []
        for (i, item) in corpus.items.enumerated() {
            let m = VADScoring.metrics(best.perFile[i])
            let condition = conditions.isEmpty ? nil : conditions[i]
            perFile.append(
                [item.name, String(item.referencePath != nil)] + (condition.map { [$0] } ?? [])
                    + m.values.map(Self.number))
            let run = try corpus.run(item, configuration: best.setting.configuration, details: true)
            let plot = VADFilePlot(
                name: item.name, envelope: item.envelope, run: run, labels: item.labels, detected: run.segments(),
                metrics: m, hasReference: item.referencePath != nil)
            let file = "plots/" + VADTuningPage.plotFileName(item.name, index: i)
            try dir.write(file, plot.svg)
            rows.append(
                .init(
                    name: item.name, plot: file, metrics: m, falseTriggers: best.perFile[i].falseTriggers,
                    hasReference: item.referencePath != nil, condition: condition))
        }
        try dir.write("per-file.csv", perFile.text)
        let byCondition = conditionRows
        if !byCondition.isEmpty {
            var csv = CSVWriter(header: ["condition", "files"] + VADScoring.Metrics.names)
            for c in byCondition { csv.append([c.name, String(c.files)] + c.metrics.values.map(Self.number)) }
            try dir.write("per-condition.csv", csv.text)
        }
        try dir.write("f1-vs-threshold.svg", f1Chart().svg)
        try dir.write("precision-recall.svg", precisionRecallChart().svg)
        let page = VADTuningPage(
            options: options, summary: summary, best: best, files: rows, conditions: byCondition,
            conditionColumns: conditionColumns, setting: settingText,
            minutes: corpus.items.reduce(0) { $0 + $1.duration } / 60)
        try dir.write("index.html", page.html)
    }

    /// The chosen setting's scores per condition (counts pooled over the condition's files), in
    /// the order conditions first appear.
    var conditionRows: [VADTuningPage.ConditionRow] {
        var order: [String] = []
        var pooled: [String: (files: Int, counts: VADScoring.Counts)] = [:]
        for (i, c) in conditions.enumerated() {
            if pooled[c] == nil { order.append(c) }
            let p = pooled[c] ?? (0, VADScoring.Counts())
            pooled[c] = (p.files + 1, p.counts + best.perFile[i])
        }
        return order.map { .init(name: $0, files: pooled[$0]!.files, metrics: VADScoring.metrics(pooled[$0]!.counts)) }
    }

    var settingText: String {
        names.map { "\($0)=\(NumberText.plain(best.setting[$0]!))" }.joined(separator: " ")
    }

    static func number(_ v: Double) -> String { v.isFinite ? String(format: "%.5g", v) : "" }

    /// The configuration (readable by `--config`) plus its scores and a comment; a best-effort one
    /// says which constraints it breaks.
    func bestJSON() throws(AudioPipelineError) -> String {
        let what: String
        switch summary.use {
        case "chosen": what = "the chosen setting (it beat the baseline, cross-validated)"
        case "baseline": what = "the baseline, kept (no setting beat it beyond the folds' spread)"
        default: what = "BEST EFFORT: the setting closest to meeting the constraints, which it does not meet"
        }
        let comment =
            "audiopipe vad tune: \(what); by \(summary.objective) with \(options.constraints.text), "
            + "over \(outcomes.count) settings on \(corpus.items.count) files; use with: audiopipe vad detect IN "
            + "--config best.json"
            + (summary.filesWithReference > 0
                ? " (its barge_in policy: audiopipe session simulate … --config best.json)" : "")
        let broken = options.constraints.broken(best.metrics)
        return try ReportJSON.encode(
            VADConfigurationObject(
                best.setting.configuration, scores: best.metrics, comment: comment,
                bestEffort: summary.use == "none" ? broken.joined(separator: "; ") : nil,
                policy: summary.filesWithReference > 0 ? best.setting.policy : nil)) + "\n"
    }

    func sweepCSV() -> String {
        var csv = CSVWriter(header: names + VADScoring.Metrics.names)
        for o in outcomes {
            csv.append(names.map { NumberText.plain(o.setting[$0]!) } + o.metrics.values.map(Self.number))
        }
        return csv.text
    }

    struct SweepJSON: Encodable {
        struct Row: Encodable {
            var values: [String: Double]
            var metrics: VADScoring.Metrics
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: JSONKey.self)
                for (k, v) in values { try c.encode(v, forKey: JSONKey(k)) }
                try c.encode(metrics, forKey: JSONKey("metrics"))
            }
        }
        var objective: String
        var grid: [String: [Double]]
        var files: [String]
        var settings: [Row]
    }

    func sweepJSON() throws(AudioPipelineError) -> String {
        let rows = outcomes.map { o in
            SweepJSON.Row(
                values: Dictionary(uniqueKeysWithValues: names.map { ($0, o.setting[$0]!) }),
                metrics: o.metrics)
        }
        let axes = Dictionary(grid.axes.map { ($0.name, $0.values) }, uniquingKeysWith: { $1 })
        return try ReportJSON.encode(
            SweepJSON(
                objective: summary.objective, grid: axes, files: corpus.items.map(\.name),
                settings: rows)) + "\n"
    }

    /// F1 against the enter threshold: the shown setting's curve (its other parameters held, so the
    /// shown point lies on it), and every setting.
    func f1Chart() -> Chart {
        var curve: [(Double, Double)] = []
        var held = best.setting.configuration
        for o in outcomes {
            held.enterThreshold = o.setting.configuration.enterThreshold
            if o.setting.configuration == held { curve.append((held.enterThreshold, o.metrics.f1)) }
        }
        let base = outcomes[selection.baseline]
        return Chart(
            title: "F1 against the enter threshold",
            xLabel: "enter threshold, dB above noise floor",
            yLabel: "frame F1",
            series: [
                .init(
                    label: "the shown setting, enter_db varied", color: "#1f77b4", points: curve.sorted { $0.0 < $1.0 },
                    line: true),
                .init(
                    label: "the baseline", color: "#ff7f0e",
                    points: [(base.setting.configuration.enterThreshold, base.metrics.f1)], line: false),
                .init(
                    label: "every setting", color: "#aaaaaa",
                    points: outcomes.map { ($0.setting.configuration.enterThreshold, $0.metrics.f1) }, line: false),
            ],
            mark: (best.setting.configuration.enterThreshold, best.metrics.f1, "chosen"))
    }

    func precisionRecallChart() -> Chart {
        let points = outcomes.compactMap { o -> (Double, Double)? in
            let m = o.metrics
            return m.recall.isFinite && m.precision.isFinite ? (m.recall, m.precision) : nil
        }
        return Chart(
            title: "Precision against recall, every setting", xLabel: "recall", yLabel: "precision",
            series: [.init(label: "settings", color: "#1f77b4", points: points, line: false)],
            mark: (best.metrics.recall, best.metrics.precision, String(format: "chosen (F1 %.3f)", best.metrics.f1)))
    }
}
