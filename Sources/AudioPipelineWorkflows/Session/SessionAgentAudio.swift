import AudioPipelineCore

extension SessionAgent {
    /// Each packet in arrival order with its samples, read as it falls due: from the agent's audio
    /// through a window that holds only what packets still due may need, or from a second pass over
    /// the captured session that holds only the messages captured before they are due. The same
    /// samples as cutting them from the whole audio; memory follows the packets' reordering, not
    /// the agent's length.
    func forEachPacket(
        _ body: (AgentPacket, [Float]) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) {
        switch audio {
        case .signal(let signal):
            try forEachPacket(of: signal, body)
        case .capture(let path, let options):
            try forEachPacket(replaying: path, options: options, body)
        }
    }

    private func forEachPacket(
        of signal: SessionSignal, _ body: (AgentPacket, [Float]) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) {
        // No packet from the i-th on needs audio before the earliest start among them.
        var keepFrom = [Int](repeating: 0, count: packets.count)
        var earliest = Int.max
        for i in packets.indices.reversed() {
            earliest = min(earliest, packets[i].start)
            keepFrom[i] = earliest
        }
        let window = try AgentAudioWindow(signal)
        // A few arrays in turn: the jitter buffer's replay keeps a packet's array until its next
        // tick, after which the array is filled again in place (copy-on-write would allocate a new
        // one only while it is still held, as when many packets arrive in one tick).
        var arrays = [[Float]](repeating: [], count: 8)
        for (i, p) in packets.enumerated() {
            let k = i % arrays.count
            try window.samples(start: p.start, count: p.count, keepFrom: keepFrom[i], into: &arrays[k])
            try body(p, arrays[k])
        }
    }

    private func forEachPacket(
        replaying path: String, options: DeframeOptions,
        _ body: (AgentPacket, [Float]) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) {
        // Messages captured and not yet due, by their index among the audio messages.
        var captured: [Int64: [Float]] = [:]
        var next = 0
        var sequence: Int64 = 0
        var widener = Int16ToFloat32Converter()
        let walk = SessionWalk(input: path, options: options, needsTimes: true)
        _ = try walk.run { (event) throws(AudioPipelineError) in
            guard case .audio(let samples, _, _, _, _) = event else { return }
            var audio = [Float](repeating: 0, count: samples.count)
            samples.withUnsafeBufferPointer { s in
                audio.withUnsafeMutableBufferPointer { _ = widener.process(s, into: $0) }
            }
            captured[sequence] = audio
            sequence += 1
            while next < packets.count, let due = captured.removeValue(forKey: packets[next].sequence) {
                try body(packets[next], due)
                next += 1
            }
        }
        guard next == packets.count else {
            throw AudioPipelineError(.invalidData, "\(path): the capture changed while the session was simulated")
        }
    }
}

/// The part of the agent's audio that packets still due may need: pulled from the signal's reader
/// as packets ask for it, and dropped once no packet still due starts before it. Packets arrive in
/// about media order (out of it by the network's reordering), so what is held is about that
/// reordering's span, not the audio.
final class AgentAudioWindow {
    private let reader: SessionSignalReader
    private let count: Int
    /// Audio pulled and still needed, from sample `base`.
    private var held: [Float] = []
    private var base = 0
    private var block: [Float]

    init(_ signal: SessionSignal) throws(AudioPipelineError) {
        reader = try signal.reader()
        count = signal.count
        block = [Float](repeating: 0, count: 4096)
    }

    /// `n` samples from sample `start` (silence outside the audio) into `out`, which becomes `n`
    /// long; no later call needs audio before `keepFrom` (at most `start`).
    func samples(
        start: Int, count n: Int, keepFrom: Int, into out: inout [Float]
    ) throws(AudioPipelineError) {
        precondition(keepFrom <= start, "the window keeps what the packet needs")
        if out.count > n { out.removeLast(out.count - n) }
        if out.count < n { out.append(contentsOf: repeatElement(0, count: n - out.count)) }
        let from = max(0, start)
        let to = min(count, start + n)
        while base + held.count < to {
            let m = min(block.count, count - (base + held.count))
            try block.withUnsafeMutableBufferPointer { (b) throws(AudioPipelineError) in
                try reader.read(into: UnsafeMutableBufferPointer(rebasing: b[0..<m]))
            }
            held.append(contentsOf: block[0..<m])
            drop(before: keepFrom)
        }
        drop(before: keepFrom)
        let offset = base
        held.withUnsafeBufferPointer { h in
            out.withUnsafeMutableBufferPointer { o in
                for i in 0..<n {
                    let k = start + i
                    o[i] = k >= from && k < to ? h[k - offset] : 0
                }
            }
        }
    }

    /// Drops the audio before `keepFrom` once that is at least half of what is held (so moving the
    /// rest costs no more than what was pulled).
    private func drop(before keepFrom: Int) {
        let n = min(held.count, keepFrom - base)
        guard n > 0, 2 * n >= held.count else { return }
        held.removeFirst(n)
        base += n
    }
}
