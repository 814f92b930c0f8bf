import AudioPipelineCore
import Foundation

/// `index.html` of a `vad tune` report, to be read in a minute: what to use — the chosen setting or
/// the baseline kept — and why, the two side by side on all files and cross-validated, the
/// warnings; the shown setting's scores over the corpus and where they are weakest; then a table of
/// the files (worst first, sortable by any column by clicking its header — inline script, nothing
/// external; each row links to its plot), the per-condition table when the corpus has a manifest,
/// the charts and the plots.
struct VADTuningPage {
    struct FileRow {
        var name: String
        var plot: String
        var metrics: VADScoring.Metrics
        var falseTriggers: Int
        var hasReference: Bool
        var condition: String?
        /// The file has labelled speech (else F1 is undefined and only false alarms count).
        var hasSpeech: Bool { metrics.recall.isFinite }
    }

    struct ConditionRow {
        var name: String
        var files: Int
        var metrics: VADScoring.Metrics
    }

    let options: VADTuneOptions
    let summary: VADTuningSummary
    /// The setting shown per file (best.json's, else the choice, else the closest).
    let best: VADSweep.Outcome
    let files: [FileRow]
    /// Per condition, and the manifest columns that make one (empty without a manifest).
    let conditions: [ConditionRow]
    let conditionColumns: [String]
    let setting: String
    let minutes: Double

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
    static func pct(_ v: Double) -> String { v.isFinite ? String(format: "%.1f %%", v * 100) : "–" }
    /// A limit as given: 15 %, 2.5 %.
    static func limit(_ v: Double) -> String { NumberText.plain((v * 1000).rounded() / 10) + " %" }

    /// How bad a file is, for "worst first": its F1, or for a file without labelled speech
    /// 1 − its false-alarm rate (lower is worse).
    static func goodness(_ m: VADScoring.Metrics) -> Double {
        m.recall.isFinite ? m.f1 : 1 - (m.falseAlarm.isFinite ? m.falseAlarm : 0)
    }

    /// The objective in words.
    var objectiveText: String {
        switch options.objective ?? .f1 {
        case .f1: return "the best F1"
        case .precision: return "the best precision"
        case .recall: return "the best recall"
        case .falseAlarm: return "the lowest false alarm (ties: the better F1)"
        case .f1Latency: return "the best F1 less the fresh-onset latency p50 in seconds (100 ms costs 0.1 of F1)"
        case .bargeIn:
            return "the least barge-in cost: missed barge-ins (fraction) + 0.1 × false barge-ins per minute + "
                + "barge-in latency p90 in seconds (10 % missed, one false barge-in a minute and 100 ms cost alike)"
        }
    }

    /// What to use, in words.
    var decision: String {
        switch summary.use {
        case "chosen": return "Use the chosen setting"
        case "baseline": return "Keep the baseline"
        default:
            return "No setting meets the constraints" + (summary.bestEffort ? " (best.json holds the closest)" : "")
        }
    }

    /// The objective and the constraints in words, with how many settings met them.
    var why: String {
        "\(summary.reason). The choice has \(objectiveText) among the settings that meet "
            + "\(options.constraints.text): \(summary.qualified) of \(summary.settings) do on all files; it was "
            + "made again fold by fold on the other folds' files and scored on the fold held out "
            + "(\(summary.folds) folds): the cross-validated figures."
    }

