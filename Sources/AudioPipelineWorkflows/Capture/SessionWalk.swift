import AudioPipelineCore

/// What to take from a captured session.
public struct DeframeOptions: Sendable {
    /// nil: detect from the messages.
    public var profile: WireProfile?
    /// Which side's audio to take.
    public var direction: WireDirection = .server
    /// Skip (and count) bad messages instead of stopping at the first.
    public var lenient = false
    /// Write the arrival timeline of the audio messages (jitter-kit trace format) here.
    public var tracePath: String?
    /// Detect the profile, take the server's audio, stop at the first bad message.
    public init() {}
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

/// The conversation item an audio message belongs to, where its message names one (OpenAI
/// Realtime's `item_id` and `content_index`): what a client's truncate message refers to.
public struct AudioItem: Sendable, Hashable, Codable {
    /// The item's id.
    public var id: String
    /// The content part's index in the item.
    public var contentIndex: Int

    /// An item reference.
    public init(id: String, contentIndex: Int) {
        self.id = id
        self.contentIndex = contentIndex
    }
}

/// Reads a captured session (streaming: constant memory on JSON Lines and binary streams) and
/// interprets it with a wire profile: audio of one direction, interruptions, turn ends, errors,
/// utterances and stalls. `Deframer` and `JitterPlayback` are built on it.
public final class SessionWalk {
    /// The captured session's path.
    public let input: String
    /// What to take from it.
    public let options: DeframeOptions
    /// Refuse a capture without arrival times.
    public let needsTimes: Bool
    private var report = DeframeReport()
    private var profile: WireProfile?
    private var rate: Int?
    private var frames = 0
    private var utteranceIndex = 0, utteranceKey: String?, lastWasEnd = false
    private var mediaMs = 0.0, playClock = 0.0
    private var utteranceSeconds: [String: Double] = [:], order: [String] = []
    /// The item of the message whose audio `run` is handing to its body (nil: it names none).
    public private(set) var item: AudioItem?

    /// - Parameters:
    ///   - input: the captured session (JSON Lines or HAR; `-` is standard input).
    ///   - options: the profile, direction and raw-message options, as `deframe` takes them.
    ///   - needsTimes: refuse a capture without arrival times.
    public init(input: String, options: DeframeOptions, needsTimes: Bool) {
        self.input = input
        self.options = options
        self.needsTimes = needsTimes
        profile = options.profile
    }

    /// Calls `body` with each audio message and interruption of the chosen direction, in capture order.
    public func run(_ body: (SessionEvent) throws(AudioPipelineError) -> Void) throws(AudioPipelineError)
        -> DeframeReport
    {
        let reader = try CaptureReader(path: input, lenient: options.lenient)
        report.direction = options.direction.rawValue
        // The first messages wait until the profile is known (detected from them when not given).
        var sample: [CapturedMessage] = []
        var started = false
        func start() throws(AudioPipelineError) {
            started = true
            try begin(sample)
            for m in sample { try take(m, body) }
            sample.removeAll()
        }
        try reader.forEach { (m) throws(AudioPipelineError) in
            if started { return try take(m, body) }
            sample.append(m)
            if sample.count >= ProfileDetection.sampleSize { try start() }
        }
        if !started { try start() }
        report.skipped.insert(contentsOf: reader.skipped, at: 0)
        report.unknownTypes.merge(reader.ignored, uniquingKeysWith: +)
        report.audioSeconds = report.rate > 0 ? Double(frames) / Double(report.rate) : 0
        report.utterances = order.map { .init(id: $0, seconds: utteranceSeconds[$0] ?? 0) }
        return report
    }

    private func begin(_ sample: [CapturedMessage]) throws(AudioPipelineError) {
        if sample.isEmpty && report.skipped.isEmpty {
            throw AudioPipelineError(.invalidData, "\(input): no message in it (every line blank or skipped)")
        }
        if profile == nil { profile = ProfileDetection.detect(sample) }
        guard let profile else {
            throw AudioPipelineError(
                .invalidData, "\(input): cannot tell which API these messages belong to; give --profile")
        }
        report.profile = profile.name
        if needsTimes && !sample.contains(where: { $0.timeMs != nil }) {
            throw AudioPipelineError(
                .invalidConfiguration, "\(input): needs arrival times: a HAR file, or JSON Lines of HAR-style entries")
        }
    }

