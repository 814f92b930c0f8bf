/// How one voice API puts PCM into WebSocket messages and takes it out again.
///
/// Client audio messages are built as `audioPrefix + base64 + audioSuffix`, byte for byte what the
/// API's clients send, into a caller-owned buffer (no JSON encoder, no allocation per chunk).
/// Messages are interpreted from parsed JSON by `interpret(_:direction:)`.
///
/// Profiles: the five built-in APIs (WireProfile+BuiltIn.swift, one interpreter file per API) and
/// custom ones from a template (WireProfile+Custom.swift). The speaker side's hot path, which
/// finds the audio without parsing, is in WireProfile+FastDecode.swift.
public struct WireProfile: Sendable {
    /// The profile's name (`openai-realtime`, `custom` …).
    public let name: String
    /// Sample rate of the client's (microphone) audio.
    public let clientRate: Int
    /// Sample rate of the server's (agent) audio.
    public let serverRate: Int
    /// Binary WebSocket messages of raw PCM16 (Deepgram) instead of base64 in JSON text.
    public let isBinary: Bool
    /// The bytes before the base64 audio in a client message.
    public let audioPrefix: [UInt8]
    /// The bytes after the base64 audio in a client message.
    public let audioSuffix: [UInt8]
    /// Control messages a client sends around the audio, when the API has them.
    public let startMessage: String?
    /// The message that ends the client's audio stream, when the API has one.
    public let stopMessage: String?
    /// The message that commits the audio sent so far (asks for a response), when the API has one.
    public let commitMessage: String?
    /// What the client sends to cancel the agent's response when the user barges in, where the API
    /// has such a message (`{"type":"interrupt"}`, `{"type":"response.cancel"}`); nil where the
    /// server detects the interruption itself and the client only flushes its playback.
    public let interruptMessage: String?
    /// What the client sends on barge-in to tell the server how much of the response the user
    /// heard, where the API has such a message, with the placeholders `{{item_id}}`,
    /// `{{content_index}}` and `{{audio_end_ms}}` (OpenAI Realtime's `conversation.item.truncate`;
    /// `truncation(itemId:contentIndex:audioEndMs:)` fills them in).
    public let truncateMessage: String?
    /// Shortest audio a commit may hold (OpenAI Realtime rejects commits under 100 ms).
    public let minimumCommitMilliseconds: Double?
    let interpreter: @Sendable (JSONValue, WireDirection) -> WireEvent?
    /// For APIs whose one message can mean several things (Gemini: several audio parts, then the
    /// end of the turn): every event, in order. Without it, `interpretAll` is `interpret`.
    var eventsInterpreter: (@Sendable (JSONValue, WireDirection) -> [WireEvent])?
    /// The vendor's schema declares the audio as protobuf `bytes`, which parsers accept as standard
    /// or URL-safe base64, with or without padding (Gemini): `decodeAudio` accepts all four.
    public internal(set) var acceptsBase64Variants = false
    /// Client rates the API takes, where the client chooses (atoms, deepgram); nil: the fixed rate.
    public internal(set) var acceptedClientRates: [Int]?
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
            if let src = pcm.baseAddress, pcm.count > 0 {
                output.baseAddress!.copyMemory(from: src, byteCount: pcm.count)
            }
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
        if let eventsInterpreter { return eventsInterpreter(message, direction).first ?? unknown(message) }
        return interpreter(message, direction) ?? unknown(message)
    }

    /// Every event a message carries, in order: several audio parts of one Gemini message, or an
    /// audio part and the end of the turn. One event for most APIs.
    public func interpretAll(_ message: JSONValue, direction: WireDirection) -> [WireEvent] {
        if let eventsInterpreter {
            let events = eventsInterpreter(message, direction)
            return events.isEmpty ? [unknown(message)] : events
        }
        return [interpret(message, direction: direction)]
    }

    private func unknown(_ message: JSONValue) -> WireEvent { .unknown(message["type"]?.string ?? "(untyped)") }

    /// A message's base64 audio as bytes: standard base64, or — where the vendor's schema allows it
    /// (`acceptsBase64Variants`) — URL-safe and unpadded too. Allocates: for the offline tools and
    /// the speaker path's fallback, not its fast path.
    public func decodeAudio(_ base64: String) throws(Base64.DecodingError) -> [UInt8] {
        var text = Array(base64.utf8)
        if acceptsBase64Variants {
            // URL-safe → standard alphabet; padding re-derived from the characters that carry data.
            for i in text.indices {
                if text[i] == UInt8(ascii: "-") { text[i] = UInt8(ascii: "+") }
                if text[i] == UInt8(ascii: "_") { text[i] = UInt8(ascii: "/") }
            }
            while text.last == UInt8(ascii: "=") { text.removeLast() }
            let data = text.count { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
            if data % 4 != 0 { text += [UInt8](repeating: UInt8(ascii: "="), count: 4 - data % 4) }
        }
        var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: text.count))
        let result = text.withUnsafeBytes { i in
            out.withUnsafeMutableBytes { o in
                Result { () throws(Base64.DecodingError) in try Base64.decode(i, into: o) }
            }
        }
        out.removeLast(out.count - (try result.get()))
        return out
    }

    init(
        name: String, clientRate: Int, serverRate: Int, isBinary: Bool = false, template: String,
        start: String? = nil, stop: String? = nil, commit: String? = nil, minimumCommitMilliseconds: Double? = nil,
        interrupt: String? = nil, truncate: String? = nil,
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
        interruptMessage = interrupt
        truncateMessage = truncate
        self.minimumCommitMilliseconds = minimumCommitMilliseconds
        self.interpreter = interpreter
    }

    /// The truncate message (`truncateMessage`) for an item of the agent's: its id (JSON-escaped into
    /// the string), the index of its content part and the milliseconds of it that were played.
    public func truncation(itemId: String, contentIndex: Int, audioEndMs: Int) -> String? {
        truncateMessage.map {
            $0.replacing(Self.itemIdPlaceholder, with: JSONValue.escaped(itemId))
                .replacing(Self.contentIndexPlaceholder, with: String(contentIndex))
                .replacing(Self.audioEndPlaceholder, with: String(audioEndMs))
        }
    }

    /// The placeholders of `truncateMessage`.
    public static let itemIdPlaceholder = "{{item_id}}"
    /// Placeholder of the content index in `truncateMessage`.
    public static let contentIndexPlaceholder = "{{content_index}}"
    /// Placeholder of the milliseconds played in `truncateMessage`.
    public static let audioEndPlaceholder = "{{audio_end_ms}}"

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
}
