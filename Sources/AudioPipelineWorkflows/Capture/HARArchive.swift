import AudioPipelineCore
import Foundation

/// A browser HAR export's WebSocket frames (Chrome's `log.entries[]._webSocketMessages[]`: `type`
/// send/receive, `time` in seconds since the epoch, `opcode` 1 text / 2 binary, `data`; binary
/// frames base64; `type: "error"` pseudo-frames are counted, not decoded).
///
/// Read in bounded memory: one pass finds each message object's byte range (a scanner that only
/// follows strings and brackets) and its time; the messages are then parsed one at a time, in time
/// order, from the file (`pread`) — never the whole document at once. Standard input cannot be read
/// twice, so there the bytes are kept (a HAR on a pipe is held in memory).
final class HARArchive {
    struct Message {
        var time: Double
        var start: Int
        var end: Int
        var ordinal: Int
    }

    let path: String
    private let source: ByteSource
    private(set) var messages: [Message] = []
    /// `type: "error"` frames Chrome records when a connection fails.
    private(set) var errorFrames = 0

    init(path: String, lines: LineReader?) throws(AudioPipelineError) {
        self.path = path
        source = try ByteSource(path: path, lines: lines)
        let ranges = try Self.messageRanges(source, path: path)
        guard !ranges.isEmpty else {
            throw AudioPipelineError(
                .invalidData, "\(path): the HAR file holds no WebSocket messages (_webSocketMessages)")
        }
        for (k, r) in ranges.enumerated() {
            let object = try parse(r, ordinal: k + 1)
            // Without its time a frame has no place in the session (time 0 would put it 56 years early).
            // An error frame without one is counted here (it is never decoded; placed at time 0 it would
            // be the session's start).
            guard object["time"] != nil else {
                if object["type"]?.string == "error" {
                    errorFrames += 1
                    continue
                }
                throw AudioPipelineError(.invalidData, "\(location(k + 1, r.lowerBound)): \"time\" is missing")
            }
            let time = try Self.number(object["time"], "time", default: 0, location: location(k + 1, r.lowerBound))
            messages.append(
                Message(
                    time: try Checked.number(time, in: -1e11...1e11, location(k + 1, r.lowerBound) + ": time"),
                    start: r.lowerBound, end: r.upperBound, ordinal: k + 1))
        }
        messages.sort { ($0.time, $0.ordinal) < ($1.time, $1.ordinal) }
    }

    func location(_ ordinal: Int, _ offset: Int) -> String { "\(path): WebSocket message \(ordinal) (byte \(offset))" }

    private func parse(_ r: Range<Int>, ordinal: Int) throws(AudioPipelineError) -> JSONValue {
        let bytes = try source.read(r)
        do {
            return try bytes.withUnsafeBytes { b in try JSON.parse(b) }
        } catch {
            throw AudioPipelineError(.invalidData, "\(location(ordinal, r.lowerBound)): invalid JSON: \(error)")
        }
    }

    static func number(_ v: JSONValue?, _ name: String, default d: Double, location: String) throws(AudioPipelineError)
        -> Double
    {
        guard let v else { return d }
        guard let n = v.number else {
            throw AudioPipelineError(.invalidData, "\(location): \"\(name)\" is not a number")
        }
        return n
    }

    /// Every message in time order, with times from the earliest one.
    func forEach(_ body: (CapturedMessage) throws(AudioPipelineError) -> Void) throws(AudioPipelineError) {
        let t0 = messages.first?.time ?? 0
        for m in messages {
            let where_ = location(m.ordinal, m.start)
            let v = try parse(m.start..<m.end, ordinal: m.ordinal)
            if v["type"]?.string == "error" { errorFrames += 1; continue }
            guard let kind = v["type"]?.string, let data = v["data"]?.string else {
                throw AudioPipelineError(.invalidData, "\(where_): needs \"type\" (send/receive) and \"data\" strings")
            }
            let opcode = try Self.number(v["opcode"], "opcode", default: 1, location: where_)
            try body(
                try CaptureEntry.message(
                    kind: kind, timeMs: (m.time - t0) * 1000, opcode: opcode, data: data, location: where_))
        }
    }

    /// The byte ranges of the objects inside every `"_webSocketMessages": [ … ]` array.
    static func messageRanges(_ source: ByteSource, path: String) throws(AudioPipelineError) -> [Range<Int>] {
        var scanner = StructureScanner(key: Array("_webSocketMessages".utf8))
        try source.scan { (block, offset) throws(AudioPipelineError) in scanner.feed(block, at: offset) }
        guard scanner.depth == 0, !scanner.inString else {
            throw AudioPipelineError(.invalidData, "\(path): not a valid HAR file: it ends inside a JSON value")
        }
        return scanner.ranges
    }
}

