import AudioPipelineCore
import Foundation

/// Wire profiles by the names users give: a built-in (`openai-realtime` …) or `custom:FILE`, a JSON
/// template (see `WireProfile.custom`).
public enum ProfileLoader {
    /// The names, for help texts.
    public static let help =
        "Wire profile: \(WireProfile.BuiltIn.allCases.map(\.rawValue).joined(separator: ", ")), or custom:FILE "
        + "(a JSON template)."

    /// - Parameters:
    ///   - name: a built-in profile's name, or `custom:FILE` for a JSON template.
    ///   - rate: the client rate for profiles that let the client choose (atoms, deepgram).
    /// - Throws: `invalidConfiguration` for an unknown name or a rate the API does not take;
    ///   `inputUnavailable`/`invalidData` for a template that cannot be read or understood (naming
    ///   the file and the place in it).
    public static func load(_ name: String, rate: Int? = nil) throws(AudioPipelineError) -> WireProfile {
        if let template = try template(name) {
            let path = String(name.dropFirst(7))
            do {
                return try WireProfile.custom(template)
            } catch {
                // A value out of range inside a file is bad data (65), not a bad option (64).
                throw AudioPipelineError(
                    error.code == .invalidConfiguration ? .invalidData : error.code, "\(path): \(error.message)")
            }
        }
        guard let b = WireProfile.BuiltIn(rawValue: name) else {
            throw AudioPipelineError(.invalidConfiguration, "--profile: unknown profile '\(name)'. \(help)")
        }
        do {
            return try WireProfile.builtIn(b, rate: rate)
        } catch {
            throw rate == nil ? error : AudioPipelineError(error.code, "--rate: \(error.message)")
        }
    }

    /// The template a `custom:FILE` name points to, read and decoded; nil for a built-in name.
    public static func template(_ name: String) throws(AudioPipelineError) -> CustomProfileTemplate? {
        guard name.hasPrefix("custom:") else { return nil }
        let path = String(name.dropFirst(7))
        return try JSONFile.decode(CustomProfileTemplate.self, path, what: "profile template")
    }
}
