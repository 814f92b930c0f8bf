import AudioPipelineCore
import Foundation

/// VAD configuration files: what `vad tune` writes as best.json and `--config` reads (the parameters
/// by their JSON names; `_comment` and `scores` are ignored).
public enum VADConfigurationFile {
    /// `base` with `values` (parameter name → value; nil leaves it) and then `NAME=VALUE` assignments
    /// (`--param`) applied, validated. Unknown names and malformed assignments are usage errors.
    public static func applying(
        _ values: [(String, Double?)], assignments: [String], to base: VADConfiguration
    ) throws(AudioPipelineError) -> VADConfiguration {
        var c = base
        for case (let name, let value?) in values { c[name] = value }
        for a in assignments {
            let parts = a.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            guard parts.count == 2, let value = Double(parts[1]) else {
                throw AudioPipelineError(.invalidConfiguration, "--param wants NAME=VALUE, not '\(a)'")
            }
            guard c[parts[0]] != nil else {
                let known = VADConfiguration.parameterNames.joined(separator: ", ")
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "--param: unknown VAD parameter '\(parts[0])' "
                        + "(known: \(known))")
            }
            c[parts[0]] = value
        }
        try c.validate()
        return c
    }

    /// The text of the configuration file at `path`, checked to be JSON.
    static func text(_ path: String) throws(AudioPipelineError) -> String {
        let text = try TextInput.text(path, what: "the VAD configuration")
        if let problem = JSONFile.syntaxError(text) {
            throw AudioPipelineError(.invalidData, "\(path): not JSON: \(problem)")
        }
        return text
    }

    /// `text`, the configuration file at `path`, decoded as `type`; a file that does not fit is bad
    /// data naming the file and the key at fault.
    static func decode<T: Decodable>(_ type: T.Type, _ text: String, path: String) throws(AudioPipelineError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw AudioPipelineError(.invalidData, "\(path): \(DecodingErrorText.describe(error, keyIsSubject: true))")
        } catch {
            throw AudioPipelineError(.invalidData, "\(path): not JSON: \(error)")
        }
    }

    /// The client's barge-in policy a configuration file holds (`"barge_in": {"min_barge_in_ms": 80,
    /// "ignore_first_ms": 0}`, what `vad tune` writes with far-end references); nil without one.
    public static func policy(_ path: String) throws(AudioPipelineError) -> BargeInPolicy? {
        try policy(text(path), path: path)
    }

    /// The barge-in policy in `text`, the configuration file at `path`.
    static func policy(_ text: String, path: String) throws(AudioPipelineError) -> BargeInPolicy? {
        struct File: Decodable {
            var barge_in: [String: Double]?
        }
        let file = try decode(File.self, text, path: path)
        guard let p = file.barge_in else { return nil }
        let known = ["min_barge_in_ms", "ignore_first_ms"]
        if let unknown = p.keys.sorted().first(where: { !known.contains($0) }) {
            throw AudioPipelineError(
                .invalidData,
                "\(path): barge_in.\(unknown): unknown key (known: \(known.joined(separator: ", ")))")
        }
        let policy = BargeInPolicy(
            minimumSpeechMs: p["min_barge_in_ms"] ?? 0, ignoreFirstMs: p["ignore_first_ms"] ?? 0)
        do {
            try policy.validate(names: ("barge_in.min_barge_in_ms", "barge_in.ignore_first_ms"))
        } catch {
            throw AudioPipelineError(.invalidData, "\(path): \(error.message)")
        }
        return policy
    }

    /// The configuration in the JSON file at `path` (best.json's shape; unknown keys refused). Its
    /// barge-in policy is checked too, whether or not the command uses it: a broken part of a file
    /// is an error wherever the file is given.
    /// - Throws: `invalidData` naming the file and the key or value at fault.
    public static func read(_ path: String) throws(AudioPipelineError) -> VADConfiguration {
        let contents = try text(path)
        let c = try decode(VADConfiguration.self, contents, path: path)
        _ = try policy(contents, path: path)
        do {
            try c.validate()
        } catch {
            // A value out of range inside a file is bad data (65), not a bad option (64).
            throw AudioPipelineError(.invalidData, "\(path): \(error.message)")
        }
        return c
    }
}

/// A VAD configuration as a JSON object (one key per parameter, by its JSON name), optionally with
/// its scores and a comment: the shape of best.json, which `--config` reads back.
public struct VADConfigurationObject: Encodable, Sendable {
    /// The parameters.
    public var configuration: VADConfiguration
    /// Its scores, when written by `vad tune` (`scores`).
    public var scores: VADScoring.Metrics?
    /// A note for people (`_comment`).
    public var comment: String?
    /// A best-effort choice: the constraints it breaks, in words (`_best_effort`).
    public var bestEffort: String?
    /// The client's barge-in policy that goes with it (`barge_in`), when tuned.
    public var policy: BargeInPolicy?

    /// An object of `configuration`, with the optional extras.
    public init(
        _ configuration: VADConfiguration, scores: VADScoring.Metrics? = nil, comment: String? = nil,
        bestEffort: String? = nil, policy: BargeInPolicy? = nil
    ) {
        self.policy = policy
        self.configuration = configuration
        self.scores = scores
        self.comment = comment
        self.bestEffort = bestEffort
    }

    public func encode(to encoder: any Encoder) throws {
        try configuration.encode(to: encoder)
        var c = encoder.container(keyedBy: JSONKey.self)
        if let scores { try c.encode(scores, forKey: JSONKey("scores")) }
        if let comment { try c.encode(comment, forKey: JSONKey("_comment")) }
        if let bestEffort { try c.encode(bestEffort, forKey: JSONKey("_best_effort")) }
        if let policy {
            try c.encode(
                ["min_barge_in_ms": policy.minimumSpeechMs, "ignore_first_ms": policy.ignoreFirstMs],
                forKey: JSONKey("barge_in"))
        }
    }
}
