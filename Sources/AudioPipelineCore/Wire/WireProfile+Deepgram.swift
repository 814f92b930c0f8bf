extension WireProfile {
    /// Deepgram: the client's audio is binary messages of raw PCM16 (no JSON); text messages are
    /// controls both ways. Hand-checked against the vendor's client guide in shared/reference.
    static let deepgram: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        guard let type = m["type"]?.string else { return nil }
        switch (dir, type) {
        case (.client, "CloseStream"), (.client, "KeepAlive"), (.client, "Finalize"): return .control(type)
        case (.server, "Results"), (.server, "Metadata"), (.server, "UtteranceEnd"), (.server, "SpeechStarted"):
            return .control(type)
        default: return nil
        }
    }
}
