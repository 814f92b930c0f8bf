import AudioPipelineCore

/// The one causal replay of arrivals through a `JitterBuffer`, with the jitter kit's tick model:
/// ticks at k·tick; at each tick deliver every packet whose arrival ≤ t (in arrival order), then
/// apply every flush whose time ≤ t, then pull one tick. `jitter simulate` (a trace) and `jitter
/// play` (a captured session) both run on it.
///
/// Events are fed in time order as they come (`arrive`, `flush`), so a session streams through in
/// constant memory; `finish` plays out what is queued. Times are ms on the arrival clock.
public final class TickReplay {
    /// The jitter buffer replayed through.
    public let configuration: JitterBuffer.Configuration
    /// Called after every pull with the tick's start (samples) and the buffer (its `lastPieces`) and
    /// the tick's audio.
    public typealias TickHandler = (_ tickStart: Int64, _ buffer: JitterBuffer, _ audio: UnsafeBufferPointer<Float>)
        throws(AudioPipelineError) -> Void

    private let toSamples: Double
    private let tick: Int64
    private var buffer: JitterBuffer?
    private var output: [Float]
    private var arrivals: [(samples: [Float], sequence: Int64, utterance: Int64, media: Int64, arrival: Int64)] = []
    private var flushes: [(time: Int64, through: Int64?)] = []
    private var lastUtterance = Int64.min
    private let onTick: TickHandler
    /// Ticks played after the last event before giving up on a buffer that does not drain.
    private let giveUpTicks: Int64
    /// A pause between events longer than this is shortened to it (a capture left open overnight,
    /// a time of 1e9 ms), instead of playing hours of silence; counted in `cappedGaps`/`cappedMs`.
    public var maximumGapMs = 600_000.0
    /// Pauses shortened to `maximumGapMs`.
    public private(set) var cappedGaps = 0
    /// The time those pauses lost, ms.
    public private(set) var cappedMs = 0.0
    private var lastEventMs: Double?
    private var shiftMs = 0.0

    /// A replay through a new buffer of `configuration`, calling `onTick` after every pull.
    public init(configuration: JitterBuffer.Configuration, onTick: @escaping TickHandler) {
        self.configuration = configuration
        toSamples = Double(configuration.sampleRate) / 1000
        tick = Int64(configuration.tick)
        output = [Float](repeating: 0, count: configuration.tick)
        giveUpTicks = Int64(600 * configuration.sampleRate) / Int64(configuration.tick)  // ten minutes
        self.onTick = onTick
    }

    /// The buffer's statistics (empty before the first arrival).
    public var statistics: JitterBuffer.Statistics { buffer?.statistics ?? JitterBuffer.Statistics() }

    /// A packet arrives at `arrivalMs` (not earlier than any event fed before it).
    public func arrive(
        _ samples: [Float], sequence: Int64, utterance: Int64, mediaMs: Double, arrivalMs: Double
    ) throws(AudioPipelineError) {
        let arrivalMs = capped(arrivalMs)
        let mediaMs = mediaMs - shiftMs
        let at = Int64((arrivalMs * toSamples).rounded(.up))
        if buffer == nil {
            let startTick = Int64((arrivalMs * toSamples / Double(tick)).rounded(.down))
            buffer = try JitterBuffer(configuration: configuration, startTime: startTick * tick)
        }
        try advance(to: at)
        arrivals.append((samples, sequence, utterance, Int64((mediaMs * toSamples).rounded()), at))
    }

    /// A barge-in at `timeMs` cancels every utterance through `throughUtterance`; nil: every
    /// utterance received by then (what a client does when the server says "interrupted").
    public func flush(throughUtterance: Int64?, timeMs: Double) throws(AudioPipelineError) {
        let timeMs = capped(timeMs)
        try advance(to: Int64((timeMs * toSamples).rounded(.up)))
        flushes.append((Int64((timeMs * toSamples).rounded(.down)), throughUtterance))
    }

