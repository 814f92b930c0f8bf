import AudioPipelineCore
import Foundation

/// The parameters `vad tune` sweeps: axes of parameter name → values, from a JSON file
/// (`{"enter_db": [6, 8, 10], …}`) or the default grid (enter_db, exit_db, hangover_ms and
/// min_speech_ms: 400 combinations), each `--set NAME=V1,V2,…` replacing or adding one axis;
/// `including(_:)` adds the baseline's own value to every axis, so the baseline is always swept.
public struct VADGrid: Sendable {
    /// The axes: a parameter's JSON name and the values it takes.
    public var axes: [(name: String, values: [Double])]

    /// Combinations refused before anything is built (a runaway grid would need gigabytes).
    public static let maximumSettings = 100_000

    /// enter_db × exit_db × hangover_ms × min_speech_ms: 400 settings.
    public static let `default` = VADGrid(axes: [
        ("enter_db", [6, 8, 10, 12, 14]), ("exit_db", [1, 1.5, 3, 5]), ("hangover_ms", [60, 100, 150, 200, 300]),
        ("min_speech_ms", [10, 20, 40, 60]),
    ])

    /// Where an axis came from, so that an error names what must be fixed.
    public enum Origin: Sendable, Hashable {
        /// A grid file (`--grid FILE`).
        case file(String)
        /// A `--set NAME=…` option.
        case option
    }

    /// Each axis's origin (absent: the default grid, or added by `vad tune` itself).
    public var origins: [String: Origin] = [:]

    /// A grid of these axes.
    public init(axes: [(name: String, values: [Double])]) { self.axes = axes }

    /// An error about axis `name`: bad data naming its grid file when it came from one, else a bad
    /// option (`--set`, or the default grid the options changed).
    public func fault(_ name: String, _ message: String) -> AudioPipelineError {
        switch origins[name] {
        case .file(let file)?: return AudioPipelineError(.invalidData, "\(file): \(message)")
        case .option?: return AudioPipelineError(.invalidConfiguration, "--set \(name): \(message)")
        case nil: return AudioPipelineError(.invalidConfiguration, message)
        }
    }

    /// The grid of a JSON file, else the default grid, with each `--set` axis replacing that axis
    /// (or adding it) and leaving the others as they are.
    public static func load(file: String?, set: [String]) throws(AudioPipelineError) -> VADGrid {
        var axes = file == nil ? Self.default.axes : []
        var origins: [String: Origin] = [:]
        if let file {
            let text = try TextInput.text(file, what: "the grid file")
            let object: [String: [Double]]
            if let problem = JSONFile.syntaxError(text) {
                throw AudioPipelineError(.invalidData, "\(file): not JSON: \(problem)")
            }
            do {
                object = try JSONDecoder().decode([String: [Double]].self, from: Data(text.utf8))
            } catch let error as DecodingError {
                // A number beyond a Double (1e999) fails the whole text, without the field's name.
                if let name = Self.outOfRange(text) {
                    throw AudioPipelineError(
                        .invalidData, "\(file): '\(name)' in the grid has a value that is not a finite number")
                }
                throw AudioPipelineError(
                    .invalidData,
                    "\(file): the grid must be a JSON object of lists of numbers: \(DecodingErrorText.describe(error))")
            } catch {
                throw AudioPipelineError(.invalidData, "\(file): \(error)")
            }
            axes = object.keys.sorted().map { ($0, object[$0]!) }
            // An empty axis would be given the baseline's value (`including`): one setting swept.
            if let empty = axes.first(where: \.values.isEmpty) {
                throw AudioPipelineError(.invalidData, "\(file): no values for '\(empty.name)' in the grid")
            }
            for name in object.keys { origins[name] = .file(file) }
        }
        for a in set {
            let (name, values) = try Self.axis(a)
            origins[name] = .option
            if let i = axes.firstIndex(where: { $0.name == name }) {
                axes[i].values = values
            } else {
                axes.append((name, values))
            }
        }
        var grid = VADGrid(axes: axes)
        grid.origins = origins
        return grid
    }

    /// One `--set NAME=V1,V2,…` axis (the detector's `vad tune` and a framework's): its name and
    /// values. An empty value (`10,,12`, a trailing comma) is no number; every value must be finite.
    static func axis(_ a: String) throws(AudioPipelineError) -> (name: String, values: [Double]) {
        let parts = a.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else {
            throw AudioPipelineError(.invalidConfiguration, "--set wants NAME=V1,V2,…, not '\(a)'")
        }
        let values = parts[1].split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingSpaces)
        }
        guard !values.isEmpty, values.allSatisfy({ $0 != nil && $0!.isFinite }) else {
            throw AudioPipelineError(.invalidConfiguration, "--set \(a): values must be finite numbers")
        }
        return (String(parts[0]), values.map { $0! })
    }

    /// The first field (by name) of a grid's text holding a number no Double holds (`1e999`): the
    /// strict parser reads it as infinite where Foundation's refuses the whole text.
    static func outOfRange(_ text: String) -> String? {
        guard let object = (try? JSON.parse(text))?.object else { return nil }
        return object.keys.sorted().first { name in
            let values = object[name]?.array ?? object[name].map { [$0] } ?? []
            return values.contains { $0.number.map { !$0.isFinite } ?? false }
        }
    }

    /// The barge-in policy's axes `vad tune` adds when the recordings have far-end references and
    /// the grid has none of its own: how long the detector must have said speech before the client
    /// stops the agent, and how long a response is protected at its start.
    public static let bargeInAxes: [(name: String, values: [Double])] = [
        ("min_barge_in_ms", [0, 40, 80, 150]), ("ignore_first_ms", [0, 300, 600]),
    ]

    /// Every axis with `base`'s own value added (sorted, once): the baseline is one of the settings.
    public func including(_ base: VADConfiguration, policy: BargeInPolicy = BargeInPolicy()) -> VADGrid {
        let setting = VADSweep.Setting(configuration: base, policy: policy, values: [:])
        var grid = VADGrid(
            axes: axes.map { axis in
                guard let v = setting[axis.name], !axis.values.contains(v) else { return axis }
                return (axis.name, (axis.values + [v]).sorted())
            })
        grid.origins = origins
        return grid
    }

    /// Known parameter names, values present and finite, and at most `maximumSettings` combinations.
    public func check(maximumSettings: Int = maximumSettings) throws(AudioPipelineError) {
        var count = 1
        for (name, values) in axes {
            guard VADConfiguration.parameterNames.contains(name) || VADSweep.policyNames.contains(name) else {
                throw fault(
                    name,
                    "unknown VAD parameter '\(name)' in the grid (known: "
                        + (VADConfiguration.parameterNames + VADSweep.policyNames).joined(separator: ", ") + ")")
            }
            guard !values.isEmpty else {
                throw fault(name, "no values for '\(name)' in the grid")
            }
            guard values.allSatisfy(\.isFinite) else {
                throw fault(name, "'\(name)' in the grid has a value that is not a finite number")
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
