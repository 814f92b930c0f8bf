import AudioPipelineCore
import Foundation

/// A browser HAR export's WebSocket frames (Chrome's `log.entries[]._webSocketMessages[]`: `type`
/// send/receive, `time` in seconds, `opcode` 1 text / 2 binary, `data`; binary frames base64).
struct HARArchive: Decodable {
    struct Log: Decodable { var entries: [Entry] }
    struct Entry: Decodable {
        var messages: [Message]?
        enum CodingKeys: String, CodingKey { case messages = "_webSocketMessages" }
    }
    struct Message: Decodable {
        var type: String
        var time: Double?
        var opcode: Double?
        var data: String
    }

    var log: Log

    /// Every WebSocket message in time order, with times from the earliest one.
    static func messages(_ bytes: [UInt8], path: String) throws(AudioPipelineError) -> [CapturedMessage] {
        let archive: HARArchive
        do {
            archive = try JSONDecoder().decode(HARArchive.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw AudioPipelineError(
                .invalidData, "\(path): not a usable HAR file: \(DecodingErrorText.describe(error))")
        } catch {
            throw AudioPipelineError(.invalidData, "\(path): not a valid HAR file: \(error)")
        }
        var raw: [(time: Double, message: Message, location: String)] = []
        for (e, entry) in archive.log.entries.enumerated() {
            for (k, m) in (entry.messages ?? []).enumerated() {
                let location = "\(path): entry \(e + 1), message \(k + 1)"
                let t = try Checked.number(m.time ?? 0, in: -1e11...1e11, "\(location): time")
                raw.append((t, m, location))
            }
        }
        if raw.isEmpty {
            throw AudioPipelineError(
                .invalidData, "\(path): the HAR file holds no WebSocket messages (_webSocketMessages)")
        }
        let t0 = raw.map(\.time).min() ?? 0
        var out: [CapturedMessage] = []
        out.reserveCapacity(raw.count)
        for r in raw.enumerated().sorted(by: { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }).map(
            \.element)
        {
            out.append(
                try CaptureEntry.message(
                    kind: r.message.type, timeMs: (r.time - t0) * 1000, opcode: r.message.opcode, data: r.message.data,
                    location: r.location))
        }
        return out
    }
}

/// A capture entry that carries its own direction and time (HAR, HAR-style JSON Lines).
enum CaptureEntry {
    static func message(kind: String, timeMs: Double?, opcode: Double?, data: String, location: String)
        throws(AudioPipelineError) -> CapturedMessage
    {
        guard kind == "send" || kind == "receive" else {
            throw AudioPipelineError(.invalidData, "\(location): \"type\" is '\(kind)', not send or receive")
        }
        let direction: WireDirection = kind == "send" ? .client : .server
        let op = try Checked.integer(opcode ?? 1, in: 1...2, "\(location): opcode")
        if op == 2 {
            // Chrome stores binary frames base64-encoded.
            return CapturedMessage(
                location: location, timeMs: timeMs, direction: direction,
                payload: .binary(try Base64Text.decode(data, location: location)))
        }
        return CapturedMessage(location: location, timeMs: timeMs, direction: direction, payload: .text(data))
    }
}

/// Readable text for a `DecodingError`: where in the document (`entry 3, WebSocket message 2: "data"`)
/// and what is wrong.
enum DecodingErrorText {
    static func describe(_ error: DecodingError) -> String {
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
            let p = place(c.codingPath)
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
