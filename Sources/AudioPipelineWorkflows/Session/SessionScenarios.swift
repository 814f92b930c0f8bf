import AudioPipelineCore
import Foundation

/// Many sessions at once (`session simulate --scenarios DIR -o OUT`): every `*.json` scenario in
/// DIR (a `SessionConfiguration`, paths relative to the file) runs through the batch engine (every
/// core, a failing scenario reported and the rest going on), each into `OUT/NAME/`, and the
/// headline figures of all of them land in one table: `OUT/scenarios.csv` and `scenarios.json`.
public struct SessionScenariosReport: WorkflowReport, Codable, Hashable {
    public struct Row: Codable, Sendable, Hashable {
        public var scenario: String
        public var bargeIns: Int
        public var missedBargeIns: Int
        public var falseBargeIns: Int
        public var agentOnlyMinutes: Double
        @NullWhenAbsent public var falseBargeInsPerMinute: Double?
        @NullWhenAbsent public var latencyMsP50: Double?
        @NullWhenAbsent public var latencyMsP90: Double?
        @NullWhenAbsent public var talkOverMsP50: Double?
        /// nil when it ran; else why not.
        @NullWhenAbsent public var error: String?
    }

    public var rows: [Row]
    public var summary: BatchSummary
    public var output: String
    public var warnings: [String]

    public var text: String {
        func f(_ v: Double?, _ format: String) -> String { v.map { String(format: format, $0) } ?? "n/a" }
        var lines = ["scenario  onsets  missed  false  false/min  latency p50  p90  talk-over p50"]
        for r in rows {
            if let e = r.error {
                lines.append("\(r.scenario)  failed: \(e)")
                continue
            }
            lines.append(
                "\(r.scenario)  \(r.bargeIns)  \(r.missedBargeIns)  \(r.falseBargeIns)  "
                    + "\(f(r.falseBargeInsPerMinute, "%.2f"))  \(f(r.latencyMsP50, "%.0f ms"))  "
                    + "\(f(r.latencyMsP90, "%.0f ms"))  \(f(r.talkOverMsP50, "%.0f ms"))")
        }
        lines.append(summary.text + " -> \(output)/scenarios.csv")
        return lines.joined(separator: "\n")
    }
}

public enum SessionScenarios {
    /// `result` sees every scenario as it finishes (its error or warnings, for printing).
    public static func run(
        directory: String, output: String, options: BatchOptions = BatchOptions(),
        result: @escaping (BatchResult) -> Void = { _ in }
    ) throws(AudioPipelineError) -> SessionScenariosReport {
        var selection = BatchSelection()
        selection.paths = [directory]
        selection.extensions = ["json"]
        let inputs = try selection.collect()
        try OutputTree.makeParent(of: output + "/x")
        let items = inputs.map { input in
            let name = String(input.relativePath.dropLast(5)).replacingOccurrences(of: "/", with: "_")
            return BatchItem(input: input, output: output + "/" + name)
        }
        let rows = RowCollector()
        let summary = try BatchRunner.run(items, options: options, result: result) { item in
            let name = AtomicOutput.split(item.output!).name
            do {
                let c = try SessionConfiguration.read(scenario: item.input.path)
                let r = try SessionSimulator(configuration: c).run(outputDirectory: item.output!)
                rows.add(
                    .init(
                        scenario: name, bargeIns: r.bargeIns.count, missedBargeIns: r.missedBargeIns,
                        falseBargeIns: r.falseBargeIns, agentOnlyMinutes: r.agentOnlyMinutes,
                        falseBargeInsPerMinute: r.falseBargeInsPerMinute, latencyMsP50: r.latencyMsP50,
                        latencyMsP90: r.latencyMsP90, talkOverMsP50: r.talkOverMsP50, error: nil))
                return FileOutcome(audioSeconds: r.durationS, warnings: r.warnings)
            } catch let error as AudioPipelineError {
                rows.add(
                    .init(
                        scenario: name, bargeIns: 0, missedBargeIns: 0, falseBargeIns: 0, agentOnlyMinutes: 0,
                        falseBargeInsPerMinute: nil, latencyMsP50: nil, latencyMsP90: nil, talkOverMsP50: nil,
                        error: error.message))
                throw error
            }
        }
        let report = SessionScenariosReport(
            rows: rows.sorted, summary: summary, output: output, warnings: [])
        let json = try ByteOutput(path: output + "/scenarios.json")
        try json.write(try ReportJSON.encode(report) + "\n")
        let csv = try ByteOutput(path: output + "/scenarios.csv")
        try csv.write(table(report.rows))
        try json.commit()
        try csv.commit()
        return report
    }

    static func table(_ rows: [SessionScenariosReport.Row]) -> String {
        func f(_ v: Double?) -> String { v.map { NumberText.plain($0) } ?? "" }
        var csv = CSVWriter(header: [
            "scenario", "user_onsets", "missed", "false_barge_ins", "agent_only_min", "false_per_min",
            "latency_p50_ms", "latency_p90_ms", "talk_over_p50_ms", "error",
        ])
        for r in rows {
            let counts = [String(r.bargeIns), String(r.missedBargeIns), String(r.falseBargeIns)]
            let figures = [
                NumberText.plain(r.agentOnlyMinutes), f(r.falseBargeInsPerMinute), f(r.latencyMsP50),
                f(r.latencyMsP90), f(r.talkOverMsP50),
            ]
            csv.append([r.scenario] + counts + figures + [r.error ?? ""])
        }
        return csv.text
    }

    /// The rows of the workers, in scenario order at the end.
    final class RowCollector: @unchecked Sendable {
        private var rows: [SessionScenariosReport.Row] = []
        private let lock = NSLock()
        func add(_ r: SessionScenariosReport.Row) { lock.withLock { rows.append(r) } }
        var sorted: [SessionScenariosReport.Row] { lock.withLock { rows.sorted { $0.scenario < $1.scenario } } }
    }
}
