extension WireProfile {
    /// OpenAI Realtime: `input_audio_buffer.append` with base64 `audio` from the client;
    /// `response.output_audio.delta` (or the older `response.audio.delta`) with base64 `delta`
    /// from the server, the response (or item) id as the utterance. Hand-checked against the
    /// vendor's client guide in shared/reference.
    static let openAI: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        guard let type = m["type"]?.string else { return nil }
        switch (dir, type) {
        case (.client, "input_audio_buffer.append"):
            return m["audio"]?.string.map { .audio(base64: $0, utterance: nil, rate: nil) }
                ?? .malformed("\(type) has no string \"audio\"")
        case (.client, "input_audio_buffer.commit"): return .commit
        case (.server, "response.output_audio.delta"), (.server, "response.audio.delta"):
            let utterance = m["response_id"]?.string ?? m["item_id"]?.string
            return m["delta"]?.string.map { .audio(base64: $0, utterance: utterance, rate: nil) }
                ?? .malformed("\(type) has no string \"delta\"")
        // Barge-in: the server heard the user (WebSocket), or cleared its output buffer (WebRTC/SIP).
        case (.server, "input_audio_buffer.speech_started"), (.server, "output_audio_buffer.cleared"):
            return .interrupted
        case (.server, "response.done"): return .turnComplete
        case (.server, "error"): return .error(m.value(at: "error.message")?.string ?? m["message"]?.string ?? "error")
        case (.client, _):
            let known = type.hasPrefix("session.") || type.hasPrefix("response.") || type.hasPrefix("conversation.")
            return known ? .control(type) : nil
        case (.server, _):
            let known =
                type.hasPrefix("session.") || type.hasPrefix("response.") || type.hasPrefix("conversation.")
                || type.hasPrefix("input_audio_buffer.") || type.hasPrefix("rate_limits.")
            return known ? .control(type) : nil
        }
    }
}