/// Follows a JSON document's strings and brackets, byte by byte, and records the byte ranges of the
/// objects that are elements of an array under a given key.
struct StructureScanner {
    let key: [UInt8]
    var ranges: [Range<Int>] = []
    private(set) var depth = 0
    private(set) var inString = false
    private var escape = false
    private var stringStart = 0, stringLength = 0, matches = true
    private var lastStringWasKey = false, awaitingColon = false, awaitingArray = false
    private var arrayDepth: Int?
    private var elementStart: Int?

    init(key: [UInt8]) { self.key = key }

    mutating func feed(_ block: UnsafeRawBufferPointer, at offset: Int) {
        for (i, c) in block.enumerated() {
            let at = offset + i
            if inString {
                if escape { escape = false; stringLength += 1; continue }
                if c == 0x5C { escape = true; matches = false; continue }
                if c == 0x22 {
                    inString = false; lastStringWasKey = matches && stringLength == key.count; awaitingColon = true;
                    continue
                }
                matches = matches && stringLength < key.count && key[stringLength] == c
                stringLength += 1
                continue
            }
            switch c {
            case 0x22:
                inString = true; stringStart = at; stringLength = 0; matches = true
                awaitingArray = false
            case 0x3A:  // ':'
                awaitingArray = awaitingColon && lastStringWasKey
                awaitingColon = false
            case 0x5B, 0x7B:  // '[' '{'
                if c == 0x7B, let d = arrayDepth, depth == d { elementStart = at }
                if c == 0x5B && awaitingArray && arrayDepth == nil { arrayDepth = depth + 1 }
                depth += 1
                awaitingArray = false; awaitingColon = false
            case 0x5D, 0x7D:  // ']' '}'
                depth -= 1
                if c == 0x7D, let d = arrayDepth, depth == d, let s = elementStart {
                    ranges.append(s..<(at + 1)); elementStart = nil
                }
                if c == 0x5D, let d = arrayDepth, depth == d - 1 { arrayDepth = nil }
                awaitingArray = false; awaitingColon = false
            case 0x20, 0x09, 0x0A, 0x0D:
                break
            default:
                awaitingArray = false; awaitingColon = false
            }
        }
    }
}

/// A file read by ranges (`pread`), or — for standard input and pipes — the bytes kept in memory.
final class ByteSource {
    let path: String
    private let fd: Int32?
    private let bytes: [UInt8]?
    private let size: Int

    init(path: String, lines: LineReader?) throws(AudioPipelineError) {
        self.path = path
        let fd = path == "-" ? -1 : Foundation.open(path, O_RDONLY | O_CLOEXEC)
        var st = stat()
        if fd >= 0, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            self.fd = fd
            bytes = nil
            size = Int(st.st_size)
        } else {
            if fd >= 0 { Foundation.close(fd) }
            self.fd = nil
            let all: [UInt8]
            if let lines {
                all = try lines.readToEnd(limit: TextInput.maximumBytes)
            } else {
                all = try TextInput.bytes(path, what: "the HAR file")
            }
            bytes = all
            size = all.count
        }
    }

    deinit { if let fd { Foundation.close(fd) } }

    /// Calls `body` with consecutive blocks of the whole input and their offsets.
    func scan(_ body: (UnsafeRawBufferPointer, Int) throws(AudioPipelineError) -> Void) throws(AudioPipelineError) {
        var offset = 0
        while offset < size {
            let block = try read(offset..<min(size, offset + (1 << 20)))
            try block.withUnsafeBufferPointer { (b) throws(AudioPipelineError) in
                try body(UnsafeRawBufferPointer(b), offset)
            }
            offset += block.count
        }
    }

    func read(_ r: Range<Int>) throws(AudioPipelineError) -> [UInt8] {
        if let bytes { return Array(bytes[r]) }
        var out = [UInt8](repeating: 0, count: r.count)
        var done = 0
        while done < r.count {
            let n = out.withUnsafeMutableBufferPointer {
                pread(fd!, $0.baseAddress! + done, r.count - done, off_t(r.lowerBound + done))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw AudioPipelineError(.ioFailure, "\(path): read failed at byte \(r.lowerBound + done)")
            }
            done += n
        }
        return out
    }
}

