import AudioPipelineCore
import Foundation

/// One captured WebSocket message.
public struct CapturedMessage: Sendable {
    /// Where it is in the input: line number (JSON Lines), message number (HAR, binary stream).
    public let location: String
    /// Arrival time in ms, when the capture has times (HAR, timed JSON Lines).
    public let timeMs: Double?
    /// Who sent it, when the capture says (HAR: send = client, receive = server).
    public let direction: WireDirection?
    /// Text message (JSON), or binary payload.
    public let text: String?
    public let binary: [UInt8]?
}

public struct DeframeOptions: Sendable {
    /// nil: detect from the messages.
    public var profile: WireProfile?
    public var direction: WireDirection = .server
    /// Skip (and count) bad messages instead of stopping at the first.
    public var lenient = false
    /// Write the arrival timeline of the audio messages (jitter-kit trace format) here.
    public var tracePath: String?
    public init() {}
}

public struct DeframeReport: Sendable {
    public var profile = ""
    public var direction = WireDirection.server
    public var rate = 0
    public var messages = 0
    public var audioMessages = 0
    public var frames = 0
    public var interruptions = 0
    public var turnEnds = 0
    public var commits = 0
    public var errors: [String] = []
    public var controls: [String: Int] = [:]
    public var unknown: [String: Int] = [:]
    public var otherDirection = 0
    public var skipped: [String] = []
    /// Audio seconds per utterance (response), in order of first appearance.
    public var utterances: [(id: String, seconds: Double)] = []
    /// Times the audio of a response arrived later than real-time playback of it would need it
    /// (a stall a player without a buffer would hear), and their total length; timed input only.
    public var stalls = 0
    public var stallMs = 0.0
    public var seconds: Double { rate > 0 ? Double(frames) / Double(rate) : 0 }
}

/// Reads captured sessions and turns one direction's audio back into a WAV.
public enum Deframer {
    /// Longest JSON Lines line accepted (a 50 MB line is refused, with its line number).
    public static let maximumLineBytes = 16 << 20

    /// Reads every message of `path`: a HAR file (`.har`, or JSON with `log.entries`), the
    /// length-prefixed stream `frame` writes for binary profiles (`.bin`), or JSON Lines.
    public static func messages(path: String, lenient: Bool, skipped: inout [String]) throws(AudioPipelineError) -> [CapturedMessage] {
        let data: Data
        do {
            data = try (path == "-" ? FileHandle.standardInput.readToEnd() ?? Data() : Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw AudioPipelineError(FileManager.default.fileExists(atPath: path) ? .ioFailure : .inputUnavailable, "\(path): cannot read: \(error.localizedDescription)")
        }
        if data.isEmpty { throw AudioPipelineError(.invalidData, "\(path): file is empty") }
        let bytes = [UInt8](data)
        if fileExtension(path) == "bin" { return try binaryMessages(bytes, path: path) }
        if fileExtension(path) == "har" || looksLikeHAR(bytes) { return try harMessages(bytes, path: path) }
        return try jsonLines(bytes, path: path, lenient: lenient, skipped: &skipped)
    }

    static func looksLikeHAR(_ b: [UInt8]) -> Bool {
        let head = String(decoding: b.prefix(2048), as: UTF8.self)
        return head.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") && head.contains("\"log\"")
    }

    static func jsonLines(_ bytes: [UInt8], path: String, lenient: Bool, skipped: inout [String]) throws(AudioPipelineError) -> [CapturedMessage] {
        var out: [CapturedMessage] = []
        var lineStart = 0, line = 0
        var t0: Double?
        while lineStart < bytes.count {
            line += 1
            var end = lineStart
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            defer { lineStart = end + 1 }
            var content = bytes[lineStart..<end]
            if content.last == 0x0D { content = content.dropLast() }
            if content.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            if content.count > maximumLineBytes {
                let m = "\(path): line \(line): \(content.count) bytes, more than the \(maximumLineBytes >> 20) MiB a message may have"
                if lenient { skipped.append(m); continue }
                throw AudioPipelineError(.invalidData, m)
            }
            let text = String(decoding: content, as: UTF8.self)
            // A HAR-style entry ({"type":"send|receive","time":…,"opcode":…,"data":"…"}) carries
            // its time and direction; anything else is the message itself.
            if let v = try? JSON.parse(text), let kind = v["type"]?.string, kind == "send" || kind == "receive",
                let data = v["data"]?.string, v["opcode"] != nil || v["time"] != nil
            {
                let time = v["time"]?.number.map { $0 * 1000 }
                if t0 == nil, let time { t0 = time }
                out.append(try entry(kind: kind, timeMs: time.map { $0 - (t0 ?? 0) }, opcode: Int(v["opcode"]?.number ?? 1), data: data, location: "\(path): line \(line)"))
            } else {
                out.append(CapturedMessage(location: "\(path): line \(line)", timeMs: nil, direction: nil, text: text, binary: nil))
            }
        }
        return out
    }

