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
}
