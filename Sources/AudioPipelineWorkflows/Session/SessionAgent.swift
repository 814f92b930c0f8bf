import AudioPipelineCore
import Foundation

/// One packet of the agent's audio on its way to the client: when it arrives and which audio it
/// carries. Its samples are not held: they are read when it falls due (`SessionAgent.forEachPacket`).
public struct AgentPacket: Sendable, Hashable {
    /// When it reaches the client, ms on the device timeline.
    public var arrivalMs: Double
    /// Its sequence number (the jitter buffer drops duplicates by it).
    public var sequence: Int64
    /// The response (utterance) it belongs to, from 0.
    public var utterance: Int64
    /// Position of its first sample on the sender's media clock, ms (the jitter kit's `media_ms`:
    /// where the response's audio sits on the agent's timeline, whatever its send time).
    public var mediaMs: Double
    /// Its audio: `count` samples from sample `start` of the agent's audio at the server rate
    /// (silence where the audio has none); a captured session's packet is its message's audio
    /// (`start` 0).
    public var start: Int
    /// Samples of audio it carries.
    public var count: Int
}

/// The agent's side of a simulated session: its packets at the server rate, in arrival order
/// (lost packets are not in it), where their audio is, and what was made of the input. The packets
/// are a schedule: their samples are read as they fall due, from memory, a file or a second pass
/// over a captured session (`forEachPacket`), so an agent of any length takes memory for its
/// schedule only.
public struct SessionAgent: Sendable {
    /// The server's rate, Hz: the rate of the packets' audio.
    public var rate: Int
    /// The packets that arrive, in arrival order.
    public var packets: [AgentPacket]
    /// Responses in the input, and packets lost on the way.
    public var responses: Int
    /// Packets lost on the way (per `NetworkConditions.lossPercent`).
    public var lostPackets: Int
    /// What the input lacked or what was changed to use it.
    public var warnings: [String] = []
    /// Per response (utterance), the conversation item its audio belongs to when a captured session
    /// names it; `item(of:)` makes one up otherwise.
    public var items: [Int64: AudioItem] = [:]

    /// Where the packets' samples are read from.
    enum Audio: Sendable {
        /// The agent's audio at `rate` (`AgentPacket.start`, `count`).
        case signal(SessionSignal)
        /// A captured session's audio messages, read again (`AgentPacket.sequence` is the message's
        /// index among them).
        case capture(path: String, options: DeframeOptions)
    }

    let audio: Audio
    /// The frame levels of the audio sent per `NetworkConditions` (`fromAudio` without a trace),
    /// kept so `resent` can split it and send it again under others; nil for a trace's or a
    /// capture's arrivals, which are what they were.
    var sentLevels: FrameLevels.Measured?

    init(rate: Int, packets: [AgentPacket], responses: Int, lostPackets: Int, audio: Audio) {
        self.rate = rate
        self.packets = packets
        self.responses = responses
        self.lostPackets = lostPackets
        self.audio = audio
    }

    /// The item of response `r`: the captured one, else `sim_item_<r + 1>` with content index 0.
    public func item(of r: Int64) -> AudioItem {
        items[r] ?? AudioItem(id: "sim_item_\(r + 1)", contentIndex: 0)
    }

    /// The agent's audio (mono at `rate`) split into responses at silences of at least
    /// `configuration.responseGapMs`, sent per `configuration.network`, or cut per the arrival
    /// trace `trace` (each packet takes the agent's audio at its media time).
    public static func fromAudio(
        _ audio: [Float], rate: Int, configuration c: SessionConfiguration, trace: [TracePacket]? = nil
    ) -> SessionAgent {
        fromSignal(SessionSignal(audio), rate: rate, configuration: c, trace: trace)
    }

    /// As `fromAudio`, from a signal at `rate`: in memory, or a file (`SessionSignal.file`) whose
    /// samples are read as the packets fall due.
    public static func fromSignal(
        _ audio: SessionSignal, rate: Int, configuration c: SessionConfiguration, trace: [TracePacket]? = nil
    ) -> SessionAgent {
        if let trace { return fromTrace(audio, rate: rate, trace: trace) }
        return sent(audio, levels: audio.frameLevels(rate: rate), rate: rate, configuration: c)
    }

    /// The audio, split into responses by its frame levels, sent per `c.network`.
    private static func sent(
        _ audio: SessionSignal, levels: FrameLevels.Measured, rate: Int, configuration c: SessionConfiguration
    ) -> SessionAgent {
        let responses = ResponseSplitter.split(levels: levels, count: audio.count, gapMs: c.responseGapMs)
        let n = c.network
        var rng = SplitMix64(seed: c.seed ^ 0x6E65_7477_6F72_6B00)
        let packetSamples = max(1, Int((n.packetMs * Double(rate) / 1000).rounded()))
        var packets: [AgentPacket] = []
        var lost = 0
        var sequence: Int64 = 0
        for (u, r) in responses.enumerated() {
            let startMs = Double(r.lowerBound) * 1000 / Double(rate)
            var at = r.lowerBound
            while at < r.upperBound {
                let end = min(r.upperBound, at + packetSamples)
                let offsetMs = Double(at - r.lowerBound) * 1000 / Double(rate)
                let sendMs = startMs + offsetMs / n.burst
                let extra = n.jitterMs > 0 ? -n.jitterMs * log(1 - Double.random(in: 0..<1, using: &rng)) : 0
                let isLost = n.lossPercent > 0 && Double.random(in: 0..<100, using: &rng) < n.lossPercent
                if isLost {
                    lost += 1
                } else {
                    packets.append(
                        AgentPacket(
                            arrivalMs: sendMs + n.delayMs + extra, sequence: sequence, utterance: Int64(u),
                            mediaMs: startMs + offsetMs, start: at, count: end - at))
                }
                sequence += 1
                at = end
            }
        }
        packets.sort(by: arrivalOrder)
        var agent = SessionAgent(
            rate: rate, packets: packets, responses: responses.count, lostPackets: lost, audio: .signal(audio))
        agent.sentLevels = levels
        return agent
    }