    static func entry(kind: String, timeMs: Double?, opcode: Int, data: String, location: String) throws(AudioPipelineError) -> CapturedMessage {
        let dir: WireDirection = kind == "send" ? .client : .server
        if opcode == 2 {
            // Chrome stores binary frames base64-encoded.
            let bytes = try decodeBase64(data, location: location)
            return CapturedMessage(location: location, timeMs: timeMs, direction: dir, text: nil, binary: bytes)
        }
        return CapturedMessage(location: location, timeMs: timeMs, direction: dir, text: data, binary: nil)
    }

    static func harMessages(_ bytes: [UInt8], path: String) throws(AudioPipelineError) -> [CapturedMessage] {
        let root: JSONValue
        do {
            root = try bytes.withUnsafeBytes { b in Result { () throws(JSON.ParseError) -> JSONValue in try JSON.parse(b) } }.get()
        } catch {
            throw AudioPipelineError(.invalidData, "\(path): not a valid HAR file: \(error)")
        }
        guard let entries = root.value(at: "log.entries")?.array else {
            throw AudioPipelineError(.invalidData, "\(path): HAR file has no log.entries")
        }
        var raw: [(Double, String, Int, String, String)] = []
        for (e, entry) in entries.enumerated() {
            for (k, m) in (entry["_webSocketMessages"]?.array ?? []).enumerated() {
                guard let kind = m["type"]?.string, kind == "send" || kind == "receive", let data = m["data"]?.string else {
                    throw AudioPipelineError(.invalidData, "\(path): entry \(e + 1), WebSocket message \(k + 1): needs \"type\" (send/receive) and \"data\"")
                }
                raw.append((m["time"]?.number ?? 0, kind, Int(m["opcode"]?.number ?? 1), data, "\(path): entry \(e + 1), message \(k + 1)"))
            }
        }
        if raw.isEmpty { throw AudioPipelineError(.invalidData, "\(path): the HAR file holds no WebSocket messages (_webSocketMessages)") }
        let t0 = raw.map(\.0).min() ?? 0
        var out: [CapturedMessage] = []
        for r in raw.sorted(by: { $0.0 < $1.0 }) {
            out.append(try entry(kind: r.1, timeMs: (r.0 - t0) * 1000, opcode: r.2, data: r.3, location: r.4))
        }
        return out
    }

    /// The stream `frame` writes for binary profiles: [u32 LE length][u8 opcode][payload]…
    static func binaryMessages(_ b: [UInt8], path: String) throws(AudioPipelineError) -> [CapturedMessage] {
        var out: [CapturedMessage] = []
        var i = 0, n = 0
        while i < b.count {
            n += 1
            guard i + 5 <= b.count else { throw AudioPipelineError(.invalidData, "\(path): message \(n) at byte \(i): truncated header") }
            let len = Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
            let op = b[i + 4]
            guard i + 5 + len <= b.count else { throw AudioPipelineError(.invalidData, "\(path): message \(n) at byte \(i): \(len) bytes announced, \(b.count - i - 5) left") }
            let payload = Array(b[(i + 5)..<(i + 5 + len)])
            let loc = "\(path): message \(n)"
            if op == 2 {
                out.append(CapturedMessage(location: loc, timeMs: nil, direction: .client, text: nil, binary: payload))
            } else if op == 1 {
                out.append(CapturedMessage(location: loc, timeMs: nil, direction: .client, text: String(decoding: payload, as: UTF8.self), binary: nil))
            } else {
                throw AudioPipelineError(.invalidData, "\(path): message \(n) at byte \(i): unknown opcode \(op)")
            }
            i += 5 + len
        }
        return out
    }

