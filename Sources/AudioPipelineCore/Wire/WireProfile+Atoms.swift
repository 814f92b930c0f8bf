extension WireProfile {
    /// Atoms: `input_audio_buffer.append` from the client, `output_audio.delta` from the server,
    /// both with base64 `audio`. Hand-checked against the vendor's client guide in shared/reference.
    static let atoms: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        guard let type = m["type"]?.string else { return nil }
        switch (dir, type) {
        case (.client, "input_audio_buffer.append"), (.server, "output_audio.delta"):
            return m["audio"]?.string.map { .audio(base64: $0, utterance: nil, rate: nil) }
                ?? .malformed("\(type) has no string \"audio\"")
        case (.server, "interruption"): return .interrupted
        case (.server, "agent_stop_talking"): return .turnComplete
        case (.server, "error"):
            // A number from the wire is printed, never converted: a code of 1e300 must not trap.
            let code =
                m["code"]?.string
                ?? m["code"]?.number.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int64($0)) : "\($0)" }
            return .error([code, m["message"]?.string].compactMap { $0 }.joined(separator: ": "))
        case (.server, "agent_start_talking"), (.server, "session.created"), (.server, "session.closed"):
            return .control(type)
        default: return nil
        }
    }
}
