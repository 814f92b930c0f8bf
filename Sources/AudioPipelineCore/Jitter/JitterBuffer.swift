/// Playout (jitter) buffer for an agent's audio: packets in at irregular times, exactly one tick of
/// audio out per `pull`, an adaptive playout delay, gentle time-stretching, concealment with fades,
/// and `flush` for barge-in.
///
/// ## Time
/// All times are in samples at the buffer's sample rate, on one clock: the buffer's own output clock,
/// which starts at `startTime` and moves by one tick per `pull`. A packet's *media time* is the
/// position of its first sample on the sender's media clock (an RTP timestamp; for a WebSocket
/// response, the cumulative duration of the response so far plus any origin). Only differences of
/// media times inside one utterance matter: every utterance gets its own baseline.
///
/// ## How the delay adapts (policy `.adaptive`)
/// For every packet, `r = arrival − media`. Inside an utterance `r` differs from packet to packet
/// only by network jitter, so the buffer keeps the *baseline* `B` = the smallest `r` of the current
/// utterance over the last `baselineWindow` (a sliding minimum, so slow delay drift is followed) and
/// records `j = r − B` in a histogram (1 ms bins) over the last `historyWindow` of arrivals. The
/// target delay is `D* = B + T`, `T = quantile(j, quantile) + margin`, clamped to
/// [`minimumTarget`, `maximumTarget`]. A packet is on time when the playout delay `t − media` at its
/// play time is at least its `r`, so `T` is the jitter margin that keeps `1 − quantile` of the
/// packets from being late.
///
/// The rare excursions beyond the quantile (delay spikes, Wi-Fi scans, TCP stalls) are not bought
/// with permanent delay. Instead:
/// - when the buffer runs dry with nothing later queued, playout **stalls** (silence after a short
///   fade-out; the cursor waits), so the late audio is still played, never dropped;
/// - a hole with later audio already queued (a lost or reordered packet) is waited for only while
///   the delay is below target; then it is concealed in real time and a late packet's tail still
///   plays if it arrives mid-hole;
/// - whenever the delay is above `D* + accelerateThreshold` the tick is **accelerated**: one
///   waveform-similar stretch of 2.5 ms – tick/2 is cut out with a cross-fade, so the excess drains at
///   1.25–1.5× speed; below `D* − decelerateThreshold` a similar stretch is repeated (0.5–0.75×), which
///   builds margin *before* a stall when the jitter grows. The stretch length is picked by
///   normalised cross-correlation over the candidate lags (a WSOLA step), so voiced speech is cut
///   or repeated by whole pitch periods.
/// Policy `.fixed(D)` plays every utterance at `D` after its first arrival with no stretching, as a
/// baseline.
///
/// ## Utterances and barge-in
/// Utterances (responses) play one after another, never overlapping; audio of an utterance that has
/// been left, or that arrives behind the cursor, is late and counted. `flush(throughUtterance:)`
/// cancels every utterance up to and including the given id: its queued audio is dropped at once
/// (counted as flushed), its packets still in flight are discarded on arrival (counted as stale), and
/// if it was playing the next tick ends it with a fade-out no longer than `fade` that also ends
/// within `flushTailLimit` of the flush time.
///
/// ## Memory
/// Everything is allocated in `init`: the audio lives in fixed 64-sample blocks chained per packet
/// (any packet size, any arrival order, no fragmentation); `capacity` bounds the queued audio.
/// A packet that does not fit is dropped and counted as overflow — never silently. `push` and `pull`
/// do not allocate.
///
/// ## Parts
/// This file is the public surface (init, reset, push, flush, pull). The queued audio is a
/// `PacketStore` (block pool and ordered slot ring), the delay statistics a `DelayEstimator`
/// (histogram, history, baseline with `SlidingExtreme`); playout decisions are in
/// JitterBuffer+Playout.swift, accelerate/decelerate in JitterBuffer+TimeStretch.swift.
public final class JitterBuffer {
    /// What `push` did with a packet.
    public enum PushResult: Sendable, Hashable {
        /// In the buffer, to be played when due.
        case queued
        /// Arrived behind the play cursor or after its utterance ended: dropped (counted as late).
        case late
        /// Of an utterance flushed before it arrived: dropped.
        case stale
        /// Its sequence number was already seen: dropped.
        case duplicate
        /// No room (capacity or packet slots): dropped.
        case overflow
    }

