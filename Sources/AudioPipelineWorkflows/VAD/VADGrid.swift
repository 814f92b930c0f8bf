import AudioPipelineCore
import Foundation

/// The parameters `vad tune` sweeps: axes of parameter name → values, from a JSON file
/// (`{"enter_db": [6, 8, 10], …}`) and/or `--set NAME=V1,V2,…`; the default sweeps enter_db,
/// exit_db, hangover_ms and min_speech_ms (500 combinations, 425 of them valid).
public struct VADGrid: Sendable {
    public var axes: [(name: String, values: [Double])]

    /// Combinations refused before anything is built (a runaway grid would need gigabytes).
    public static let maximumSettings = 100_000

    public static let `default` = VADGrid(axes: [
        ("enter_db", [6, 8, 10, 12, 14]), ("exit_db", [3, 5, 7, 9]), ("hangover_ms", [60, 100, 150, 200, 300]),
        ("min_speech_ms", [10, 20, 40, 60, 80]),
    ])

    public init(axes: [(name: String, values: [Double])]) { self.axes = axes }

    /// The grid of a JSON file and `--set` arguments (a `--set` axis replaces the file's); the default
    /// grid when both are absent.
    public static func load(file: String?, set: [String]) throws(AudioPipelineError) -> VADGrid {
        var axes: [(name: String, values: [Double])] = []
        if let file {
            let text = try TextInput.text(file, what: "the grid file")
            let object: [String: [Double]]
            do {
                object = try JSONDecoder().decode([String: [Double]].self, from: Data(text.utf8))
            } catch let error as DecodingError {
                throw AudioPipelineError(
                    .invalidData,
                    "\(file): the grid must be a JSON object of lists of numbers: \(DecodingErrorText.describe(error))")
            } catch {
                throw AudioPipelineError(.invalidData, "\(file): \(error)")
            }
            axes = object.keys.sorted().map { ($0, object[$0]!) }
        }
        for a in set {
            let parts = a.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else {
                throw AudioPipelineError(.invalidConfiguration, "--set wants NAME=V1,V2,…, not '\(a)'")
            }
            let values = parts[1].split(separator: ",", omittingEmptySubsequences: false).map {
                Double($0.trimmingSpaces)  // an empty value (`10,,12`) is no number
            }
            guard !values.isEmpty, values.allSatisfy({ $0 != nil && $0!.isFinite }) else {
                throw AudioPipelineError(.invalidConfiguration, "--set \(a): values must be finite numbers")
            }
            axes.removeAll { $0.name == String(parts[0]) }
            axes.append((String(parts[0]), values.map { $0! }))
        }
        return axes.isEmpty ? .default : VADGrid(axes: axes)
    }

    /// Known parameter names, values present and finite, and at most `maximumSettings` combinations.
    public func check(maximumSettings: Int = maximumSettings) throws(AudioPipelineError) {
        var count = 1
        for (name, values) in axes {
            guard VADConfiguration.parameterNames.contains(name) else {
                throw AudioPipelineError(.invalidConfiguration, "unknown VAD parameter '\(name)' in the grid")
            }
            guard !values.isEmpty else {
                throw AudioPipelineError(.invalidConfiguration, "no values for '\(name)' in the grid")
            }
            guard values.allSatisfy(\.isFinite) else {
                throw AudioPipelineError(
                    .invalidConfiguration, "'\(name)' in the grid has a value that is not a finite number")
            }
            let (product, overflow) = count.multipliedReportingOverflow(by: values.count)
            guard !overflow, product <= maximumSettings else {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "the grid has more than \(maximumSettings) combinations; sweep fewer values or raise --max-settings"
                )
            }
            count = product
        }
    }
}
