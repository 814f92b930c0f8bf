extension WireProfile {
    /// Datagrid: `{"type":"audio","payload":{"data":…}}` both ways, with start/stop/interrupt
    /// controls. Hand-checked against the vendor's client guide in shared/reference.
    static let datagrid: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        guard let type = m["type"]?.string else { return nil }
        switch (dir, type) {
        case (_, "audio"):
            return m.value(at: "payload.data")?.string.map { .audio(base64: $0, utterance: nil, rate: nil) }
                ?? .malformed("audio has no string \"payload.data\"")
        case (.client, "start"), (.client, "stop"), (.client, "interrupt"): return .control(type)
        case (.server, "interrupted"): return .interrupted
        case (.server, "ended"): return .turnComplete
        case (.server, "error"): return .error(m.value(at: "payload.message")?.string ?? "error")
        case (.server, "started"), (.server, "ready"), (.server, "tool_call"): return .control(type)
        default: return nil
        }
    }
}
