import AudioPipelineCore
import Foundation

/// One parameter of a session varied over values (`session simulate --sweep NAME=v1,v2,…`): one
/// simulation per value, each with its full outputs in `DIR/NAME=VALUE/`, and the trade-off in
/// `DIR/sweep.csv`, `sweep.json` and `sweep.svg` (barge-in latency and talk-over against false
/// barge-ins per minute).
public struct SessionSweepReport: WorkflowReport, Codable, Hashable {
    public struct Row: Codable, Sendable, Hashable {
        public var value: Double
        public var headline: SessionHeadline
    }

    public var parameter: String
    public var rows: [Row]
    public var output: String
    public var warnings: [String]

    public var text: String {
        let lines =
            ["\(parameter)  " + SessionHeadline.header]
            + rows.map { "\(NumberText.plain($0.value))  " + $0.headline.columns }
            + ["-> \(output)/sweep.csv, sweep.svg"]
        return lines.joined(separator: "\n")
    }
}

public enum SessionSweep {
    /// The parameters a sweep may vary besides the VAD's own (by their JSON names).
    public static let sessionParameters = [
        "echo_gain_db", "echo_delay_ms", "speaker_highpass_hz", "speaker_lowpass_hz", "speaker_peak_hz",
        "speaker_peak_db", "rt60_ms", "drr_db", "softclip", "min_barge_in_ms", "ignore_first_ms", "jitter_ms",
        "delay_ms", "loss_pct", "noise_dbfs",
    ]

    /// `c` with `name` set to `value`.
    public static func setting(
        _ name: String, _ value: Double, in c: SessionConfiguration
    ) throws(AudioPipelineError) -> SessionConfiguration {
        var c = c
        switch name {
        case "echo_gain_db": c.echo.gainDb = value
        case "echo_delay_ms": c.echo.delayMs = value
        case "speaker_highpass_hz": c.echo.speakerHighPassHz = value
        case "speaker_lowpass_hz": c.echo.speakerLowPassHz = value
        case "speaker_peak_hz": c.echo.speakerPeakHz = value
        case "speaker_peak_db": c.echo.speakerPeakDb = value
        case "rt60_ms": c.echo.rt60Ms = value
        case "drr_db": c.echo.drrDb = value
        case "softclip": c.echo.softClip = value
        case "min_barge_in_ms": c.policy.minimumSpeechMs = value
        case "ignore_first_ms": c.policy.ignoreFirstMs = value
        case "jitter_ms": c.network.jitterMs = value
        case "delay_ms": c.network.delayMs = value
        case "loss_pct": c.network.lossPercent = value
        case "noise_dbfs": c.noiseDbfs = value
        default:
            guard c.vad[name] != nil else {
                let names = (sessionParameters + VADConfiguration.parameterNames).joined(separator: ", ")
                throw AudioPipelineError(.invalidConfiguration, "--sweep: unknown parameter '\(name)' (\(names))")
            }
            c.vad[name] = value
        }
        try c.validate()
        return c
    }