    /// One contiguous piece of one packet's audio in the last tick.
    public struct Piece: Sendable, Hashable {
        /// The packet's sequence number.
        public var sequence: Int64
        /// Start inside the packet, samples.
        public var offset: Int
        /// Media samples of the packet played.
        public var length: Int
        /// Position in the tick where the piece starts, and output it took (differs under stretching).
        public var outputStart: Double
        /// Output samples the piece took in the tick (its `length`, unless time-stretched).
        public var outputLength: Double
    }

    /// The sizes, policy and settings this buffer was made with.
    public let configuration: Configuration
    // The mutable state below is `@exclusivity(unchecked)`: a class's stored properties otherwise pay a
    // dynamic exclusivity check on every access (measured: 30–40 ns of a 110 ns pull). The buffer is
    // single-threaded by contract, like every stage. The two structs' own fields need no such
    // attribute: a struct's stored properties are checked statically.
    /// Counters since init or `reset`.
    @exclusivity(unchecked) public internal(set) var statistics: Statistics = Statistics()
    /// The buffer's clock: output time of the next tick's first sample.
    @exclusivity(unchecked) public internal(set) var clock: Int64 = 0
    /// Pieces of the last `pull`, valid until the next one.
    public var lastPieces: UnsafeBufferPointer<Piece> { UnsafeBufferPointer(start: pieces, count: pieceCount) }

    /// The queued packets and their audio.
    @exclusivity(unchecked) var store: PacketStore
    /// Arrival delays: baseline, jitter histogram, margin.
    @exclusivity(unchecked) var estimator: DelayEstimator

    // Playout.
    @exclusivity(unchecked) var playing: Bool = false
    @exclusivity(unchecked) var playUtterance: Int64 = .min
    @exclusivity(unchecked) var playBaseline: Int64 = 0
    @exclusivity(unchecked) var cursor: Int64 = 0
    /// Utterances below this are over (left or flushed): their packets are late or stale.
    @exclusivity(unchecked) var firstOpenUtterance: Int64 = .min
    @exclusivity(unchecked) var flushedThrough: Int64 = .min
    @exclusivity(unchecked) var pendingFlush: Bool = false
    @exclusivity(unchecked) var pendingFlushTime: Int64 = 0
    @exclusivity(unchecked) var pendingConceal: Int = 0
    @exclusivity(unchecked) var concealing: Bool = false
    @exclusivity(unchecked) var lastOutputSilent: Bool = true
    @exclusivity(unchecked) var fixedStart: Int64 = 0

    // Scratch.
    let scratch: UnsafeMutablePointer<Float>
    let scratchCapacity: Int
    let pieces: UnsafeMutablePointer<Piece>
    let pieceCapacity: Int
    @exclusivity(unchecked) var pieceCount: Int = 0

    /// An empty buffer whose output clock starts at `startTime` (samples); all storage allocated here.
    /// - Throws: `invalidConfiguration` for a configuration whose sizes do not fit together.
    public init(configuration c: Configuration, startTime: Int64 = 0) throws(AudioPipelineError) {
        try Self.validate(c)
        configuration = c
        clock = startTime
        store = try PacketStore(capacity: c.capacity, maximumPackets: c.maximumPackets)
        estimator = DelayEstimator(configuration: c)
        scratchCapacity = 2 * c.tick + 8
        scratch = .allocate(capacity: scratchCapacity)
        pieceCapacity = 2 * c.tick + 8
        pieces = .allocate(capacity: pieceCapacity)
    }

    private static func validate(_ c: Configuration) throws(AudioPipelineError) {
        func check(_ ok: Bool, _ what: String) throws(AudioPipelineError) {
            if !ok { throw AudioPipelineError(.invalidConfiguration, "jitter buffer: \(what)") }
        }
        try check(c.sampleRate >= 1000 && c.sampleRate <= 768_000, "sample rate \(c.sampleRate) Hz is out of range")
        try check(
            c.tick >= 16 && c.tick <= c.sampleRate, "tick of \(c.tick) samples must be between 16 samples and 1 s")
        try check(c.capacity >= c.tick * 4, "capacity \(c.capacity) samples is under four ticks")
        try check(
            c.maximumPackets >= 4 && c.maximumPackets <= Int(Int32.max / 2),
            "maximum packets \(c.maximumPackets) is out of range")
        try check(c.quantile > 0 && c.quantile < 1, "quantile \(c.quantile) must be between 0 and 1")
        try check(c.historyWindow > 0 && c.baselineWindow > 0, "history and baseline windows must be positive")
        try check(
            c.minimumTarget >= 0 && c.maximumTarget >= c.minimumTarget,
            "target range \(c.minimumTarget)…\(c.maximumTarget) is empty")
        try check(
            c.initialTarget >= 0 && c.margin >= 0 && c.fade >= 0 && c.flushTailLimit >= 0,
            "negative duration in the configuration")
        try check(c.accelerateThreshold >= 0 && c.decelerateThreshold >= 0, "negative stretch threshold")
        if case .fixed(let d) = c.policy { try check(d >= 0, "fixed delay \(d) is negative") }
    }