    private func fail(_ message: String) throws(AudioPipelineError) {
        if options.lenient { report.skipped.append(message) } else { throw AudioPipelineError(.invalidData, message) }
    }

    /// One message: its audio (as PCM bytes, rate and utterance) or its event.
    private func take(_ m: CapturedMessage, _ body: (SessionEvent) throws(AudioPipelineError) -> Void)
        throws(AudioPipelineError)
    {
        report.messages += 1
        if let d = m.direction, d != options.direction { report.otherDirection += 1; return }
        let profile = self.profile!
        let v: JSONValue
        switch (m.payload, m.json) {
        case (.binary(let b), _):
            item = nil
            if profile.isBinary { return try audio(b, utterance: nil, messageRate: nil, m, body) }
            // JSON in a binary frame (Gemini's server sends it so): read it as text.
            guard let parsed = try? b.withUnsafeBytes({ (r) throws(JSON.ParseError) in try JSON.parse(r) }) else {
                report.unknownTypes["(binary message)", default: 0] += 1
                return
            }
            v = parsed
        case (.text, .success(let parsed)?): v = parsed
        case (.text, .failure(let e)?): return try fail("\(m.location): invalid JSON: \(e)")
        case (.text, nil): return try fail("\(m.location): invalid JSON")
        }
        item = v["item_id"]?.string.map { id in
            AudioItem(id: id, contentIndex: v["content_index"]?.number.flatMap { Int(exactly: $0) } ?? 0)
        }
        // One message may carry several events (Gemini: several audio parts, then the turn's end).
        for event in profile.interpretAll(v, direction: options.direction) {
            try take(event, m, profile, body)
        }
    }

    private func take(
        _ event: WireEvent, _ m: CapturedMessage, _ profile: WireProfile,
        _ body: (SessionEvent) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) {
        switch event {
        case .audio(let b64, let u, let r):
            let pcm: [UInt8]
            do { pcm = try profile.decodeAudio(b64) } catch {
                return try fail("\(m.location): invalid base64 audio: \(error)")
            }
            try audio(pcm, utterance: u, messageRate: r, m, body)
        case .interrupted:
            report.interruptions += 1
            lastWasEnd = true
            try body(.interrupted(timeMs: m.timeMs))
        case .turnComplete: report.turnEnds += 1; lastWasEnd = true
        case .commit: report.commits += 1
        case .error(let e): report.errors.append("\(m.location): \(e)")
        case .control(let c): report.controls[c, default: 0] += 1
        case .unknown(let t): report.unknownTypes[t, default: 0] += 1
        case .malformed(let why): try fail("\(m.location): \(why)")
        }
    }

    private func audio(
        _ pcm: [UInt8], utterance: String?, messageRate: Int?, _ m: CapturedMessage,
        _ body: (SessionEvent) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) {
        let profile = self.profile!
        if pcm.count % 2 != 0 {
            return try fail("\(m.location): \(pcm.count) bytes of audio is an odd count (half a 16-bit sample)")
        }
        let r = messageRate ?? (options.direction == .server ? profile.serverRate : profile.clientRate)
        guard (4000...SampleRate.maximumHz).contains(r) else {
            let what = r == 0 ? "a rate of 0 Hz, or one that is not a whole number," : "a rate of \(r) Hz"
            return try fail("\(m.location): \(what) is not an audio rate (4000…\(SampleRate.maximumHz) Hz)")
        }
        if let rate, rate != r {
            return try fail("\(m.location): the audio rate changes from \(rate) Hz to \(r) Hz mid-stream")
        }
        rate = r
        report.rate = r
        let count = pcm.count / 2
        var samples = [Int16](repeating: 0, count: count)
        samples.withUnsafeMutableBytes { $0.copyBytes(from: pcm) }
        for k in samples.indices { samples[k] = Int16(littleEndian: samples[k]) }
        report.audioMessages += 1
        frames += count
        let durationMs = Double(count) * 1000 / Double(r)
        let key = self.key(utterance)
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

    /// Utterance: the message's own id, else a counter that moves on after each turn end.
    private func key(_ utterance: String?) -> String {
        defer { lastWasEnd = false }
        if let utterance { return utterance }
        if lastWasEnd && utteranceKey != nil { utteranceIndex += 1 }
        return "\(utteranceIndex + 1)"
    }
}
