import AudioPipelineCore
import Foundation

/// VAD configuration files: what `vad tune` writes as best.json and `--config` reads (the parameters
/// by their JSON names; `_comment` and `scores` are ignored).
public enum VADConfigurationFile {
    public static func read(_ path: String) throws(AudioPipelineError) -> VADConfiguration {
        let text = try TextInput.text(path, what: "the VAD configuration")
        do {
            return try VADConfiguration(json: try JSON.parse(text))
        } catch let e as JSON.ParseError {
            throw AudioPipelineError(.invalidData, "\(path): \(e)")
        } catch let e as AudioPipelineError {
            throw AudioPipelineError(e.code, "\(path): \(e.message)")
        } catch {
            throw AudioPipelineError(.invalidData, "\(path): \(error)")
        }
    }

}

/// A VAD configuration as a JSON object (one key per parameter, by its JSON name), optionally with
/// its scores and a comment: the shape of best.json, which `--config` reads back.
public struct VADConfigurationObject: Encodable, Sendable {
    public var configuration: VADConfiguration
    public var scores: VADScoring.Metrics?
    public var comment: String?

    public init(_ configuration: VADConfiguration, scores: VADScoring.Metrics? = nil, comment: String? = nil) {
        self.configuration = configuration
        self.scores = scores
        self.comment = comment
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        for name in VADConfiguration.parameterNames { try c.encode(configuration[name]!, forKey: JSONKey(name)) }
        if let scores { try c.encode(scores, forKey: JSONKey("scores")) }
        if let comment { try c.encode(comment, forKey: JSONKey("_comment")) }
    }
}
