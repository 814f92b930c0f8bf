/// `VADConfiguration` as JSON (or any coder): one key per parameter, named as in `parameters`
/// (`{"frame_ms": 10, "enter_db": 10, …}`), which is what `vad tune` writes to best.json.
///
/// Decoding starts from the defaults (`VADConfiguration()`), so a missing key keeps its default;
/// an unknown key is an error that names it (a typo is not silently ignored); `_comment`,
/// `_best_effort`, `scores`, `version` and `barge_in` (the client's barge-in policy, which
/// `session simulate --config` reads) are ignored, so a best.json written by `vad tune` reads back
/// as is.
/// Decoding checks names and types, not ranges: `validate()` does that (and `EnergyVAD` calls it).
/// Encoding writes every parameter. Standard-library Codable only: the core stays Foundation-free.
extension VADConfiguration: Codable {
    /// A key by its string, so that decoding sees unknown keys too.
    struct ParameterKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// Keys a configuration file may hold besides the parameters: a note, the mark of a best-effort
    /// choice (one that breaks the tuning's constraints), the scores `vad tune` reached with it, a
    /// format version, and the client's barge-in policy (not the detector's).
    static let ignoredKeys: Set<String> = ["_comment", "_best_effort", "scores", "version", "barge_in"]

    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: ParameterKey.self)
        for key in container.allKeys where !Self.ignoredKeys.contains(key.stringValue) {
            guard let keyPath = Self.keyPath(named: key.stringValue) else {
                let known = Self.parameterNames.joined(separator: ", ")
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "unknown VAD parameter '\(key.stringValue)' (known: \(known))")
            }
            self[keyPath: keyPath] = try container.decode(Double.self, forKey: key)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ParameterKey.self)
        for (name, keyPath) in Self.parameters {
            try container.encode(self[keyPath: keyPath], forKey: ParameterKey(stringValue: name))
        }
    }
}