/// A capture entry that carries its own direction and time (HAR, HAR-style JSON Lines).
enum CaptureEntry {
    static func message(
        kind: String, timeMs: Double?, opcode: Double?, data: String, location: String
    ) throws(AudioPipelineError) -> CapturedMessage {
        guard kind == "send" || kind == "receive" else {
            throw AudioPipelineError(.invalidData, "\(location): \"type\" is '\(kind)', not send or receive")
        }
        let direction: WireDirection = kind == "send" ? .client : .server
        let op = try Checked.integer(opcode ?? 1, in: 1...2, "\(location): opcode")
        if op == 2 {
            // Chrome stores binary frames base64-encoded.
            let bytes = try Base64Text.decode(data, location: location)
            return CapturedMessage(location: location, timeMs: timeMs, direction: direction, payload: .binary(bytes))
        }
        return CapturedMessage(location: location, timeMs: timeMs, direction: direction, payload: .text(data))
    }
}

/// One JSON file (or "-") decoded as `T`, with one error mapping: unreadable → its code, not
/// JSON or the wrong shape → `invalidData` naming the file, `what` it should be and where.
enum JSONFile {
    static func decode<T: Decodable>(_ type: T.Type, _ path: String, what: String) throws(AudioPipelineError) -> T {
        let text = try TextInput.text(path, what: "the \(what)")
        if let problem = syntaxError(text) {
            throw AudioPipelineError(.invalidData, "\(path): \(what): not JSON: \(problem)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw AudioPipelineError(.invalidData, "\(path): \(what): \(DecodingErrorText.describe(error))")
        } catch {
            throw AudioPipelineError(.invalidData, "\(path): \(what): not JSON: \(error)")
        }
    }
}

extension JSONFile {
    /// Where `text` stops being JSON ("line 3, column 1: expected a value"), nil when it is JSON.
    /// Foundation's decoder says only "The given data was not valid JSON"; a person fixing a file by
    /// hand needs the line and column.
    static func syntaxError(_ text: String) -> String? {
        let parsed = Result { () throws(JSON.ParseError) -> JSONValue in try JSON.parse(text) }
        guard case .failure(let error) = parsed else { return nil }
        let before = text.utf8.prefix(error.offset)
        let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let lineStart = before.lastIndex(of: 0x0A).map { before.index(after: $0) } ?? before.startIndex
        // Columns count characters, not bytes (a key with "é" before the fault).
        let column = String(decoding: before[lineStart...], as: UTF8.self).count + 1
        return "line \(line), column \(column): \(error.message)"
    }
}

/// Readable text for a `DecodingError`: where in the document (`events[2].match`) and what is wrong.
enum DecodingErrorText {
    /// `keyIsSubject`: when the message already names the key (an unknown key), the path is left out.
    static func describe(_ error: DecodingError, keyIsSubject: Bool = false) -> String {
        func place(_ path: [any CodingKey]) -> String {
            var parts: [String] = []
            for k in path {
                if let i = k.intValue {
                    parts.append("[\(i)]")
                } else {
                    parts.append((parts.isEmpty ? "" : ".") + k.stringValue)
                }
            }
            return parts.joined()
        }
        switch error {
        case .keyNotFound(let key, let c):
            return "\(place(c.codingPath + [key])): missing"
        case .typeMismatch(let type, let c):
            return "\(place(c.codingPath)): expected \(typeName(type))"
        case .valueNotFound(let type, let c):
            return "\(place(c.codingPath)): expected \(typeName(type)), found null"
        case .dataCorrupted(let c):
            let p = keyIsSubject ? "" : place(c.codingPath)
            return (p.isEmpty ? "" : p + ": ") + c.debugDescription
        @unknown default:
            return "\(error)"
        }
    }

    static func typeName(_ t: Any.Type) -> String {
        switch t {
        case is String.Type: return "a string"
        case is Double.Type, is Int.Type, is Float.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            let s = "\(t)"
            return s.hasPrefix("Array") ? "a list" : s.hasPrefix("Dictionary") ? "an object" : "an object (\(s))"
        }
    }
}

/// Base64 text of a captured message into bytes, with the place in the error.
enum Base64Text {
    static func decode(_ s: String, location: String) throws(AudioPipelineError) -> [UInt8] {
        let t = Array(s.utf8)
        var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: t.count))
        let r = t.withUnsafeBytes { i in
            out.withUnsafeMutableBytes { o in
                Result { () throws(Base64.DecodingError) -> Int in try Base64.decode(i, into: o) }
            }
        }
        switch r {
        case .success(let n): return Array(out[0..<n])
        case .failure(let e): throw AudioPipelineError(.invalidData, "\(location): invalid base64 audio: \(e)")
        }
    }
}