    /// Parses `NAME=v1,v2,…` (2 to 100 values).
    public static func parse(_ text: String) throws(AudioPipelineError) -> (name: String, values: [Double]) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        let values =
            parts.count == 2
            ? parts[1].split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) } : []
        guard parts.count == 2, !values.isEmpty, values.count <= 100, values.allSatisfy({ $0?.isFinite ?? false })
        else {
            throw AudioPipelineError(
                .invalidConfiguration, "--sweep: expected NAME=v1,v2,… (1–100 numbers), got '\(text)'")
        }
        return (parts[0], values.map { $0! })
    }

    public static func run(
        configuration c: SessionConfiguration, sweep: String, output: String
    ) throws(AudioPipelineError) -> SessionSweepReport {
        let (name, values) = try parse(sweep)
        let configurations = try values.map { (v) throws(AudioPipelineError) in try setting(name, v, in: c) }
        let directory = try ReportDirectory(path: output)
        var rows: [SessionSweepReport.Row] = []
        var warnings: [String] = []
        for (v, config) in zip(values, configurations) {
            let folder = "\(name)=\(NumberText.plain(v))"
            let r = try SessionSimulator(configuration: config).run(
                outputDirectory: directory.temporaryPath + "/" + folder, reportedAs: output + "/" + folder)
            warnings += r.warnings.map { "\(name)=\(NumberText.plain(v)): \($0)" }
            rows.append(.init(value: v, headline: SessionHeadline(r)))
        }
        let report = SessionSweepReport(parameter: name, rows: rows, output: output, warnings: warnings)
        try directory.write("sweep.json", try ReportJSON.encode(report) + "\n")
        try directory.write("sweep.csv", csv(report))
        try directory.write("sweep.svg", plot(report))
        try directory.publish()
        return report
    }

    static func csv(_ r: SessionSweepReport) -> String {
        var csv = CSVWriter(header: [r.parameter] + SessionHeadline.csvHeader)
        for row in r.rows { csv.append([NumberText.plain(row.value)] + row.headline.csvFields) }
        return csv.text
    }

    /// Two panels over the swept values: latency p50/p90 and talk-over (ms), false barge-ins per minute.
    static func plot(_ r: SessionSweepReport) -> String {
        let w = 900.0, h = 360.0, left = 70.0, panelW = (w - left - 60) / 2, top = 40.0, plotH = h - top - 60
        var s = SVG(width: w, height: h, fontSize: 11)
        s.text("session sweep over \(r.parameter)", x: left, y: 20, bold: true)
        let xs = r.rows.map(\.value)
        let lo = xs.min() ?? 0, hi = max(xs.max() ?? 1, lo + 1e-9)
        let panels: [(String, [(String, String, (SessionSweepReport.Row) -> Double?)])] = [
            (
                "ms",
                [
                    ("latency p50", "#2e7d32", { $0.headline.latencyMsP50 }),
                    ("latency p90", "#81c784", { $0.headline.latencyMsP90 }),
                    ("talk-over p50", "#f5a623", { $0.headline.talkOverMsP50 }),
                ]
            ),
            ("false barge-ins / min", [("false / min", "#d0021b", { $0.headline.falseBargeInsPerMinute })]),
        ]
        for (p, (unit, panel)) in panels.enumerated() {
            let x0 = left + Double(p) * (panelW + 50)
            let values = panel.flatMap { series in r.rows.compactMap { series.2($0) } }
            let ymax = max(1, (values.max() ?? 1) * 1.1)
            s.rect(x: x0, y: top, width: panelW, height: plotH, stroke: "#999")
            s.text(unit, x: x0, y: top - 6)
            s.text(NumberText.plain(ymax.rounded()), x: x0 - 4, y: top + 4, anchor: .end)
            s.text("0", x: x0 - 4, y: top + plotH, anchor: .end)
            for (k, series) in panel.enumerated() {
                var d = PathData()
                var first = true
                for row in r.rows {
                    guard let v = series.2(row) else { continue }
                    let px = x0 + panelW * (row.value - lo) / (hi - lo)
                    let py = top + plotH * (1 - v / ymax)
                    if first { d.move(px, py) } else { d.line(px, py) }
                    first = false
                    s.circle(x: px, y: py, r: 3, fill: series.1)
                }
                s.path(d.d, stroke: series.1, width: 2)
                s.text(series.0, x: x0 + 8, y: top + 14 + Double(k) * 14, fill: series.1)
            }
            for v in xs {
                s.text(NumberText.plain(v), x: x0 + panelW * (v - lo) / (hi - lo), y: top + plotH + 16, anchor: .middle)
            }
            s.text(r.parameter, x: x0 + panelW / 2, y: top + plotH + 34, anchor: .middle)
        }
        return s.document
    }
}
