import AudioPipelineCore

/// Which built-in API a capture belongs to: the profile whose vocabulary explains the most of the
/// first messages (audio counts three times as much as an event).
public enum ProfileDetection {
    /// How many messages from the start are looked at.
    public static let sampleSize = 500

    /// The profile whose messages the first `sampleSize` messages are; nil when none fits.
    public static func detect(_ messages: [CapturedMessage]) -> WireProfile? {
        var best: (WireProfile, Int)?
        let sample = messages.prefix(sampleSize).compactMap { m -> (JSONValue, WireDirection?)? in
            guard case .success(let v)? = m.json else { return nil }
            return (v, m.direction)
        }
        let binaryAudio = messages.prefix(sampleSize).filter {
            if case .binary = $0.payload { return true } else { return false }
        }.count
        for which in WireProfile.BuiltIn.allCases {
            guard let p = try? WireProfile.builtIn(which) else { continue }
            var score = 0
            for (v, d) in sample {
                for dir in d.map({ [$0] }) ?? WireDirection.allCases {
                    switch p.interpret(v, direction: dir) {
                    case .audio: score += 3
                    case .unknown: break
                    default: score += 1
                    }
                }
            }
            if p.isBinary { score += 3 * binaryAudio }
            if score > (best?.1 ?? 0) { best = (p, score) }
        }
        return best?.0
    }
}
