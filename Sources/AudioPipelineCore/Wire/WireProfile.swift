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

/// How one voice API puts PCM into WebSocket messages and takes it out again.
///
/// Client audio messages are built as `audioPrefix + base64 + audioSuffix`, byte for byte what the
/// API's clients send, into a caller-owned buffer (no JSON encoder, no allocation per chunk).
/// Messages are interpreted from parsed JSON by `interpret(_:direction:)`.
public struct WireProfile: Sendable {
    public enum BuiltIn: String, Sendable, CaseIterable {
        case openaiRealtime = "openai-realtime"
        case geminiLive = "gemini-live"
        case datagrid
        case atoms
        case deepgram
    }

    public let name: String
    /// Sample rate of the client's (microphone) audio.
    public let clientRate: Int
    /// Sample rate of the server's (agent) audio.
    public let serverRate: Int
    /// Binary WebSocket messages of raw PCM16 (Deepgram) instead of base64 in JSON text.
    public let isBinary: Bool
    public let audioPrefix: [UInt8]
    public let audioSuffix: [UInt8]
    /// Control messages a client sends around the audio, when the API has them.
    public let startMessage: String?
    public let stopMessage: String?
    public let commitMessage: String?
    /// Shortest audio a commit may hold (OpenAI Realtime rejects commits under 100 ms).
    public let minimumCommitMilliseconds: Double?
    let interpreter: @Sendable (JSONValue, WireDirection) -> WireEvent?
    /// Where a server audio message keeps its audio, for the scanning fast path (built-ins).
    var fastServerAudio: FastServerAudio?

    /// Bytes one client audio message takes for `pcmBytes` bytes of PCM (for sizing buffers).
    public func messageLength(pcmBytes: Int) -> Int {
        isBinary ? pcmBytes : audioPrefix.count + Base64.encodedLength(bytes: pcmBytes) + audioSuffix.count
    }

    /// Writes one client audio message for `pcm` (little-endian PCM16 bytes) into `output` (at
    /// least `messageLength(pcmBytes:)` bytes); returns the bytes written. No allocation.
    public func frame(_ pcm: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        precondition(output.count >= messageLength(pcmBytes: pcm.count), "message buffer too small")
        if isBinary {
            if let src = pcm.baseAddress, pcm.count > 0 { output.baseAddress!.copyMemory(from: src, byteCount: pcm.count) }
            return pcm.count
        }
        var o = 0
        audioPrefix.withUnsafeBytes { p in
            output.baseAddress!.copyMemory(from: p.baseAddress!, byteCount: p.count)
            o = p.count
        }
        o += Base64.encode(pcm, into: UnsafeMutableRawBufferPointer(rebasing: output[o...]))
        audioSuffix.withUnsafeBytes { s in
            (output.baseAddress! + o).copyMemory(from: s.baseAddress!, byteCount: s.count)
            o += s.count
        }
        return o
    }

    /// What a parsed message means in `direction`; a message of another vocabulary (or the other
    /// direction's) is `.unknown` with its type.
    public func interpret(_ message: JSONValue, direction: WireDirection) -> WireEvent {
        interpreter(message, direction) ?? .unknown(message["type"]?.string ?? "(untyped)")
    }

    init(
        name: String, clientRate: Int, serverRate: Int, isBinary: Bool = false, template: String,
        start: String? = nil, stop: String? = nil, commit: String? = nil, minimumCommitMilliseconds: Double? = nil,
        interpreter: @escaping @Sendable (JSONValue, WireDirection) -> WireEvent?
    ) {
        self.name = name
        self.clientRate = clientRate
        self.serverRate = serverRate
        self.isBinary = isBinary
        let parts = Self.split(template)
        audioPrefix = parts.0
        audioSuffix = parts.1
        startMessage = start
        stopMessage = stop
        commitMessage = commit
        self.minimumCommitMilliseconds = minimumCommitMilliseconds
        self.interpreter = interpreter
    }

    /// The placeholder a template puts where the base64 audio goes.
    public static let audioPlaceholder = "{{audio}}"
    /// The placeholder for the client sample rate (e.g. in a mimeType).
    public static let ratePlaceholder = "{{rate}}"

    static func split(_ template: String) -> ([UInt8], [UInt8]) {
        let bytes = Array(template.utf8), mark = Array(audioPlaceholder.utf8)
        guard bytes.count >= mark.count else { return (bytes, []) }
        for i in 0...(bytes.count - mark.count) where Array(bytes[i..<i + mark.count]) == mark {
            return (Array(bytes[..<i]), Array(bytes[(i + mark.count)...]))
        }
        return (bytes, [])
    }

    /// A built-in profile. `rate` overrides the client rate where the API lets the client choose
    /// (`atoms`, `deepgram`); for the others it must be nil or the API's rate.
    public static func builtIn(_ which: BuiltIn, rate: Int? = nil) throws(AudioPipelineError) -> WireProfile {
        func fixed(_ r: Int) throws(AudioPipelineError) -> Int {
            if let rate, rate != r {
                throw AudioPipelineError(.invalidConfiguration, "\(which.rawValue) takes \(r) Hz audio from the client, not \(rate) Hz")
            }
            return r
        }
        var p = try builtInProfile(which, rate: rate, fixed: fixed)
        p.fastServerAudio = FastServerAudio.forBuiltIn(which)
        return p
    }

