import AudioPipelineCore
import Foundation

/// `index.html` of a `vad tune` report: the chosen setting and why, the charts, and a table of the
/// files (worst first, sortable by any column in the browser with a few lines of inline script; each
/// row links to its plot), then the plots.
struct VADTuningPage {
    struct FileRow {
        var name: String
        var plot: String
        var metrics: VADScoring.Metrics
        var falseTriggers: Int
        var hasReference: Bool
    }

    let options: VADTuneOptions
    let best: VADSweep.Outcome
    let settings: Int
    let qualified: Int
    let files: [FileRow]
    let setting: String

    /// A plot file name safe in a URL and on any file system: the item name with anything but
    /// letters, digits, `-`, `_`, `.` replaced, plus its index when that changed it.
    static func plotFileName(_ name: String, index: Int) -> String {
        let safe = String(
            name.map { c -> Character in
                c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".") ? c : "_"
            })
        return (safe == name ? safe : "\(safe)-\(index + 1)") + ".svg"
    }

    static func h(_ s: String) -> String { SVG.escape(s) }

    var why: String {
        let objective: String
        switch options.objective {
        case .f1: objective = "the highest F1 (frames)"
        case .precision: objective = "the highest precision"
        case .recall: objective = "the highest recall"
        case .falseAlarm: objective = "the lowest false-alarm rate (ties: higher F1)"
        case .f1Latency: objective = "the highest F1 minus the fresh-onset latency p50 in seconds"
        }
        guard let limit = options.maxFalseAlarm else { return "Chosen: \(objective) among all \(settings) settings." }
        let pct = String(format: "%.1f %%", limit * 100)
        if qualified == 0 {
            return
                "Chosen: \(objective) among all \(settings) settings — none kept false alarm ≤ \(pct), so the "
                + "constraint was dropped."
        }
        return
            "Chosen: \(objective) among the settings whose false alarm ≤ \(pct): \(qualified) of \(settings) qualify."
    }

    var html: String {
        let m = best.metrics
        var s = "<!doctype html><meta charset=\"utf-8\"><title>VAD tune report</title>\n"
        s +=
            "<style>body{font-family:sans-serif;max-width:1240px;margin:auto}table{border-collapse:collapse}"
            + "td,th{padding:2px 8px;text-align:right}th{cursor:pointer;background:#eee}td:first-child{text-align:left}"
            + "tr:nth-child(even){background:#f8f8f8}</style>\n"
        s += "<h1>VAD tune report</h1>\n<p><b>Setting:</b> <code>\(Self.h(setting))</code></p>\n<p>\(Self.h(why))</p>\n"
        s += String(
            format: "<p>Over all %d files: F1 %.3f, precision %.3f, recall %.3f, false alarm %.1f %%, miss %.1f %%, "
                + "fresh-onset latency p50 %@ ms, %.2f false triggers per minute.</p>\n",
            files.count, m.f1, m.precision, m.recall, m.falseAlarm * 100, m.miss * 100,
            m.freshLatencyP50.isFinite ? String(format: "%.0f", m.freshLatencyP50) : "–", m.falseTriggersPerMinute)
        s +=
            "<p>Use it: <code>audiopipe vad detect IN --config best.json</code>. Every setting: "
            + "<a href=\"sweep.csv\">sweep.csv</a>, <a href=\"sweep.json\">sweep.json</a>; per file: <a "
            + "href=\"per-file.csv\">per-file.csv</a>.</p>\n"
        s +=
            "<img src=\"f1-vs-threshold.svg\" alt=\"F1 against the enter threshold\"> "
            + "<img src=\"precision-recall.svg\" alt=\"precision against recall\">\n"
        s += table + plots + sortScript
        return s + "</body>\n"
    }

    var table: String {
        var s = "<h2>Files (chosen setting), worst F1 first</h2>\n<table id=\"files\"><thead><tr>"
        for (i, title) in ["file", "F1", "false alarm %", "miss %", "onset latency p50 ms", "false triggers"]
            .enumerated()
        {
            s += "<th onclick=\"sortBy(\(i))\">\(title)</th>"
        }
        s += "</tr></thead><tbody>\n"
        func cell(_ v: Double, _ f: String) -> String { v.isFinite ? String(format: f, v) : "" }
        for r in files.sorted(by: { ($0.metrics.f1, $0.name) < ($1.metrics.f1, $1.name) }) {
            let m = r.metrics
            s +=
                "<tr><td><a href=\"#\(Self.h(r.plot))\">\(Self.h(r.name))</a>\(r.hasReference ? " (ref)" : "")</td>"
                + "<td>\(cell(m.f1, "%.3f"))</td><td>\(cell(m.falseAlarm * 100, "%.1f"))</td>"
                + "<td>\(cell(m.miss * 100, "%.1f"))</td>"
                + "<td>\(cell(m.latencyP50, "%.0f"))</td><td>\(r.falseTriggers)</td></tr>\n"
        }
        return s + "</tbody></table>\n"
    }

    var plots: String {
        files.map {
            "<h3 id=\"\(Self.h($0.plot))\">\(Self.h($0.name))</h3><img src=\"\(Self.h($0.plot))\" "
                + "style=\"max-width:100%\" alt=\"\">\n"
        }
        .joined()
    }

    /// Click a header to sort by it (numbers as numbers; again to reverse).
    var sortScript: String {
        """
        <script>
        function sortBy(k){const t=document.getElementById('files').tBodies[0];const rows=[...t.rows];
        const dir=t.dataset.k==k&&t.dataset.d=='1'?-1:1;t.dataset.k=k;t.dataset.d=dir==1?'1':'0';
        const v=r=>{const s=r.cells[k].innerText;const n=parseFloat(s);return isNaN(n)?s:n};
        rows.sort((a,b)=>{const x=v(a),y=v(b);return (x<y?-1:x>y?1:0)*dir});rows.forEach(r=>t.appendChild(r))}
        </script>

        """
    }
}
