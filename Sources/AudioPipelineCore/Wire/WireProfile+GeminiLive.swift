extension WireProfile {
    /// The rate in a mimeType such as `audio/pcm;rate=16000` (parameters case-insensitive, spaces
    /// allowed), if it names one; 0 when it names one that is not a whole number (`rate=abc`,
    /// `rate=1e308`), which the reader refuses as it refuses `rate=0` — never the default rate.
    static func rate(fromMimeType mime: String?) -> Int? {
        guard let mime else { return nil }
        for parameter in mime.split(separator: ";").dropFirst() {
            let p = parameter.trimmingPrefix(" ").lowercased()
            if p.hasPrefix("rate=") { return Int(p.dropFirst(5).trimmingPrefix(" ")) ?? 0 }
        }
        return nil
    }

    /// Whether a Blob's mimeType is audio (a chunk without one is taken as the API's PCM).
    static func isAudio(_ mime: String?) -> Bool { mime.map { $0.lowercased().hasPrefix("audio/") } ?? true }

    /// Gemini Live (BidiGenerateContent). Client: `realtimeInput.audio` (or the deprecated
    /// `mediaChunks`, every audio chunk); server: every audio part of
    /// `serverContent.modelTurn.parts[].inlineData` in order (the rate from its mimeType), then
    /// `turnComplete`; `interrupted` is the barge-in.
    ///
    /// Keys are read in lowerCamelCase or snake_case, mixed in one message too: the API is protobuf
    /// JSON, whose parsers accept both, and the official Python SDK sends `realtime_input` with
    /// camelCase inside (google-genai `live.py`; the older `send()` is snake_case throughout).
    static let geminiEvents: @Sendable (JSONValue, WireDirection) -> [WireEvent] = { m, dir in
        dir == .client ? geminiClient(m) : geminiServer(m)
    }

    static func geminiClient(_ m: JSONValue) -> [WireEvent] {
        guard let input = m.member("realtimeInput") else {
            for kind in ["setup", "clientContent", "toolResponse"] where m.member(kind) != nil {
                return [.control(kind)]
            }
            return []
        }
        if let blob = input.member("audio") {
            guard let data = blob["data"]?.string else {
                return [.malformed("realtimeInput.audio has no string \"data\"")]
            }
            return [.audio(base64: data, utterance: nil, rate: rate(fromMimeType: blob.member("mimeType")?.string))]
        }
        if let chunks = input.member("mediaChunks")?.array {
            var events: [WireEvent] = []
            for chunk in chunks where isAudio(chunk.member("mimeType")?.string) {
                guard let data = chunk["data"]?.string else {
                    return [.malformed("a media chunk has no string \"data\"")]
                }
                events.append(
                    .audio(base64: data, utterance: nil, rate: rate(fromMimeType: chunk.member("mimeType")?.string)))
            }
            if !events.isEmpty { return events }
        }
        return [.control("realtimeInput")]
    }

    static func geminiServer(_ m: JSONValue) -> [WireEvent] {
        guard let content = m.member("serverContent") else {
            let kinds = [
                "setupComplete", "toolCall", "toolCallCancellation", "usageMetadata", "goAway",
                "sessionResumptionUpdate", "voiceActivityDetectionSignal",
            ]
            for kind in kinds where m.member(kind) != nil { return [.control(kind)] }
            return []
        }
        if content.member("interrupted")?.bool == true { return [.interrupted] }
        var events: [WireEvent] = []
        for part in content.member("modelTurn")?.member("parts")?.array ?? [] {
            // Text or thought parts carry no inlineData; the Live API's inlineData is its audio.
            guard let inline = part.member("inlineData") else { continue }
            let mime = inline.member("mimeType")?.string
            guard let data = inline["data"]?.string else { return [.malformed("inlineData has no string \"data\"")] }
            events.append(.audio(base64: data, utterance: nil, rate: rate(fromMimeType: mime)))
        }
        if content.member("turnComplete")?.bool == true { events.append(.turnComplete) }
        return events.isEmpty ? [.control("serverContent")] : events
    }

    /// The first event of a message (`interpret`).
    static let gemini: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in geminiEvents(m, dir).first }
}

extension JSONValue {
    /// A member by its lowerCamelCase name or that name in snake_case (`modelTurn`, `model_turn`).
    func member(_ camelCase: String) -> JSONValue? {
        if let v = self[camelCase] { return v }
        var snake = ""
        for c in camelCase {
            if c.isUppercase { snake += "_" + c.lowercased() } else { snake.append(c) }
        }
        return snake == camelCase ? nil : self[snake]
    }
}
