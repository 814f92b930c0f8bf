import AudioPipelineCore
import Foundation

/// Many sessions at once (`session simulate --scenarios DIR -o OUT`): every `*.json` scenario in
/// DIR (a `SessionConfiguration`, paths relative to the file) runs through the batch engine (every
/// core, a failing scenario reported and the rest going on), each into `OUT/NAME/`, and the
/// headline figures of all of them land in one table: `OUT/scenarios.csv` and `scenarios.json`.
public struct SessionScenariosReport: WorkflowReport, Codable, Hashable {
    /// One scenario's figures.
    public struct Row: Codable, Sendable, Hashable {
        /// The scenario's name (its file's, without `.json`).
        public var scenario: String
        /// Its headline figures.
        public var headline: SessionHeadline
        /// nil when it ran; else why not.
        @NullWhenAbsent public var error: String?
    }

    /// One row per scenario, in name order.
    public var rows: [Row]
    /// The batch's counts and times.
    public var summary: BatchSummary
    /// The output directory.
    public var output: String
    public var warnings: [String]

    /// The table as the CLI prints it.
    public var text: String {
        let lines =
            ["scenario  " + SessionHeadline.header]
            + rows.map { "\($0.scenario)  " + ($0.error.map { "failed: \($0)" } ?? $0.headline.columns) }
            + [summary.text + " -> \(output)/scenarios.csv"]
        return lines.joined(separator: "\n")
    }
}

/// Runs a folder of scenario files (`session simulate --scenarios`).
public enum SessionScenarios {
    /// `result` sees every scenario as it finishes (its error or warnings, for printing).
    public static func run(
        directory: String, output: String, options: BatchOptions = BatchOptions(),
        result: @escaping (BatchResult) -> Void = { _ in }
    ) throws(AudioPipelineError) -> SessionScenariosReport {
        let output = PathParts.normalized(output)  // `-o results/` prints results/scenarios.csv
        var selection = BatchSelection()
        selection.paths = [directory]
        selection.extensions = ["json"]
        let inputs = try selection.collect()
        guard !inputs.isEmpty else {
            throw AudioPipelineError(.inputUnavailable, "\(directory): no scenario files (*.json) in it")
        }
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
                rows.add(.init(scenario: name, headline: SessionHeadline(r), error: nil))
                return FileOutcome(audioSeconds: r.durationS, warnings: r.warnings)
            } catch let error as AudioPipelineError {
                rows.add(.init(scenario: name, headline: SessionHeadline(), error: error.message))
                throw error
            }
        }
        let report = SessionScenariosReport(
            rows: rows.sorted, summary: summary, output: output, warnings: [])
        // The table is a batch's record, as its scenarios are: in place whatever the exit status
        // (a failed scenario is one of its rows).
        try TemporaryFiles.publishingEach { () throws(AudioPipelineError) in
            let json = try ByteOutput(path: output + "/scenarios.json")
            try json.write(try ReportJSON.encode(report) + "\n")
            let csv = try ByteOutput(path: output + "/scenarios.csv")
            try csv.write(table(report.rows))
            try json.commit()
            try csv.commit()
        }
        return report
    }

    static func table(_ rows: [SessionScenariosReport.Row]) -> String {
        var csv = CSVWriter(header: ["scenario"] + SessionHeadline.csvHeader + ["error"])
        for r in rows { csv.append([r.scenario] + r.headline.csvFields + [r.error ?? ""]) }
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
