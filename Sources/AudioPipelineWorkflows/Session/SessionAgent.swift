import AudioPipelineCore
import Foundation

/// One packet of the agent's audio on its way to the client.
public struct AgentPacket: Sendable {
    public var arrivalMs: Double
    public var sequence: Int64
    /// The response (utterance) it belongs to, from 0.
    public var utterance: Int64
    /// Position of its first sample on the sender's media clock, ms (the jitter kit's `media_ms`:
    /// where the response's audio sits on the agent's timeline, whatever its send time).
    public var mediaMs: Double
    /// Mono audio at the server rate.
    public var samples: [Float]
}

/// The agent's side of a simulated session: its packets at the server rate, in arrival order
/// (lost packets are not in it), and what was made of the input.
public struct SessionAgent: Sendable {
    public var rate: Int
    public var packets: [AgentPacket]
    /// Responses in the input, and packets lost on the way.
    public var responses: Int
    public var lostPackets: Int
    public var warnings: [String] = []
    /// The audio sent per `NetworkConditions` (`fromAudio` without a trace), kept so `resent` can
    /// send it again under others; nil for a trace's or a capture's arrivals, which are what they were.
    var source: [Float]?
    /// Per response (utterance), the conversation item its audio belongs to when a captured session
    /// names it; `item(of:)` makes one up otherwise.
    public var items: [Int64: AudioItem] = [:]

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
        if let trace { return fromTrace(audio, rate: rate, trace: trace) }
        let responses = ResponseSplitter.split(audio, rate: rate, gapMs: c.responseGapMs)
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
                            mediaMs: startMs + offsetMs, samples: Array(audio[at..<end])))
                }
                sequence += 1
                at = end
            }
        }
        packets.sort { ($0.arrivalMs, $0.sequence) < ($1.arrivalMs, $1.sequence) }
        var agent = SessionAgent(rate: rate, packets: packets, responses: responses.count, lostPackets: lost)
        agent.source = audio
        return agent
    }

    /// The same audio sent under `c`'s network and seed: exactly what `fromAudio` gives for `c` (a
    /// room of its own network, `SessionRooms`). A trace's or a capture's agent is returned as it is.
    public func resent(under c: SessionConfiguration) -> SessionAgent {
        guard let source else { return self }
        return Self.fromAudio(source, rate: rate, configuration: c)
    }

    private static func fromTrace(_ audio: [Float], rate: Int, trace: [TracePacket]) -> SessionAgent {
        let utterances = Set(trace.map(\.utterance))
        var packets: [AgentPacket] = []
        var lost = 0
        let toSamples = Double(rate) / 1000
        for p in trace {
            guard let arrival = p.arrivalMs else {
                lost += 1
                continue
            }
            let start = Int((p.mediaMs * toSamples).rounded())
            let count = max(1, Int((p.durationMs * toSamples).rounded()))
            var samples = [Float](repeating: 0, count: count)
            let from = max(0, start), to = min(audio.count, start + count)
            if from < to { samples.replaceSubrange((from - start)..<(to - start), with: audio[from..<to]) }
            packets.append(
                AgentPacket(
                    arrivalMs: arrival, sequence: p.sequence, utterance: p.utterance, mediaMs: p.mediaMs,
                    samples: samples))
        }
        packets.sort { ($0.arrivalMs, $0.sequence) < ($1.arrivalMs, $1.sequence) }
        var agent = SessionAgent(rate: rate, packets: packets, responses: utterances.count, lostPackets: lost)
        if packets.isEmpty { agent.warnings.append("the arrival trace delivers no audio (every packet lost)") }
        return agent
    }

    /// The server audio of a captured session (JSON Lines or HAR) at its arrival times; the
    /// server's own interruption events are not replayed (the simulation decides barge-ins).
    public static func fromSession(path: String, options: DeframeOptions) throws(AudioPipelineError) -> SessionAgent {
        var packets: [AgentPacket] = []
        var rate: Int?
        var interruptions = 0
        var items: [Int64: AudioItem] = [:]
        var widener = Int16ToFloat32Converter()
        func widen(_ s: [Int16]) -> [Float] {
            var out = [Float](repeating: 0, count: s.count)
            s.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { _ = widener.process(i, into: $0) } }
            return out
        }
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
                        mediaMs: mediaMs,
                        samples: widen(samples)))
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
        packets.sort { ($0.arrivalMs, $0.sequence) < ($1.arrivalMs, $1.sequence) }
        var agent = SessionAgent(rate: rate, packets: packets, responses: utterances.count, lostPackets: 0)
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
    public static func split(
        _ audio: [Float], rate: Int, gapMs: Double, thresholdDbfs: Double = -55
    ) -> [Range<Int>] {
        let (frame, levels) = FrameLevels.of(audio, rate: rate)
        let gapFrames = max(1, Int((gapMs / 10).rounded()))
        var out: [Range<Int>] = []
        var start: Int?
        var lastActive = -1
        for (k, level) in levels.enumerated() where level > thresholdDbfs {
            if let s = start, k - lastActive > gapFrames {
                out.append(s..<min(audio.count, (lastActive + 1) * frame))
                start = k * frame
            } else if start == nil {
                start = k * frame
            }
            lastActive = k
        }
        if let s = start { out.append(s..<min(audio.count, (lastActive + 1) * frame)) }
        return out
    }
}

/// The levels of a signal's consecutive 10 ms frames (the last one may be shorter), dBFS RMS.
enum FrameLevels {
    static func of(_ x: [Float], rate: Int) -> (frame: Int, dbfs: [Double]) {
        let frame = max(1, rate / 100)
        var levels: [Double] = []
        levels.reserveCapacity(x.count / frame + 1)
        var k = 0
        while k < x.count {
            let end = min(x.count, k + frame)
            var e: Float = 0
            for i in k..<end { e += x[i] * x[i] }
            levels.append(10 * log10(Double(e) / Double(end - k) + 1e-12))
            k = end
        }
        return (frame, levels)
    }
}