    deinit {
        store.deallocate()
        estimator.deallocate()
        scratch.deallocate()
        pieces.deallocate()
    }

    /// Empties the buffer, forgets the statistics and the jitter history, and sets the clock.
    public func reset(startTime: Int64 = 0) {
        while store.count > 0 { store.releaseFront() }
        estimator.reset()
        playing = false; playUtterance = .min; firstOpenUtterance = .min; flushedThrough = .min
        pendingFlush = false; pendingConceal = 0; concealing = false; lastOutputSilent = true
        statistics = Statistics()
        clock = startTime
        pieceCount = 0
    }

    /// Audio queued, samples.
    public var queued: Int { store.queuedSamples }

    /// The current target playout delay relative to the baseline (the jitter margin `T`), samples.
    public var jitterMargin: Int {
        if case .fixed(let d) = configuration.policy { return d }
        return estimator.jitterMargin()
    }

    // MARK: - Input

    /// Queues one packet. `arrival` defaults to the buffer's clock (the start of the next tick).
    @discardableResult
    public func push(
        _ samples: UnsafeBufferPointer<Float>, sequence: Int64, utterance: Int64, media: Int64, arrival: Int64? = nil
    ) -> PushResult {
        let n = samples.count
        let now = arrival ?? clock
        statistics.packetsReceived += 1
        statistics.samplesReceived += n
        if utterance <= flushedThrough {
            statistics.packetsStale += 1
            return .stale
        }
        // Late packets inform the jitter statistics too: they are the ones the margin missed.
        let taken = estimator.noteArrival(utterance: utterance, r: now - media, time: now)
        if taken && playing && playUtterance == utterance { playBaseline = estimator.receivingBaseline }
        if utterance < firstOpenUtterance || (playing && utterance == playUtterance && media + Int64(n) <= cursor) {
            statistics.packetsLate += 1
            statistics.samplesLate += n
            return .late
        }
        if n == 0 { return .queued }
        // Its place in (utterance, media) order, unless the same audio is already queued.
        guard let position = store.insertionPoint(utterance: utterance, media: media) else {
            statistics.packetsDuplicate += 1
            return .duplicate
        }
        guard store.canStore(n) else {
            statistics.packetsOverflow += 1
            statistics.samplesOverflow += n
            return .overflow
        }
        store.insert(samples, sequence: sequence, utterance: utterance, media: media, at: position)
        if store.queuedSamples > statistics.maximumQueued { statistics.maximumQueued = store.queuedSamples }
        return .queued
    }

    /// Barge-in: cancels every utterance with id ≤ `throughUtterance`. Queued audio is dropped at the
    /// next `pull` (after a fade-out of at most `fade` if it was playing); later arrivals are stale.
    /// `time` is when the user interrupted (defaults to the clock); the fade also ends by
    /// `time + flushTailLimit`.
    public func flush(throughUtterance: Int64, time: Int64? = nil) {
        statistics.flushes += 1
        if throughUtterance > flushedThrough { flushedThrough = throughUtterance }
        pendingFlush = true
        pendingFlushTime = time ?? clock
    }

    // MARK: - Output

    /// Writes exactly one tick into `output` (which must hold `configuration.tick` samples), then
    /// advances the clock by one tick. The pieces played are in `lastPieces`.
    public func pull(into output: UnsafeMutableBufferPointer<Float>) {
        let n = configuration.tick
        precondition(output.count >= n, "jitter buffer: output holds \(output.count) samples, a tick is \(n)")
        let out = output.baseAddress!
        pieceCount = 0
        statistics.ticks += 1
        estimator.expireHistory(before: clock - Int64(configuration.historyWindow))
        var written = pendingFlush ? applyPendingFlush(into: out) : 0
        // Each step plays, conceals or stretches part of the tick (JitterBuffer+Playout.swift).
        while written < n { written = playout(into: out, from: written) }
        clock += Int64(n)
    }
}
