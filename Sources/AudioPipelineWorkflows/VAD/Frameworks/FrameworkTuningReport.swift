import AudioPipelineCore
import Foundation

/// The files of a `vad tune --emulate` report: `summary.json` (as the energy tuner's), `best.json`
/// (`{"pipecat": {…}}` or `{"livekit": {…}}`, with its scores: what `vad detect --scores --config`
/// reads), `snippet.py` (the code to paste into the framework), `sweep.csv` (every setting and its
/// metrics), `per-file.csv` (best.json's setting per file) and `index.html` showing the summary.
struct FrameworkTuningReport {
    let options: FrameworkTuneOptions
    let grid: [(name: String, values: [Double])]
    let settings: [[String: Double]]
    let overall: [VADScoring.Counts]
    let perFile: [[VADScoring.Counts]]
    let names: [String]
    let summary: VADTuningSummary
    let written: Int?

    var framework: FrameworkVAD { options.framework }
    var shown: Int { written ?? summary.closest.first.flatMap { c in settings.firstIndex(of: c.setting) } ?? 0 }

    func write(into dir: ReportDirectory) throws(AudioPipelineError) {
        try dir.write("summary.json", try ReportJSON.encode(summary) + "\n")
        if let written {
            try dir.write("best.json", try bestJSON(written))
            try dir.write("snippet.py", framework.snippet(settings[written]) + "\n")
        }
        let axes = grid.map(\.name)
        var sweep = CSVWriter(header: axes + VADScoring.Metrics.names)
        for (i, s) in settings.enumerated() {
            sweep.append(
                axes.map { NumberText.plain(s[$0] ?? .nan) }
                    + VADScoring.metrics(overall[i]).values.map(VADTuningReport.number))
        }
        try dir.write("sweep.csv", sweep.text)
        var files = CSVWriter(header: ["file"] + VADScoring.Metrics.names)
        for (k, name) in names.enumerated() {
            files.append([name] + VADScoring.metrics(perFile[shown][k]).values.map(VADTuningReport.number))
        }
        try dir.write("per-file.csv", files.text)
        try dir.write("index.html", html)
    }

    /// `{"pipecat": {…}}` with the scores on all files and a comment; a best-effort one says which
    /// constraints it breaks.
    func bestJSON(_ i: Int) throws(AudioPipelineError) -> String {
        struct Best: Encodable {
            var framework: String
            var setting: [String: Double]
            var scores: VADScoring.Metrics
            var comment: String
            var bestEffort: String?
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: JSONKey.self)
                try c.encode(setting, forKey: JSONKey(framework))
                try c.encode(scores, forKey: JSONKey("scores"))
                try c.encode(comment, forKey: JSONKey("_comment"))
                if let bestEffort { try c.encode(bestEffort, forKey: JSONKey("_best_effort")) }
            }
        }
        let what: String
        switch summary.use {
        case "chosen": what = "the chosen setting (it beat the framework's defaults, cross-validated)"
        case "baseline": what = "the baseline, kept (no setting beat it beyond the folds' spread)"
        default: what = "BEST EFFORT: the setting closest to meeting the constraints, which it does not meet"
        }
        let metrics = VADScoring.metrics(overall[i])
        let comment =
            "audiopipe vad tune --emulate \(framework.rawValue): \(what); by \(options.objective.rawValue) with "
            + "\(options.constraints.text), over \(settings.count) settings on \(names.count) files; paste "
            + "snippet.py into your code, or: audiopipe vad detect IN --scores IN.csv --config best.json"
        let broken = options.constraints.broken(metrics)
        return try ReportJSON.encode(
            Best(
                framework: framework.rawValue, setting: settings[i], scores: metrics, comment: comment,
                bestEffort: summary.use == "none" ? broken.joined(separator: "; ") : nil)) + "\n"
    }

    var html: String {
        let snippet = written.map { framework.snippet(settings[$0]) } ?? "(no best.json: see the summary)"
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>vad tune --emulate \(framework.rawValue)</title>
            <style>body{font-family:sans-serif;max-width:60em;margin:auto}pre{background:#eee;padding:1em}</style>
            </head><body>
            <h1>\(framework.rawValue): tuned on \(names.count) files</h1>
            <pre>\(SVG.escape(summary.text))</pre>
            <h2>Paste into your code</h2>
            <pre>\(SVG.escape(snippet))</pre>
            <p>Every setting: <a href="sweep.csv">sweep.csv</a>; per file: <a href="per-file.csv">per-file.csv</a>;
            <a href="summary.json">summary.json</a>.</p>
            </body></html>

            """
    }
}

extension VADTuningSummary {
    /// The summary text with the snippet to paste (for `vad tune --emulate`).
    public func frameworkText(_ framework: FrameworkVAD) -> String {
        guard let written = use == "chosen" ? chosen?.setting : use == "baseline" ? baseline.setting : nil else {
            return text
        }
        let code = framework.snippet(written).split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
        return text + "\n  paste into your code (\(report)/snippet.py):\n" + code
    }
}