    /// Baseline and chosen (or the closest), on all files and cross-validated.
    var comparison: String {
        func row(_ title: String, _ c: VADTuningSummary.Candidate, _ f: VADTuningSummary.Figures?, _ on: String)
            -> String
        {
            let setting = c.setting.keys.sorted().map { "\($0)=\(NumberText.plain(c.setting[$0]!))" }
            func v(_ x: Double?, _ format: String, _ scale: Double = 1) -> String {
                x.map { String(format: format, $0 * scale) } ?? "–"
            }
            return "<tr><td>\(title)</td><td class=\"t\"><code>\(Self.h(setting.joined(separator: " ")))</code></td>"
                + "<td class=\"t\">\(on)</td><td>\(v(f?.f1, "%.3f"))</td><td>\(v(f?.falseAlarm, "%.1f", 100))</td>"
                + "<td>\(v(f?.miss, "%.1f", 100))</td><td>\(v(f?.falseTriggersPerMinute, "%.2f"))</td>"
                + "<td>\(v(f?.onsetLatencyP50Ms, "%.0f"))</td><td>\(v(f?.onsetLatencyP90Ms, "%.0f"))</td>"
                + (bargeIns
                    ? "<td>\(v(f?.falseBargeInsPerMinute, "%.2f"))</td><td>\(v(f?.missedBargeIns, "%.1f", 100))</td>"
                        + "<td>\(v(f?.bargeInLatencyP50Ms, "%.0f"))</td><td>\(v(f?.bargeInLatencyP90Ms, "%.0f"))</td>"
                    : "") + "</tr>\n"
        }
        let bargeIns = summary.filesWithReference > 0
        var s =
            "<table id=\"comparison\"><thead><tr><th></th><th class=\"t\">setting</th><th class=\"t\">scored on</th>"
            + "<th>F1</th><th>false alarm %</th><th>miss %</th><th>false triggers / min</th>"
            + "<th>fresh onset p50 ms</th><th>p90 ms</th>"
            + (bargeIns
                ? "<th>false barge-ins / min</th><th>missed barge-ins %</th><th>barge-in p50 ms</th><th>p90 ms</th>"
                : "") + "</tr></thead><tbody>\n"
        s += row("baseline", summary.baseline, summary.baseline.tuning, "all files (not tuned)")
        if let c = summary.chosen {
            s += row("chosen", c, c.tuning, "all files (the ones it was chosen on)")
            s += row("chosen", c, c.crossValidated, "cross-validated (files it was not chosen on)")
        }
        for c in summary.closest { s += row("closest", c, c.tuning, "all files") }
        return s + "</tbody></table>\n"
    }

    /// Files, worst first (ties by name).
    var worstFirst: [FileRow] {
        files.sorted { (Self.goodness($0.metrics), $0.name) < (Self.goodness($1.metrics), $1.name) }
    }

    /// The three worst files and the worst condition, in words.
    var weakest: String {
        func what(_ m: VADScoring.Metrics) -> String {
            m.recall.isFinite
                ? String(format: "F1 %.3f, false alarm %@, miss %@", m.f1, Self.pct(m.falseAlarm), Self.pct(m.miss))
                : "no labelled speech, false alarm \(Self.pct(m.falseAlarm))"
        }
        var s = worstFirst.prefix(3).map { "\(Self.h($0.name)) (\(what($0.metrics)))" }.joined(separator: "; ")
        if let c = conditions.min(by: { Self.goodness($0.metrics) < Self.goodness($1.metrics) }) {
            s += "; worst condition \(Self.h(c.name)) (\(what(c.metrics)), \(c.files) files)"
        }
        return s + "."
    }

    var html: String {
        let m = best.metrics
        var s = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>VAD tune report</title>\n"
        s += style + "<body>\n<h1>VAD tune report</h1>\n"
        s += "<p id=\"decision\"><b>\(Self.h(decision)):</b> <code>\(Self.h(setting))</code>"
        s +=
            summary.bestJSON == nil
            ? " (no best.json: no setting meets the constraints; --best-effort writes the closest).</p>\n"
            : " (every other parameter as in <a href=\"best.json\">best.json</a>; use it with "
                + "<code>audiopipe vad detect IN --config best.json</code>).</p>\n"
        s += "<p id=\"why\"><b>Why:</b> \(Self.h(why))</p>\n" + comparison
        if !summary.warnings.isEmpty {
            s +=
                "<ul id=\"warnings\">" + summary.warnings.map { "<li><b>warning:</b> \(Self.h($0))</li>" }.joined()
                + "</ul>\n"
        }
        s += String(
            format: "<p id=\"scores\"><b>Over all %d files</b> (%.1f min): F1 %.3f, precision %.3f, recall %.3f, "
                + "false alarm %@, miss %@, onset latency p50 %@ (fresh onsets %@), "
                + "%.2f false triggers per minute.</p>\n",
            files.count, minutes, m.f1, m.precision, m.recall, Self.pct(m.falseAlarm), Self.pct(m.miss),
            Self.ms(m.latencyP50), Self.ms(m.freshLatencyP50), m.falseTriggersPerMinute)
        s += "<p id=\"weakest\"><b>Weakest:</b> \(weakest)</p>\n"
        s +=
            "<p class=\"terms\">F1, precision and recall are over 10 ms frames (F1 balances the share of detected "
            + "speech that is speech and the share of speech detected); false alarm: non-speech frames called speech; "
            + "miss: speech frames not detected; onset latency: from a labelled onset to the detection (fresh: the "
            + "detector was off); false trigger: a detection touching no labelled speech. As the VAD kit's score.py "
            + "defines them. Every setting: <a href=\"sweep.csv\">sweep.csv</a>, <a href=\"sweep.json\">sweep.json"
            + "</a>; per file: <a href=\"per-file.csv\">per-file.csv</a>"
            + (conditions.isEmpty ? "" : "; per condition: <a href=\"per-condition.csv\">per-condition.csv</a>")
            + ". Click a column's header to sort by it (again to reverse).</p>\n"
        s += conditionTable + fileTable
        s +=
            "<h2>The sweep</h2>\n<img src=\"f1-vs-threshold.svg\" alt=\"F1 against the enter threshold\"> "
            + "<img src=\"precision-recall.svg\" alt=\"precision against recall\">\n"
        s += plots + VADTuningPageScript.script
        return s + "</body></html>\n"
    }