    /// Arrival order: by arrival time, then sequence.
    static func arrivalOrder(_ a: AgentPacket, _ b: AgentPacket) -> Bool {
        a.arrivalMs != b.arrivalMs ? a.arrivalMs < b.arrivalMs : a.sequence < b.sequence
    }

    /// The same audio sent under `c`'s network and seed: exactly what `fromAudio` gives for `c` (a
    /// room of its own network, `SessionRooms`). A trace's or a capture's agent is returned as it is.
    public func resent(under c: SessionConfiguration) -> SessionAgent {
        guard let sentLevels, case .signal(let signal) = audio else { return self }
        return Self.sent(signal, levels: sentLevels, rate: rate, configuration: c)
    }

    private static func fromTrace(_ audio: SessionSignal, rate: Int, trace: [TracePacket]) -> SessionAgent {
        let utterances = Set(trace.map(\.utterance))
        var packets: [AgentPacket] = []
        var lost = 0
        let toSamples = Double(rate) / 1000
        for p in trace {
            guard let arrival = p.arrivalMs else {
                lost += 1
                continue
            }
            packets.append(
                AgentPacket(
                    arrivalMs: arrival, sequence: p.sequence, utterance: p.utterance, mediaMs: p.mediaMs,
                    start: Int((p.mediaMs * toSamples).rounded()),
                    count: max(1, Int((p.durationMs * toSamples).rounded()))))
        }
        packets.sort(by: arrivalOrder)
        var agent = SessionAgent(
            rate: rate, packets: packets, responses: utterances.count, lostPackets: lost, audio: .signal(audio))
        if packets.isEmpty { agent.warnings.append("the arrival trace delivers no audio (every packet lost)") }
        return agent
    }

    /// The server audio of a captured session (JSON Lines or HAR) at its arrival times; the
    /// server's own interruption events are not replayed (the simulation decides barge-ins). Reads
    /// the capture for the schedule only; `forEachPacket` reads it again for the audio.
    public static func fromSession(path: String, options: DeframeOptions) throws(AudioPipelineError) -> SessionAgent {
        var packets: [AgentPacket] = []
        var rate: Int?
        var interruptions = 0
        var items: [Int64: AudioItem] = [:]
        let walk = SessionWalk(input: path, options: options, needsTimes: true)
        let session = try walk.run { (event) throws(AudioPipelineError) in
            switch event {
            case .audio(let samples, let r, let time, let utterance, let mediaMs):
                guard let time else {
                    throw AudioPipelineError(
                        .invalidData, "\(path): audio message \(packets.count + 1) has no arrival time")
                }
                if let rate, rate != r {
                    throw AudioPipelineError(
                        .invalidData, "\(path): the server audio changes rate from \(rate) Hz to \(r) Hz")
                }
                rate = r
                if items[Int64(utterance)] == nil, let item = walk.item { items[Int64(utterance)] = item }
                packets.append(
                    AgentPacket(
                        arrivalMs: time, sequence: Int64(packets.count), utterance: Int64(utterance),
                        mediaMs: mediaMs, start: 0, count: samples.count))
            case .interrupted:
                interruptions += 1
            }
        }
        guard let rate, !packets.isEmpty else {
            throw AudioPipelineError(
                .invalidData, "\(path): no server audio messages (\(session.messages) messages read)")
        }
        // SessionWalk's media times are the utterance's first arrival plus the audio before: the
        // media clock a WebSocket client can rebuild (as `jitter play` replays it).
        let utterances = Set(packets.map(\.utterance))
        packets.sort(by: arrivalOrder)
        var agent = SessionAgent(
            rate: rate, packets: packets, responses: utterances.count, lostPackets: 0,
            audio: .capture(path: path, options: options))
        agent.items = items
        if interruptions > 0 {
            agent.warnings.append(
                "\(path): \(interruptions) interruption event(s) of the capture not replayed (the simulation "
                    + "decides barge-ins)")
        }
        return agent
    }
}

/// Splits an agent's audio into responses: 10 ms frames above `thresholdDbfs` are active, pauses
/// shorter than `gapMs` stay inside a response.
public enum ResponseSplitter {
    /// The responses in `audio` (mono at `rate`), as sample ranges.
    public static func split(
        _ audio: [Float], rate: Int, gapMs: Double, thresholdDbfs: Double = -55
    ) -> [Range<Int>] {
        split(levels: FrameLevels.of(audio, rate: rate), count: audio.count, gapMs: gapMs, thresholdDbfs: thresholdDbfs)
    }

    /// The same from the audio's frame levels (`FrameLevels`) and length.
    static func split(
        levels: FrameLevels.Measured, count: Int, gapMs: Double, thresholdDbfs: Double = -55
    ) -> [Range<Int>] {
        let frame = levels.frame
        let gapFrames = max(1, Int((gapMs / 10).rounded()))
        var out: [Range<Int>] = []
        var start: Int?
        var lastActive = -1
        for (k, level) in levels.dbfs.enumerated() where level > thresholdDbfs {
            if let s = start, k - lastActive > gapFrames {
                out.append(s..<min(count, (lastActive + 1) * frame))
                start = k * frame
            } else if start == nil {
                start = k * frame
            }
            lastActive = k
        }
        if let s = start { out.append(s..<min(count, (lastActive + 1) * frame)) }
        return out
    }
}
