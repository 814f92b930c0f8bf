import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// Reads a captured session message by message: JSON Lines (one message per line, or HAR-style
/// entries `{"type":"send|receive","time":SECONDS,"opcode":1,"data":"…"}`), a browser HAR export, or
/// the length-prefixed stream `frame` writes for binary profiles (`.bin`).
///
/// JSON Lines and the binary stream are read in constant memory (one line or message at a time); a
/// HAR export is one JSON document and is read whole.
public final class CaptureReader {
    /// The capture formats read, detected from the input.
    public enum Format: String, Sendable {
        /// One message per line, or one HAR-style entry (`{"type":"send","time":…,"data":…}`) per line.
        case jsonLines = "json-lines"
        /// A browser's HAR export with its WebSocket messages.
        case har
        /// The length-prefixed stream of `WireMessageStream` (what `frame` writes for binary profiles).
        case binaryStream = "binary-stream"
    }

    /// Longest JSON Lines line (one message) accepted.
    public static let maximumLineBytes = 16 << 20

    /// The capture's path (`-`: standard input).
    public let path: String
    /// Its format, detected when opened.
    public let format: Format
    /// Skip (and list in `skipped`) bad messages instead of stopping at the first.
    public let lenient: Bool
    /// Messages skipped in lenient mode, with the reason.
    public private(set) var skipped: [String] = []
    /// Entries of the capture that are not messages (a HAR's error frames), counted by kind.
    public private(set) var ignored: [String: Int] = [:]
    private var lines: LineReader?
    private var firstTimeMs: Double?
    /// The last entry's time (ms from the first) and where it was; whether entries carry times.
    private var lastTime: (ms: Double, location: String)?
    private var lastEntry: (timed: Bool, location: String)?

    /// Opens the capture at `path` and detects its format.
    /// - Throws: `AudioPipelineError` naming the file when it cannot be read or is no capture.
    public init(path: String, lenient: Bool) throws(AudioPipelineError) {
        self.path = path
        self.lenient = lenient
        switch fileExtension(path) {
        case "bin": format = .binaryStream
        case "har": format = .har
        default:
            let reader = try LineReader(
                path: path, what: "the captured session", maximumLineBytes: Self.maximumLineBytes)
            let head = try reader.peek(2048)
            if head.isEmpty { throw AudioPipelineError(.invalidData, "\(path): file is empty") }
            if let kind = AudioFileDescription.container(startingWith: head) {
                throw AudioPipelineError(
                    .invalidData,
                    "\(path): is audio (\(kind)), not a captured session: give the messages a client sent or "
                        + "received (JSON Lines, a HAR export, frame's .bin); to make messages from audio, use "
                        + "audiopipe frame")
            }
            format = Self.looksLikeHAR(head) ? .har : .jsonLines
            lines = reader
        }
    }

    static func looksLikeHAR(_ b: [UInt8]) -> Bool {
        let head = String(decoding: b, as: UTF8.self)
        return head.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") && head.contains("\"log\"")
    }

    /// Calls `body` with every message, in capture order (HAR: time order).
    public func forEach(_ body: (CapturedMessage) throws(AudioPipelineError) -> Void) throws(AudioPipelineError) {
        switch format {
        case .binaryStream:
            try BinaryCapture.read(path: path, body)
        case .har:
            let archive = try HARArchive(path: path, lines: lines)
            try archive.forEach(body)
            if archive.errorFrames > 0 { ignored["(HAR error frame)", default: 0] += archive.errorFrames }
        case .jsonLines:
            try lines!.forEachLine { (line) throws(AudioPipelineError) in
                switch line {
                case .tooLong(let bytes, let number):
                    let m =
                        "\(path): line \(number): \(bytes) bytes, more than the \(Self.maximumLineBytes >> 20) "
                        + "MiB a message may have"
                    if lenient { skipped.append(m) } else { throw AudioPipelineError(.invalidData, m) }
                case .text(let text, let number):
                    if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
                    let m: CapturedMessage
                    do throws(AudioPipelineError) {
                        m = try message(text, location: "\(path): line \(number)")
                    } catch {
                        guard lenient && error.code == .invalidData else { throw error }
                        return skipped.append(error.message)
                    }
                    try body(m)
                }
            }
        }
    }

    /// One JSON Lines line: a HAR-style entry (it carries its time and direction) or the message itself.
    private func message(_ bytes: UnsafeRawBufferPointer, location: String) throws(AudioPipelineError)
        -> CapturedMessage
    {
        let parsed = Result { () throws(JSON.ParseError) -> JSONValue in try JSON.parse(bytes) }
        if case .success(let v) = parsed, let kind = v["type"]?.string, kind == "send" || kind == "receive",
            v["opcode"] != nil || v["time"] != nil
        {
            // An entry (its direction and time or opcode) must carry the message as a string.
            guard let data = v["data"]?.string else {
                throw AudioPipelineError(
                    .invalidData,
                    "\(location): a \"\(kind)\" entry without its message: \"data\" is "
                        + (v["data"] == nil ? "missing" : "not a string"))
            }
            let time = try entryTime(v["time"], location: location)
            let opcode = try v["opcode"].map { (o) throws(AudioPipelineError) -> Double in
                guard let n = o.number else {
                    throw AudioPipelineError(.invalidData, "\(location): \"opcode\" is not a number")
                }
                return n
            }
            return try CaptureEntry.message(kind: kind, timeMs: time, opcode: opcode, data: data, location: location)
        }
        // A line that is not JSON among timed entries is a broken entry (a capture cut off mid-line),
        // not an entry without a time.
        if case .failure(let error) = parsed, lastEntry?.timed == true {
            throw AudioPipelineError(
                .invalidData, "\(location): not valid JSON (\(error)): an entry cut off, or a broken line")
        }
        // A bare message among timed entries has no time either (its audio would leave the trace).
        _ = try entryTime(nil, location: location)
        return CapturedMessage(
            location: location, timeMs: nil, direction: nil, payload: .text(String(decoding: bytes, as: UTF8.self)),
            json: parsed)
    }
}

