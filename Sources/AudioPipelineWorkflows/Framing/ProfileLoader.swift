import AudioPipelineCore
import Foundation

/// Wire profiles by the names users give: a built-in (`openai-realtime` …) or `custom:FILE`, a JSON
/// template (see `WireProfile.custom`).
public enum ProfileLoader {
    /// The names, for help texts.
    public static let help =
        "Wire profile: \(WireProfile.BuiltIn.allCases.map(\.rawValue).joined(separator: ", ")), or custom:FILE "
        + "(a JSON template)."

    /// - Parameter rate: the client rate for profiles that let the client choose (atoms, deepgram).
    /// - Throws: `invalidConfiguration` for an unknown name or a rate the API does not take;
    ///   `inputUnavailable`/`invalidData` for a template that cannot be read or understood (naming
    ///   the file and the place in it).
    public static func load(_ name: String, rate: Int? = nil) throws(AudioPipelineError) -> WireProfile {
        if name.hasPrefix("custom:") {
            let path = String(name.dropFirst(7))
            let text = try TextInput.text(path, what: "the profile template")
            do {
                return try WireProfile.custom(try JSON.parse(text))
            } catch let e as JSON.ParseError {
                throw AudioPipelineError(.invalidData, "\(path): \(e)")
            } catch let e as AudioPipelineError {
                // A value out of range inside a file is bad data (65), not a bad option (64).
                throw AudioPipelineError(
                    e.code == .invalidConfiguration ? .invalidData : e.code, "\(path): \(e.message)")
            } catch {
                throw AudioPipelineError(.invalidData, "\(path): \(error)")
            }
        }
        guard let b = WireProfile.BuiltIn(rawValue: name) else {
            throw AudioPipelineError(.invalidConfiguration, "--profile: unknown profile '\(name)'. \(help)")
        }
        return try WireProfile.builtIn(b, rate: rate)
    }
}