    /// `t` moved earlier by the gaps cut so far, and by this gap if it is over the maximum.
    private func capped(_ t: Double) -> Double {
        var t = t - shiftMs
        if let last = lastEventMs, t - last > maximumGapMs {
            let cut = t - last - maximumGapMs
            shiftMs += cut
            cappedMs += cut
            cappedGaps += 1
            t -= cut
        }
        lastEventMs = max(lastEventMs ?? t, t)
        return t
    }

    /// Audio queued in the buffer, samples (0 before it starts).
    public var queued: Int { buffer?.queued ?? 0 }

    /// The buffer's clock (the next tick's start) on the arrival clock, ms; nil before it starts.
    public var clockMs: Double? { buffer.map { Double($0.clock) / toSamples + shiftMs } }

    /// A warning when gaps were shortened.
    public var gapWarning: String? {
        guard cappedGaps > 0 else { return nil }
        return "\(cappedGaps) pause(s) between events longer than \(Int(maximumGapMs / 1000)) s were shortened to it "
            + "(\(NumberText.seconds(cappedMs / 1000)) s cut)"
    }

    /// Starts the clock at `timeMs` (rounded down to a tick) before any arrival, so ticks are played
    /// (silence) from there on: a caller that runs other streams on the same clock (the session
    /// simulator's room and microphone) needs every tick, not only those after the first packet.
    public func start(atMs timeMs: Double) throws(AudioPipelineError) {
        guard buffer == nil else { return }
        let startTick = Int64((timeMs * toSamples / Double(tick)).rounded(.down))
        buffer = try JitterBuffer(configuration: configuration, startTime: startTick * tick)
        lastEventMs = timeMs
    }

    /// Plays every tick that starts before `timeMs` (after `start(atMs:)` or a first arrival).
    public func advance(toMs timeMs: Double) throws(AudioPipelineError) {
        try advance(to: Int64(((timeMs - shiftMs) * toSamples).rounded(.up)))
    }

    /// A flush decided inside `onTick` (a barge-in the caller detected in that tick's audio): it is
    /// applied at the next tick, without playing any tick now. `timeMs` on the arrival clock.
    public func requestFlush(throughUtterance: Int64?, timeMs: Double) {
        flushes.append((Int64(((timeMs - shiftMs) * toSamples).rounded(.down)), throughUtterance))
    }

    /// Plays on until the buffer is empty (or ten minutes after the last event).
    public func finish() throws(AudioPipelineError) {
        guard let buffer else { return }
        var after: Int64 = 0
        repeat {
            try playTick()
            after += 1
        } while buffer.queued > 0 && after <= giveUpTicks
    }

    /// Plays the ticks that start before `sample`: an event at `sample` belongs to the first tick
    /// starting at or after it.
    private func advance(to sample: Int64) throws(AudioPipelineError) {
        while let buffer, buffer.clock < sample { try playTick() }
    }

    /// One tick: deliver the arrivals, apply the flushes, pull.
    private func playTick() throws(AudioPipelineError) {
        guard let buffer else { return }
        let now = buffer.clock
        for a in arrivals {
            a.samples.withUnsafeBufferPointer {
                _ = buffer.push($0, sequence: a.sequence, utterance: a.utterance, media: a.media, arrival: a.arrival)
            }
            lastUtterance = max(lastUtterance, a.utterance)
        }
        arrivals.removeAll(keepingCapacity: true)
        for f in flushes {
            if let through = f.through {
                buffer.flush(throughUtterance: through, time: f.time)
            } else if lastUtterance > Int64.min {
                buffer.flush(throughUtterance: lastUtterance, time: f.time)
            }
        }
        flushes.removeAll(keepingCapacity: true)
        output.withUnsafeMutableBufferPointer { buffer.pull(into: $0) }
        try output.withUnsafeBufferPointer { (o) throws(AudioPipelineError) in try onTick(now, buffer, o) }
    }
}