    static func ms(_ v: Double) -> String { v.isFinite ? String(format: "%.0f ms", v) : "–" }

    var style: String {
        "<style>body{font-family:sans-serif;max-width:1240px;margin:auto;padding:0 8px}table{border-collapse:collapse}"
            + "td,th{padding:2px 8px;text-align:right}th{cursor:pointer;background:#eee;user-select:none}"
            + "th[data-dir=asc]::after{content:' ▲'}th[data-dir=desc]::after{content:' ▼'}"
            + "td:first-child,th:first-child,td.t,th.t{text-align:left}tr:nth-child(even){background:#f8f8f8}"
            + ".terms{color:#555;font-size:90%}.missing{color:#b00}img{max-width:100%}</style>\n"
    }

    /// A table cell: the shown text and the value it sorts by (none: sorts last).
    static func cell(_ v: Double, _ format: String, scale: Double = 1) -> String {
        v.isFinite ? "<td data-v=\"\(v)\">\(String(format: format, v * scale))</td>" : "<td></td>"
    }

    static func header(_ table: String, _ columns: [(key: String, title: String)]) -> String {
        "<thead><tr>"
            + columns.map {
                "<th data-key=\"\(table).\($0.key)\"\($0.key == "condition" ? " class=\"t\"" : "")>\($0.title)</th>"
            }
            .joined()
            + "</tr></thead>"
    }

    var fileTable: String {
        let condition = conditionColumns.isEmpty ? [] : [(key: "condition", title: conditionTitle)]
        var s =
            "<h2>Files, worst first</h2>\n<p>Worst: the lowest F1; a file without labelled speech by its false alarm. "
            + "Each name links to its plot.</p>\n<table id=\"files\">"
        s += Self.header(
            "files",
            [(key: "file", title: "file")] + condition + [
                ("f1", "F1"), ("false_alarm", "false alarm %"), ("miss", "miss %"),
                ("latency", "onset latency p50 ms"), ("false_triggers", "false triggers"),
            ])
        s += "<tbody>\n"
        for r in worstFirst {
            let m = r.metrics
            s +=
                "<tr><td><a href=\"#\(Self.h(r.plot))\">\(Self.h(r.name))</a>\(r.hasReference ? " (ref)" : "")</td>"
                + (r.condition.map { "<td class=\"t\">\(Self.h($0))</td>" } ?? "")
                + (r.hasSpeech ? Self.cell(m.f1, "%.3f") : "<td></td>") + Self.cell(m.falseAlarm, "%.1f", scale: 100)
                + Self.cell(m.miss, "%.1f", scale: 100) + Self.cell(m.latencyP50, "%.0f")
                + "<td data-v=\"\(r.falseTriggers)\">\(r.falseTriggers)</td></tr>\n"
        }
        return s + "</tbody></table>\n"
    }

    var conditionTitle: String { "condition (" + conditionColumns.joined(separator: ", ") + ")" }

    var conditionTable: String {
        guard !conditions.isEmpty else { return "" }
        var s = "<h2>Conditions, worst first</h2>\n<table id=\"conditions\">"
        s += Self.header(
            "conditions",
            [
                (key: "condition", title: conditionTitle), ("files", "files"), ("f1", "F1"),
                ("false_alarm", "false alarm %"), ("miss", "miss %"), ("latency", "onset latency p50 ms"),
                ("false_triggers", "false triggers / min"),
            ])
        s += "<tbody>\n"
        for c in conditions.sorted(by: { (Self.goodness($0.metrics), $0.name) < (Self.goodness($1.metrics), $1.name) })
        {
            let m = c.metrics
            s +=
                "<tr><td>\(Self.h(c.name))</td><td data-v=\"\(c.files)\">\(c.files)</td>"
                + (m.recall.isFinite ? Self.cell(m.f1, "%.3f") : "<td></td>")
                + Self.cell(m.falseAlarm, "%.1f", scale: 100) + Self.cell(m.miss, "%.1f", scale: 100)
                + Self.cell(m.latencyP50, "%.0f") + Self.cell(m.falseTriggersPerMinute, "%.2f") + "</tr>\n"
        }
        return s + "</tbody></table>\n"
    }

    var plots: String {
        "<h2>Per file (worst first)</h2>\n<p>What the detector uses, over time: the frame level with the absolute "
            + "minimum and the talker gate; the score (mean of the two largest band excesses) with the enter and exit "
            + "thresholds and the averaged exit score; per band the level, its noise floor (⊕ the expected echo with "
            + "a reference) and the level the enter threshold asks for; labels and detections.</p>\n"
            + worstFirst.map {
                "<h3 id=\"\(Self.h($0.plot))\"><a href=\"\(Self.h($0.plot))\">\(Self.h($0.name))</a></h3>"
                    + "<img src=\"\(Self.h($0.plot))\" alt=\"plot of \(Self.h($0.name))\">\n"
            }
            .joined()
    }
}