    static func decodeBase64(_ s: String, location: String) throws(AudioPipelineError) -> [UInt8] {
        let t = Array(s.utf8)
        var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: t.count))
        let r = t.withUnsafeBytes { i in out.withUnsafeMutableBytes { o in Result { () throws(Base64.DecodingError) -> Int in try Base64.decode(i, into: o) } } }
        switch r {
        case .success(let n): return Array(out[0..<n])
        case .failure(let e): throw AudioPipelineError(.invalidData, "\(location): invalid base64 audio: \(e)")
        }
    }

    /// The built-in profile whose vocabulary explains the most audio messages.
    public static func detectProfile(_ messages: [CapturedMessage]) -> WireProfile? {
        var best: (WireProfile, Int)?
        let sample = messages.prefix(500).compactMap { m -> (JSONValue, WireDirection?)? in
            guard let t = m.text, let v = try? JSON.parse(t) else { return nil }
            return (v, m.direction)
        }
        let binaryAudio = messages.prefix(500).filter { $0.binary != nil }.count
        for which in WireProfile.BuiltIn.allCases {
            guard let p = try? WireProfile.builtIn(which) else { continue }
            var score = 0
            for (v, d) in sample {
                for dir in d.map({ [$0] }) ?? WireDirection.allCases {
                    switch p.interpret(v, direction: dir) {
                    case .audio: score += 3
                    case .unknown: break
                    default: score += 1
                    }
                }
            }
            if p.isBinary { score += 3 * binaryAudio }
            if score > (best?.1 ?? 0) { best = (p, score) }
        }
        return best?.0
    }

    /// What a walk over a captured session yields, in capture order.
    public enum SessionEvent {
        /// One message's audio (mono PCM16 at `rate`), its arrival time if the capture has one, its
        /// utterance (response) index from 0 and its position on the media clock (the utterance's
        /// first arrival plus the audio before it in that utterance), ms.
        case audio(samples: [Int16], rate: Int, timeMs: Double?, utterance: Int, mediaMs: Double)
        /// The server reported that the user interrupted (barge-in) or the response was cancelled.
        case interrupted(timeMs: Double?)
    }

    /// Decodes the audio of one direction into a mono PCM16 WAV at `output`.
    public static func deframe(input: String, output: String, options: DeframeOptions) throws(AudioPipelineError) -> DeframeReport {
        try FileConverter.refuseSamePath(input, output)
        if let trace = options.tracePath {
            try FileConverter.refuseSamePath(input, trace)
            try FileConverter.refuseSamePath(output, trace)
        }
        var writer: AudioFileWriter?
        var trace: AtomicOutputFile?
        var seq = 0
        let report = try walk(input: input, options: options, needsTimes: options.tracePath != nil) { (event) throws(AudioPipelineError) in
            guard case .audio(let samples, let rate, let time, let utterance, let mediaMs) = event else { return }
            if writer == nil {
                writer = try AudioFileWriter(path: output, type: .wav, encoding: .pcm16, format: try StreamFormat(sampleRate: try SampleRate(rate), channels: 1))
                if let path = options.tracePath {
                    trace = try AtomicOutputFile(path: path)
                    try trace!.write("seq,send_ms,arrival_ms,duration_ms,media_ms,utt\n")
                }
            }
            try samples.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try writer!.write(p) }
            if let trace, let t = time {
                let durationMs = Double(samples.count) * 1000 / Double(rate)
                try trace.write(String(format: "%d,%.3f,%.3f,%.3f,%.3f,%d\n", seq, t, t, durationMs, mediaMs, utterance))
            }
            seq += 1
        }
        guard let writer else {
            throw AudioPipelineError(
                .invalidData, "\(input): no \(options.direction.rawValue) audio messages for profile \(report.profile) (\(report.messages) messages read)")
        }
        try writer.commit()
        try trace?.commit()
        return report
    }

    /// Reads a captured session and calls `body` with each audio message and interruption of one
    /// direction, in capture order. `needsTimes`: refuse a capture without arrival times.
    public static func walk(
        input: String, options: DeframeOptions, needsTimes: Bool, _ body: (SessionEvent) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) -> DeframeReport {
        var report = DeframeReport()
        let messages = try Self.messages(path: input, lenient: options.lenient, skipped: &report.skipped)
        guard let profile = options.profile ?? detectProfile(messages) else {
            throw AudioPipelineError(.invalidData, "\(input): cannot tell which API these messages belong to; give --profile")
        }
        report.profile = profile.name
        report.direction = options.direction
        if needsTimes && !messages.contains(where: { $0.timeMs != nil }) {
            throw AudioPipelineError(.invalidConfiguration, "\(input): needs arrival times: a HAR file, or JSON Lines of HAR-style entries")
        }
        var rate: Int?
        var utteranceIndex = 0, utteranceKey: String?, lastWasEnd = false
        var mediaMs = 0.0, playClock = 0.0
        var utteranceSeconds: [String: Double] = [:], order: [String] = []

        func fail(_ m: String) throws(AudioPipelineError) {
            if options.lenient { report.skipped.append(m) } else { throw AudioPipelineError(.invalidData, m) }
        }

        for m in messages {
            report.messages += 1
            if let d = m.direction, d != options.direction { report.otherDirection += 1; continue }
            var pcm: [UInt8]
            var utterance: String?
            var messageRate: Int?
            if let b = m.binary {
                guard profile.isBinary else { report.unknown["(binary message)", default: 0] += 1; continue }
                pcm = b
            } else {
                let v: JSONValue
                do { v = try JSON.parse(m.text ?? "") } catch { try fail("\(m.location): invalid JSON: \(error)"); continue }
                switch profile.interpret(v, direction: options.direction) {
                case .audio(let b64, let u, let r):
                    do { pcm = try decodeBase64(b64, location: m.location) } catch { try fail(error.message); continue }
                    utterance = u
                    messageRate = r
                case .interrupted:
                    report.interruptions += 1
                    lastWasEnd = true
                    try body(.interrupted(timeMs: m.timeMs))
                    continue
                case .turnComplete: report.turnEnds += 1; lastWasEnd = true; continue
                case .commit: report.commits += 1; continue
                case .error(let e): report.errors.append("\(m.location): \(e)"); continue
                case .control(let c): report.controls[c, default: 0] += 1; continue
                case .unknown(let t): report.unknown[t, default: 0] += 1; continue
                case .malformed(let why): try fail("\(m.location): \(why)"); continue
                }
            }
            if pcm.count % 2 != 0 { try fail("\(m.location): \(pcm.count) bytes of audio is an odd count (half a 16-bit sample)"); continue }
            let r = messageRate ?? (options.direction == .server ? profile.serverRate : profile.clientRate)
            if let rate, rate != r { try fail("\(m.location): the audio rate changes from \(rate) Hz to \(r) Hz mid-stream"); continue }
            rate = r
            report.rate = r
            let frames = pcm.count / 2
            var samples = [Int16](repeating: 0, count: frames)
            samples.withUnsafeMutableBytes { $0.copyBytes(from: pcm) }
            for k in samples.indices { samples[k] = Int16(littleEndian: samples[k]) }
            report.audioMessages += 1
            report.frames += frames
            // Utterance: the message's own id, else a counter that moves on after each turn end.
            let key: String
            if let utterance {
                key = utterance
            } else {
                if lastWasEnd && utteranceKey != nil { utteranceIndex += 1 }
                key = "\(utteranceIndex + 1)"
            }
            lastWasEnd = false
            let durationMs = Double(frames) * 1000 / Double(r)
            if key != utteranceKey {
                if utteranceKey != nil && utterance != nil { utteranceIndex += 1 }
                utteranceKey = key
                mediaMs = m.timeMs ?? 0
                playClock = mediaMs
                order.append(key)
            }
            if let t = m.timeMs, t > playClock + 0.5 {
                // Audio later than real-time playback of this response would need it: a stall.
                report.stalls += 1
                report.stallMs += t - playClock
                playClock = t
            }
            try body(.audio(samples: samples, rate: r, timeMs: m.timeMs, utterance: utteranceIndex, mediaMs: mediaMs))
            mediaMs += durationMs
            playClock += durationMs
            utteranceSeconds[key, default: 0] += durationMs / 1000
        }
        report.utterances = order.map { ($0, utteranceSeconds[$0] ?? 0) }
        return report
    }
}
