extension WireProfile {
    /// The rate in a mimeType such as `audio/pcm;rate=16000`, if it names one.
    static func rate(fromMimeType mime: String?) -> Int? {
        guard let mime, let r = mime.split(separator: ";").first(where: { $0.trimmingPrefix(" ").hasPrefix("rate=") })
        else { return nil }
        return Int(r.trimmingPrefix(" ").dropFirst(5))
    }

    /// Gemini Live: `realtimeInput.audio` (or the older `mediaChunks`) from the client;
    /// `serverContent.modelTurn.parts[].inlineData` from the server, with the rate in its mimeType.
    /// Hand-checked against the vendor's client guide in shared/reference.
    static let gemini: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        switch dir {
        case .client:
            if let a = m.value(at: "realtimeInput.audio"), let data = a["data"]?.string {
                return .audio(base64: data, utterance: nil, rate: rate(fromMimeType: a["mimeType"]?.string))
            }
            if let chunks = m.value(at: "realtimeInput.mediaChunks")?.array, let c = chunks.first,
                let data = c["data"]?.string
            {
                return .audio(base64: data, utterance: nil, rate: rate(fromMimeType: c["mimeType"]?.string))
            }
            if m["setup"] != nil { return .control("setup") }
            if m["clientContent"] != nil { return .control("clientContent") }
            return nil
        case .server:
            if let sc = m["serverContent"] {
                if sc["interrupted"]?.bool == true { return .interrupted }
                if let parts = sc.value(at: "modelTurn.parts")?.array {
                    for p in parts {
                        if let inline = p["inlineData"] {
                            guard let data = inline["data"]?.string else {
                                return .malformed("inlineData has no string \"data\"")
                            }
                            return .audio(
                                base64: data, utterance: nil, rate: rate(fromMimeType: inline["mimeType"]?.string))
                        }
                    }
                }
                if sc["turnComplete"]?.bool == true { return .turnComplete }
                return .control("serverContent")
            }
            if m["setupComplete"] != nil { return .control("setupComplete") }
            if m["toolCall"] != nil { return .control("toolCall") }
            return nil
        }
    }
}