/// The page's only script, inline: sorting by a clicked header and the image check.
enum VADTuningPageScript {
    /// Click a header to sort its table by that column (numbers by their `data-v`, text by its
    /// words with numbers in order; empty cells last); again to reverse. `index.html?sort=KEY` (or
    /// `-KEY`, descending; repeatable) opens the page sorted, through the same clicks — KEY is a
    /// header's `data-key`, such as `files.miss`. When everything has loaded, an image that did not
    /// is replaced by a note naming it, and `body[data-images]` says "N of M loaded".
    static let script = """
        <script>
        function sortTable(th){const body=th.closest('table').tBodies[0],k=th.cellIndex;
        const dir=th.dataset.dir==='asc'?'desc':'asc';
        for(const h of th.parentNode.cells){delete h.dataset.dir;h.removeAttribute('aria-sort')}
        th.dataset.dir=dir;th.setAttribute('aria-sort',dir==='asc'?'ascending':'descending');
        const key=r=>{const c=r.cells[k];return c.dataset.v!==undefined?parseFloat(c.dataset.v):c.textContent.trim()};
        const rows=[...body.rows];
        rows.sort((a,b)=>{const x=key(a),y=key(b),xe=x==='',ye=y==='';if(xe||ye)return xe-ye;
        const c=typeof x==='number'&&typeof y==='number'?x-y:String(x).localeCompare(String(y),'en',{numeric:true});
        return dir==='asc'?c:-c});
        rows.forEach(r=>body.appendChild(r))}
        for(const th of document.querySelectorAll('th[data-key]'))th.addEventListener('click',()=>sortTable(th));
        for(const key of new URLSearchParams(location.search).getAll('sort')){
        const th=document.querySelector('th[data-key="'+CSS.escape(key.replace(/^-/,''))+'"]');
        if(th){th.click();if(key.startsWith('-'))th.click()}}
        window.addEventListener('load',()=>{const all=[...document.images];
        const bad=all.filter(i=>!(i.complete&&i.naturalWidth>0));
        for(const i of bad){const p=document.createElement('p');p.className='missing';
        p.textContent='could not load '+i.getAttribute('src');i.replaceWith(p)}
        document.body.dataset.images=(all.length-bad.length)+' of '+all.length+' loaded'});
        </script>

        """
}
