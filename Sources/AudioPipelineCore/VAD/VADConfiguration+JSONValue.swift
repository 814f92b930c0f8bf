// TODO(workflows): remove once callers move. The configuration file is read with JSONDecoder
// through `Codable` (VADConfiguration+Codable.swift) and written with JSONEncoder; these two are
// the hand-made JSON path the CLI still uses.

extension VADConfiguration {
    /// Reads every parameter present in a JSON object (the file `vad tune` writes); unknown keys
    /// are an error, so a typo is not silently ignored. `_comment`, `scores` and `version` are
    /// skipped, as `Codable` skips them.
    public init(json: JSONValue) throws(AudioPipelineError) {
        self.init()
        guard let o = json.object else {
            throw AudioPipelineError(.invalidData, "VAD configuration must be a JSON object")
        }
        for (k, v) in o where !Self.ignoredKeys.contains(k) {
            guard let keyPath = Self.keyPath(named: k) else {
                let known = Self.parameterNames.joined(separator: ", ")
                throw AudioPipelineError(.invalidData, "unknown VAD parameter '\(k)' (known: \(known))")
            }
            guard let d = v.number else {
                throw AudioPipelineError(.invalidData, "VAD parameter '\(k)' must be a number")
            }
            self[keyPath: keyPath] = d
        }
        try validate()
    }

    /// The configuration as a JSON object, one key per parameter.
    public var json: String {
        let members = Self.parameters.map { "  \"\($0.name)\": \(formatNumber(self[keyPath: $0.keyPath]))" }
        return "{\n" + members.joined(separator: ",\n") + "\n}\n"
    }
}
