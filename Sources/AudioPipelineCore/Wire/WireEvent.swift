/// Which side sent a message.
public enum WireDirection: String, Sendable, CaseIterable {
    /// Client → server (microphone audio, controls).
    case client
    /// Server → client (the agent's audio, events).
    case server
}

/// What one WebSocket message means, as far as audio tooling cares.
public enum WireEvent: Sendable, Hashable {
    /// Audio: the base64 payload, the utterance (response/item) it belongs to if the message says,
    /// and the sample rate if the message says (Gemini's mimeType).
    case audio(base64: String, utterance: String?, rate: Int?)
    /// The user barged in / the server cancelled the agent's audio.
    case interrupted
    /// The agent finished a turn (response done, turn complete, stopped talking).
    case turnComplete
    /// An error the server reported.
    case error(String)
    /// The client committed its audio buffer.
    case commit
    /// A known message type that carries no audio (session.created, started, tool_call …).
    case control(String)
    /// A message this profile does not know (skipped and counted, not fatal).
    case unknown(String)
    /// A known message type without the field it must have (an error, with the reason).
    case malformed(String)
}
