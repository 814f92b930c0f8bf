import AudioPipelineCore
import Foundation

/// One parameter of a session varied over values (`session simulate --sweep NAME=v1,v2,…`): one
/// simulation per value, each with its full outputs in `DIR/NAME=VALUE/`, and the trade-off in
/// `DIR/sweep.csv`, `sweep.json` and `sweep.svg` (barge-in latency and talk-over against false
/// barge-ins per minute).
public struct SessionSweepReport: WorkflowReport, Codable, Hashable {
    /// One swept value's figures.
    public struct Row: Codable, Sendable, Hashable {
        /// The value.
        public var value: Double
        /// Its headline figures.
        public var headline: SessionHeadline
    }

    /// The parameter swept (its JSON name).
    public var parameter: String
    /// One row per value, in the order given.
    public var rows: [Row]
    /// The output directory.
    public var output: String
    public var warnings: [String]

    /// The table as the CLI prints it.
    public var text: String {
        let lines =
            ["\(parameter)  " + SessionHeadline.header]
            + rows.map { "\(NumberText.plain($0.value))  " + $0.headline.columns }
            + ["-> \(output)/sweep.csv, sweep.svg"]
        return lines.joined(separator: "\n")
    }
}

/// Runs one session per value of a parameter (`session simulate --sweep NAME=v1,v2,…`).
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

    /// Parses `NAME=v1,v2,…` (1 to 100 values, each once). An empty entry (`1,,2`, a trailing comma)
    /// is refused, not skipped: it is a typo more often than a wish; so is a value given twice (both
    /// runs would write the same `NAME=VALUE/`, the second over the first).
    public static func parse(_ text: String) throws(AudioPipelineError) -> (name: String, values: [Double]) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        let values =
            parts.count == 2
            ? parts[1].split(separator: ",", omittingEmptySubsequences: false).map {
                Double($0.trimmingCharacters(in: .whitespaces))
            } : []
        guard parts.count == 2, !values.isEmpty, values.count <= 100, values.allSatisfy({ $0?.isFinite ?? false })
        else {
            throw AudioPipelineError(
                .invalidConfiguration, "--sweep: expected NAME=v1,v2,… (1–100 numbers), got '\(text)'")
        }
        let numbers = values.map { $0! }
        // (Compared as the runs' folders name them: two values that print alike share a folder.)
        let names = numbers.map { NumberText.plain($0) }
        for (index, name) in names.enumerated() where names[..<index].contains(name) {
            throw AudioPipelineError(.invalidConfiguration, "--sweep: \(parts[0])=\(name) is given twice in '\(text)'")
        }
        return (parts[0], numbers)
    }

    /// Runs `c` once per value of `sweep` (`NAME=v1,v2,…`) into `output/NAME=VALUE/`, and writes
    /// `sweep.csv`, `sweep.json` and `sweep.svg` there.
    /// - Throws: `invalidConfiguration` for a sweep that cannot be read or a value out of range; what
    /// `SessionSimulator` throws for a run.
    public static func run(
        configuration c: SessionConfiguration, sweep: String, output: String
    ) throws(AudioPipelineError) -> SessionSweepReport {
        let (name, values) = try parse(sweep)
        let configurations = try values.map { (v) throws(AudioPipelineError) in try setting(name, v, in: c) }
        let inputs = [c.agent, c.user, c.userLabels, c.recorded, c.reference, c.trace, c.echo.impulseResponse]
        try SamePathGuard.refuse(inputs: inputs.compactMap { $0 }, insideReport: output)
        let directory = try ReportDirectory(path: output)
        let output = directory.path  // `-o sweep/` prints sweep/sweep.csv
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

    /// Two panels over the swept values: barge-in latency p50/p90 and talk-over p50 (ms), and false
    /// barge-ins per minute; each with its tick labels in its unit and a legend. A value whose run
    /// missed user onsets shows them as a red ✕ with "missed N" at the top of the latency panel (its
    /// latencies are those of the onsets found, so p90 alone would seem to fall); the title counts them.
    static func plot(_ r: SessionSweepReport) -> String {
        let w = 900.0, h = 410.0, left = 70.0, panelW = (w - left - 150) / 2, top = 76.0, plotH = h - top - 70
        var s = SVG(width: w, height: h, fontSize: 11)
        let onsets = r.rows.reduce(0) { $0 + $1.headline.bargeIns }
        let missed = r.rows.reduce(0) { $0 + $1.headline.missedBargeIns }
        s.text(
            "session sweep over \(r.parameter): \(missed) missed barge-ins of \(onsets) user onsets", x: left, y: 20,
            bold: true)
        let latency: [(String, String, (SessionSweepReport.Row) -> Double?)] = [
            ("latency p50", "#2e7d32", { $0.headline.latencyMsP50 }),
            ("latency p90", "#81c784", { $0.headline.latencyMsP90 }),
            ("talk-over p50", "#f5a623", { $0.headline.talkOverMsP50 }),
        ]
        let falseRate: [(String, String, (SessionSweepReport.Row) -> Double?)] = [
            ("false barge-ins / min", "#d0021b", { $0.headline.falseBargeInsPerMinute })
        ]
        SessionPlotParts.legend(
            &s,
            latency.map { ($0.0 + " (of onsets found)", .lineAndDot($0.1)) } + [
                ("missed barge-ins (at the top)", .cross(SessionPlotParts.missedColor)),
                ("false barge-ins per minute", .lineAndDot(falseRate[0].1)),
            ], x: left, y: 40, maxX: w - 10)
        let panels = [("barge-in latency, ms", "ms", latency), ("false barge-ins per minute", "/min", falseRate)]
        for (p, panel) in panels.enumerated() {
            let x0 = left + Double(p) * (panelW + 110)
            drawPanel(&s, r, series: panel.2, x0: x0, top: top, width: panelW, height: plotH, unit: panel.1)
            s.text(panel.0, x: x0 - 52, y: top + plotH / 2, anchor: .middle, rotate: true)
            if p == 0 {
                for row in r.rows where row.headline.missedBargeIns > 0 {
                    SessionPlotParts.missed(
                        &s, count: row.headline.missedBargeIns, x: sweepX(row.value, r, x0: x0, width: panelW),
                        y: top + 14,
                        title: "\(r.parameter)=\(NumberText.plain(row.value)): \(row.headline.missedBargeIns) of "
                            + "\(row.headline.bargeIns) user onsets missed")
                }
            }
        }
        return s.document
    }

    /// Where `value` sits on a panel's swept axis.
    private static func sweepX(_ value: Double, _ r: SessionSweepReport, x0: Double, width: Double) -> Double {
        let xs = r.rows.map(\.value)
        let lo = xs.min() ?? 0, hi = max(xs.max() ?? 1, (xs.min() ?? 0) + 1e-9)
        return x0 + width * (value - lo) / (hi - lo)
    }

    /// One panel: frame, value ticks in `unit`, the swept values as x ticks in the parameter's unit,
    /// a line and dots per series (a value without a figure leaves a gap).
    private static func drawPanel(
        _ s: inout SVG, _ r: SessionSweepReport, series: [(String, String, (SessionSweepReport.Row) -> Double?)],
        x0: Double, top: Double, width: Double, height: Double, unit: String
    ) {
        let values = series.flatMap { one in r.rows.compactMap { one.2($0) } }
        let ticks = SessionPlotParts.ticks(upTo: max(unit == "ms" ? 100 : 1, values.max() ?? 0))
        let ymax = ticks.last ?? 1
        func y(_ v: Double) -> Double { top + height * (1 - min(v, ymax) / ymax) }
        s.rect(x: x0, y: top, width: width, height: height, stroke: "#999")
        SessionPlotParts.yTicks(&s, ticks, unit: unit, x: x0, y: y)
        for one in series {
            var d = PathData()
            var first = true
            for row in r.rows {
                guard let v = one.2(row) else {
                    first = true
                    continue
                }
                let px = sweepX(row.value, r, x0: x0, width: width)
                if first { d.move(px, y(v)) } else { d.line(px, y(v)) }
                first = false
                s.circle(x: px, y: y(v), r: 3, fill: one.1)
            }
            s.path(d.d, stroke: one.1, width: 2)
        }
        let unitOfX = SessionPlotParts.unit(of: r.parameter)
        s.open(["class": "x-ticks"])
        for v in r.rows.map(\.value) {
            let x = sweepX(v, r, x0: x0, width: width)
            s.line(x1: x, y1: top + height, x2: x, y2: top + height + 4, stroke: "#999")
            let label = NumberText.plain(v) + (unitOfX.isEmpty ? "" : " " + unitOfX)
            s.text(label, x: x, y: top + height + 16, anchor: .middle)
        }
        s.close()
        s.text(r.parameter, x: x0 + width / 2, y: top + height + 34, anchor: .middle)
    }
}