extension CaptureReader {
    /// An entry's time, ms from the first entry's. A capture's entries either all carry a time or
    /// none does (a trace cannot place an untimed one), and times never go back: an entry earlier
    /// than the one before it is a merged or corrupted log, not a reordering the network made.
    fileprivate func entryTime(_ value: JSONValue?, location: String) throws(AudioPipelineError) -> Double? {
        if let last = lastEntry, last.timed != (value != nil) {
            throw AudioPipelineError(
                .invalidData,
                "\(location): " + (last.timed ? "an entry without \"time\"" : "an entry with a \"time\"")
                    + ", where \(within(last.location))'s " + (last.timed ? "has one" : "has none")
                    + ": a capture's entries all carry their time, or none does")
        }
        lastEntry = (value != nil, location)
        guard let value else { return nil }
        guard let seconds = value.number else {
            throw AudioPipelineError(.invalidData, "\(location): \"time\" is not a number")
        }
        let ms = try Checked.number(seconds, in: -1e11...1e11, "\(location): time") * 1000
        if firstTimeMs == nil { firstTimeMs = ms }
        let time = ms - (firstTimeMs ?? 0)
        if let last = lastTime, time < last.ms {
            throw AudioPipelineError(
                .invalidData,
                "\(location): \"time\" goes back "
                    + String(format: "%.3f", (last.ms - time) / 1000)
                    + " s from \(within(last.location))'s: entries must be in time order (sort the lines by time)")
        }
        lastTime = (time, location)
        return time
    }

    /// A location in this capture without its path ("line 4").
    private func within(_ location: String) -> String {
        location.hasPrefix(path + ": ") ? String(location.dropFirst(path.count + 2)) : location
    }
}

/// The stream `frame` writes for binary profiles (`WireMessageStream`), decoded as it is read: one
/// block and the message in progress in memory, whatever the stream's length.
enum BinaryCapture {
    static func read(path: String, _ body: (CapturedMessage) throws(AudioPipelineError) -> Void)
        throws(AudioPipelineError)
    {
        let fd = try TextInput.open(path, what: "the message stream")
        defer { if fd != STDIN_FILENO { close(fd) } }
        var decoder = WireMessageStream.Decoder()
        var block = [UInt8](repeating: 0, count: 1 << 16)
        var messages: [CapturedMessage] = []
        func fail(_ e: WireMessageStream.DecodingError) -> AudioPipelineError {
            AudioPipelineError(.invalidData, "\(path): \(e)")
        }
        while true {
            let n = try TextInput.read(fd, into: &block, path: path)
            if n == 0 { break }
            do throws(WireMessageStream.DecodingError) {
                try block.withUnsafeBufferPointer { (b) throws(WireMessageStream.DecodingError) in
                    try decoder.decode(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(b)[0..<n])) { m in
                        let location = "\(path): message \(m.number)"
                        let payload: CapturedMessage.Payload =
                            m.opcode == .binary
                            ? .binary(Array(m.payload)) : .text(String(decoding: m.payload, as: UTF8.self))
                        messages.append(
                            CapturedMessage(location: location, timeMs: nil, direction: .client, payload: payload))
                    }
                }
            } catch {
                throw fail(error)
            }
            for m in messages { try body(m) }
            messages.removeAll(keepingCapacity: true)
        }
        if decoder.bytesDecoded == 0 { throw AudioPipelineError(.invalidData, "\(path): file is empty") }
        do throws(WireMessageStream.DecodingError) { try decoder.finish() } catch { throw fail(error) }
    }
}