    private static func builtInProfile(
        _ which: BuiltIn, rate: Int?, fixed: (Int) throws(AudioPipelineError) -> Int
    ) throws(AudioPipelineError) -> WireProfile {
        switch which {
        case .openaiRealtime:
            return WireProfile(
                name: which.rawValue, clientRate: try fixed(24000), serverRate: 24000,
                template: #"{"type":"input_audio_buffer.append","audio":"{{audio}}"}"#,
                commit: #"{"type":"input_audio_buffer.commit"}"#, minimumCommitMilliseconds: 100, interpreter: openAI)
        case .geminiLive:
            return WireProfile(
                name: which.rawValue, clientRate: try fixed(16000), serverRate: 24000,
                template: #"{"realtimeInput":{"audio":{"data":"{{audio}}","mimeType":"audio/pcm;rate=16000"}}}"#,
                interpreter: gemini)
        case .datagrid:
            return WireProfile(
                name: which.rawValue, clientRate: try fixed(16000), serverRate: 24000,
                template: #"{"type":"audio","payload":{"data":"{{audio}}"}}"#,
                start: #"{"type":"start","payload":{}}"#, stop: #"{"type":"stop"}"#, interpreter: datagrid)
        case .atoms:
            let r = rate ?? 24000
            return WireProfile(
                name: which.rawValue, clientRate: r, serverRate: r,
                template: #"{"type":"input_audio_buffer.append","audio":"{{audio}}"}"#, interpreter: atoms)
        case .deepgram:
            let r = rate ?? 16000
            return WireProfile(
                name: which.rawValue, clientRate: r, serverRate: r, isBinary: true, template: "",
                stop: #"{"type":"CloseStream"}"#, interpreter: deepgram)
        }
    }

    // MARK: Interpreters (hand-checked against the vendors' client guides in shared/reference)

    static let openAI: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        guard let type = m["type"]?.string else { return nil }
        switch (dir, type) {
        case (.client, "input_audio_buffer.append"):
            return m["audio"]?.string.map { .audio(base64: $0, utterance: nil, rate: nil) } ?? .malformed("\(type) has no string \"audio\"")
        case (.client, "input_audio_buffer.commit"): return .commit
        case (.server, "response.output_audio.delta"), (.server, "response.audio.delta"):
            return m["delta"]?.string.map { .audio(base64: $0, utterance: m["response_id"]?.string ?? m["item_id"]?.string, rate: nil) }
                ?? .malformed("\(type) has no string \"delta\"")
        case (.server, "input_audio_buffer.speech_started"): return .interrupted
        case (.server, "response.done"): return .turnComplete
        case (.server, "error"): return .error(m.value(at: "error.message")?.string ?? m["message"]?.string ?? "error")
        case (.client, _): return type.hasPrefix("session.") || type.hasPrefix("response.") || type.hasPrefix("conversation.") ? .control(type) : nil
        case (.server, _): return type.hasPrefix("session.") || type.hasPrefix("response.") || type.hasPrefix("conversation.") || type.hasPrefix("input_audio_buffer.") || type.hasPrefix("rate_limits.") ? .control(type) : nil
        }
    }

    static func rate(fromMimeType mime: String?) -> Int? {
        guard let mime, let r = mime.split(separator: ";").first(where: { $0.trimmingPrefix(" ").hasPrefix("rate=") }) else { return nil }
        return Int(r.trimmingPrefix(" ").dropFirst(5))
    }

    static let gemini: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        switch dir {
        case .client:
            if let a = m.value(at: "realtimeInput.audio"), let data = a["data"]?.string {
                return .audio(base64: data, utterance: nil, rate: rate(fromMimeType: a["mimeType"]?.string))
            }
            if let chunks = m.value(at: "realtimeInput.mediaChunks")?.array, let c = chunks.first, let data = c["data"]?.string {
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
                            guard let data = inline["data"]?.string else { return .malformed("inlineData has no string \"data\"") }
                            return .audio(base64: data, utterance: nil, rate: rate(fromMimeType: inline["mimeType"]?.string))
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

    static let datagrid: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        guard let type = m["type"]?.string else { return nil }
        switch (dir, type) {
        case (_, "audio"):
            return m.value(at: "payload.data")?.string.map { .audio(base64: $0, utterance: nil, rate: nil) } ?? .malformed("audio has no string \"payload.data\"")
        case (.client, "start"), (.client, "stop"), (.client, "interrupt"): return .control(type)
        case (.server, "interrupted"): return .interrupted
        case (.server, "ended"): return .turnComplete
        case (.server, "error"): return .error(m.value(at: "payload.message")?.string ?? "error")
        case (.server, "started"), (.server, "ready"), (.server, "tool_call"): return .control(type)
        default: return nil
        }
    }

    static let atoms: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        guard let type = m["type"]?.string else { return nil }
        switch (dir, type) {
        case (.client, "input_audio_buffer.append"), (.server, "output_audio.delta"):
            return m["audio"]?.string.map { .audio(base64: $0, utterance: nil, rate: nil) } ?? .malformed("\(type) has no string \"audio\"")
        case (.server, "interruption"): return .interrupted
        case (.server, "agent_stop_talking"): return .turnComplete
        case (.server, "error"):
            let code = m["code"]?.string ?? m["code"]?.number.map { String(Int($0)) }
            return .error([code, m["message"]?.string].compactMap { $0 }.joined(separator: ": "))
        case (.server, "agent_start_talking"), (.server, "session.created"), (.server, "session.closed"): return .control(type)
        default: return nil
        }
    }

    static let deepgram: @Sendable (JSONValue, WireDirection) -> WireEvent? = { m, dir in
        guard let type = m["type"]?.string else { return nil }
        if dir == .client && (type == "CloseStream" || type == "KeepAlive" || type == "Finalize") { return .control(type) }
        if dir == .server && (type == "Results" || type == "Metadata" || type == "UtteranceEnd" || type == "SpeechStarted") { return .control(type) }
        return nil
    }
}
