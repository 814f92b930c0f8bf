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
public final class JitterBuffer {
    public enum Policy: Sendable, Hashable {
        case adaptive
        /// A constant delay after each utterance's first arrival, in samples.
        case fixed(delay: Int)
    }

    public struct Configuration: Sendable, Hashable {
        public var sampleRate: Int
        /// Output per `pull`, samples.
        public var tick: Int
        /// Most audio the buffer holds, samples. A long TTS burst needs at least its own length.
        public var capacity: Int
        /// Most packets queued at once.
        public var maximumPackets: Int
        public var policy: Policy = .adaptive
        /// Fraction of packets the jitter margin should cover.
        public var quantile: Double = 0.95
        /// Window of arrivals behind the jitter histogram, samples.
        public var historyWindow: Int
        /// Window of the sliding minimum that gives an utterance's baseline delay, samples.
        public var baselineWindow: Int
        /// Jitter margin before 16 packets have been seen, samples.
        public var initialTarget: Int
        /// Added to the quantile (covers the tick quantisation of arrivals), samples.
        public var margin: Int
        public var minimumTarget: Int = 0
        public var maximumTarget: Int
        /// Accelerate when the delay exceeds the target by more than this, samples.
        public var accelerateThreshold: Int
        /// Decelerate when the delay is below the target by more than this, samples.
        public var decelerateThreshold: Int
        /// A hole (missing audio with later audio queued) is waited for until the delay reaches
        /// target + holeWait, then jumped. Negative: jump earlier (lost packets cost no silence; a
        /// reordered packet that comes later is late).
        public var holeWait: Int
        /// An empty buffer stalls until the delay exceeds max(target, largest recent delay) by this
        /// much; beyond it playout runs on in real time (what is still missing becomes late loss), so
        /// one long outage does not add its whole length to the delay. `Int.max`: always stall.
        public var maximumStall: Int
        /// Enable accelerate/decelerate (the adaptive policy's stretching).
        public var timeStretch = true
        /// Fade in and out around concealment and at a flush, samples.
        public var fade: Int
        /// Audio of a flushed utterance stops at most this long after the flush, samples.
        public var flushTailLimit: Int

        /// Defaults in milliseconds, converted at `sampleRate`.
        public init(sampleRate: Int = 24_000, tickMilliseconds: Double = 10, capacitySeconds: Double = 120) {
            func ms(_ v: Double) -> Int { Int((v * Double(sampleRate) / 1000).rounded()) }
            self.sampleRate = sampleRate
            tick = ms(tickMilliseconds)
            capacity = ms(capacitySeconds * 1000)
            maximumPackets = max(64, Int(capacitySeconds * 1000 / 5))  // down to 5 ms packets
            historyWindow = ms(10_000)
            baselineWindow = ms(2_000)
            initialTarget = ms(60)
            margin = ms(tickMilliseconds / 2)
            maximumTarget = ms(1_000)
            accelerateThreshold = ms(max(12, tickMilliseconds))
            decelerateThreshold = ms(tickMilliseconds)
            fade = ms(2)
            flushTailLimit = ms(20)
            holeWait = ms(40)
            maximumStall = ms(100)
        }
    }

    /// Counters since `init` or `reset`, in samples unless named otherwise.
    public struct Statistics: Sendable, Hashable {
        public var packetsReceived = 0
        public var samplesReceived = 0
        /// Packets (or their unplayed parts) that arrived behind the play cursor or after their utterance.
        public var packetsLate = 0
        public var samplesLate = 0
        /// Packets of a flushed utterance that arrived after the flush.
        public var packetsStale = 0
        /// Queued audio dropped by flushes.
        public var samplesFlushed = 0
        public var flushes = 0
        public var packetsDuplicate = 0
        /// Packets dropped because the buffer was full (capacity or packet slots).
        public var packetsOverflow = 0
        public var samplesOverflow = 0
        /// Audio played (media samples) and output produced while an utterance played.
        public var samplesPlayed = 0
        /// Silence inside an utterance (gaps later followed by more of the same utterance).
        public var samplesConcealed = 0
        /// Concealment events (gaps) inside utterances.
        public var underruns = 0
        public var ticksAccelerated = 0
        public var ticksDecelerated = 0
        /// Media samples removed by accelerate / inserted by decelerate.
        public var samplesRemoved = 0
        public var samplesInserted = 0
        /// Sum over played samples of their playout delay (output time − media time), for the mean.
        public var delaySum: Double = 0
        public var maximumQueued = 0
        public var ticks = 0

        public var meanDelay: Double { samplesPlayed > 0 ? delaySum / Double(samplesPlayed) : 0 }
        public init() {}
    }

    /// One contiguous piece of one packet's audio in the last tick.
    public struct Piece: Sendable, Hashable {
        public var sequence: Int64
        /// Start inside the packet, samples.
        public var offset: Int
        /// Media samples of the packet played.
        public var length: Int
        /// Position in the tick where the piece starts, and output it took (differs under stretching).
        public var outputStart: Double
        public var outputLength: Double
    }

    public enum PushResult: Sendable, Hashable {
        case queued, late, stale, duplicate, overflow
    }

    public let configuration: Configuration
    // The mutable state below is `@exclusivity(unchecked)`: a class's stored properties otherwise pay a
    // dynamic exclusivity check on every access (measured: 30–40 ns of a 110 ns pull). The buffer is
    // single-threaded by contract, like every stage.
    @exclusivity(unchecked) public private(set) var statistics: Statistics = Statistics()
    /// The buffer's clock: output time of the next tick's first sample.
    @exclusivity(unchecked) public private(set) var clock: Int64 = 0
    /// Pieces of the last `pull`, valid until the next one.
    public var lastPieces: UnsafeBufferPointer<Piece> { UnsafeBufferPointer(start: pieces, count: pieceCount) }

    // Audio blocks.
    private static let blockSize = 64
    private let blockCount: Int
    private let audio: UnsafeMutablePointer<Float>
    private let nextBlock: UnsafeMutablePointer<Int32>
    private let freeBlocks: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var freeBlockCount: Int = 0

    // Packets.
    private struct Slot {
        var sequence: Int64 = 0
        var utterance: Int64 = 0
        var media: Int64 = 0
        var length = 0
        var firstBlock: Int32 = -1
        /// Samples of this packet already consumed (from its start), and the block holding that position.
        var consumed = 0
        var readBlock: Int32 = -1
    }
    private let slots: UnsafeMutablePointer<Slot>
    private let freeSlots: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var freeSlotCount: Int = 0
    /// Queued packets sorted by (utterance, media): a ring of slot indices.
    private let order: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var orderHead: Int = 0
    @exclusivity(unchecked) private var orderCount: Int = 0
    @exclusivity(unchecked) private var queuedSamples: Int = 0

    // Jitter statistics.
    private static let binCount = 1024
    private let binWidth: Int
    private let histogram: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var histogramTotal: Int = 0
    /// Highest non-empty bin (the quantile walk starts there).
    @exclusivity(unchecked) private var histogramTop: Int = 0
    private let historyTime: UnsafeMutablePointer<Int64>
    private let historyBin: UnsafeMutablePointer<Int16>
    private let historyCapacity: Int
    @exclusivity(unchecked) private var historyHead: Int = 0
    @exclusivity(unchecked) private var historyCount: Int = 0
    @exclusivity(unchecked) private var cachedMargin: Int = 0
    @exclusivity(unchecked) private var marginDirty: Bool = true
    // Sliding minimum (the baseline) and maximum of r over the baseline window, for the utterance
    // being received.
    @exclusivity(unchecked) private var recentMinimum: SlidingExtreme
    @exclusivity(unchecked) private var recentMaximumDelay: SlidingExtreme
    @exclusivity(unchecked) private var receivingUtterance: Int64 = .min
    @exclusivity(unchecked) private var receivingBaseline: Int64 = 0
    @exclusivity(unchecked) private var receivingFirstArrival: Int64 = 0

    // Playout.
    @exclusivity(unchecked) private var playing: Bool = false
    @exclusivity(unchecked) private var playUtterance: Int64 = .min
    @exclusivity(unchecked) private var playBaseline: Int64 = 0
    @exclusivity(unchecked) private var cursor: Int64 = 0
    /// Utterances below this are over (left or flushed): their packets are late or stale.
    @exclusivity(unchecked) private var firstOpenUtterance: Int64 = .min
    @exclusivity(unchecked) private var flushedThrough: Int64 = .min
    @exclusivity(unchecked) private var pendingFlush: Bool = false
    @exclusivity(unchecked) private var pendingFlushTime: Int64 = 0
    @exclusivity(unchecked) private var pendingConceal: Int = 0
    @exclusivity(unchecked) private var concealing: Bool = false
    @exclusivity(unchecked) private var lastOutputSilent: Bool = true
    @exclusivity(unchecked) private var fixedStart: Int64 = 0

    // Scratch.
    private let scratch: UnsafeMutablePointer<Float>
    private let scratchCapacity: Int
    private let pieces: UnsafeMutablePointer<Piece>
    private let pieceCapacity: Int
    @exclusivity(unchecked) private var pieceCount: Int = 0

    public init(configuration c: Configuration, startTime: Int64 = 0) throws(AudioPipelineError) {
        func check(_ ok: Bool, _ what: String) throws(AudioPipelineError) {
            if !ok { throw AudioPipelineError(.invalidConfiguration, "jitter buffer: \(what)") }
        }
        try check(c.sampleRate >= 1000 && c.sampleRate <= 768_000, "sample rate \(c.sampleRate) Hz is out of range")
        try check(c.tick >= 16 && c.tick <= c.sampleRate, "tick of \(c.tick) samples must be between 16 samples and 1 s")
        try check(c.capacity >= c.tick * 4, "capacity \(c.capacity) samples is under four ticks")
        try check(c.maximumPackets >= 4 && c.maximumPackets <= Int(Int32.max / 2), "maximum packets \(c.maximumPackets) is out of range")
        try check(c.quantile > 0 && c.quantile < 1, "quantile \(c.quantile) must be between 0 and 1")
        try check(c.historyWindow > 0 && c.baselineWindow > 0, "history and baseline windows must be positive")
        try check(c.minimumTarget >= 0 && c.maximumTarget >= c.minimumTarget, "target range \(c.minimumTarget)…\(c.maximumTarget) is empty")
        try check(c.initialTarget >= 0 && c.margin >= 0 && c.fade >= 0 && c.flushTailLimit >= 0, "negative duration in the configuration")
        try check(c.accelerateThreshold >= 0 && c.decelerateThreshold >= 0, "negative stretch threshold")
        if case .fixed(let d) = c.policy { try check(d >= 0, "fixed delay \(d) is negative") }
        configuration = c
        clock = startTime
        blockCount = (c.capacity + Self.blockSize - 1) / Self.blockSize
        try check(blockCount < Int(Int32.max), "capacity is too large")
        audio = .allocate(capacity: blockCount * Self.blockSize)
        // Touch every page now: a real-time thread must not take page faults on its first packets.
        audio.initialize(repeating: 0, count: blockCount * Self.blockSize)
        nextBlock = .allocate(capacity: blockCount)
        freeBlocks = .allocate(capacity: blockCount)
        for i in 0..<blockCount { freeBlocks[i] = Int32(blockCount - 1 - i) }
        freeBlockCount = blockCount
        slots = .allocate(capacity: c.maximumPackets)
        slots.initialize(repeating: Slot(), count: c.maximumPackets)
        freeSlots = .allocate(capacity: c.maximumPackets)
        for i in 0..<c.maximumPackets { freeSlots[i] = Int32(c.maximumPackets - 1 - i) }
        freeSlotCount = c.maximumPackets
        order = .allocate(capacity: c.maximumPackets)
        binWidth = max(1, c.sampleRate / 1000)
        histogram = .allocate(capacity: Self.binCount)
        histogram.initialize(repeating: 0, count: Self.binCount)
        historyCapacity = max(256, c.maximumPackets)
        historyTime = .allocate(capacity: historyCapacity)
        historyBin = .allocate(capacity: historyCapacity)
        recentMinimum = SlidingExtreme(maximum: false, capacity: 1024)
        recentMaximumDelay = SlidingExtreme(maximum: true, capacity: 1024)
        cachedMargin = c.initialTarget
        scratchCapacity = 2 * c.tick + 8
        scratch = .allocate(capacity: scratchCapacity)
        pieceCapacity = 2 * c.tick + 8
        pieces = .allocate(capacity: pieceCapacity)
    }

    deinit {
        audio.deallocate()
        nextBlock.deallocate()
        freeBlocks.deallocate()
        slots.deinitialize(count: configuration.maximumPackets)
        slots.deallocate()
        freeSlots.deallocate()
        order.deallocate()
        histogram.deallocate()
        historyTime.deallocate()
        historyBin.deallocate()
        recentMinimum.deallocate()
        recentMaximumDelay.deallocate()
        scratch.deallocate()
        pieces.deallocate()
    }

    /// Empties the buffer, forgets the statistics and the jitter history, and sets the clock.
    public func reset(startTime: Int64 = 0) {
        while orderCount > 0 { releaseFront() }
        histogram.update(repeating: 0, count: Self.binCount)
        histogramTotal = 0
        histogramTop = 0
        historyHead = 0; historyCount = 0
        recentMinimum.clear()
        recentMaximumDelay.clear()
        receivingUtterance = .min
        playing = false; playUtterance = .min; firstOpenUtterance = .min; flushedThrough = .min
        pendingFlush = false; pendingConceal = 0; concealing = false; lastOutputSilent = true
        cachedMargin = configuration.initialTarget; marginDirty = true
        statistics = Statistics()
        clock = startTime
        pieceCount = 0
    }

    /// Audio queued, samples.
    public var queued: Int { queuedSamples }

    /// The current target playout delay relative to the baseline (the jitter margin `T`), samples.
    public var jitterMargin: Int {
        if case .fixed(let d) = configuration.policy { return d }
        updateMargin()
        return cachedMargin
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
        noteArrival(utterance: utterance, r: now - media, time: now)
        if utterance < firstOpenUtterance || (playing && utterance == playUtterance && media + Int64(n) <= cursor) {
            statistics.packetsLate += 1
            statistics.samplesLate += n
            return .late
        }
        if n == 0 { return .queued }
        // Find the position in (utterance, media) order, from the back (arrivals are mostly in order).
        var pos = orderCount
        while pos > 0 {
            let s = slots[Int(order[ring(pos - 1)])]
            if s.utterance < utterance || (s.utterance == utterance && s.media < media) { break }
            if s.utterance == utterance && s.media == media {
                statistics.packetsDuplicate += 1
                return .duplicate
            }
            pos -= 1
        }
        let needBlocks = (n + Self.blockSize - 1) / Self.blockSize
        guard freeSlotCount > 0, needBlocks <= freeBlockCount else {
            statistics.packetsOverflow += 1
            statistics.samplesOverflow += n
            return .overflow
        }
        freeSlotCount -= 1
        let slotIndex = freeSlots[freeSlotCount]
        var first: Int32 = -1, previous: Int32 = -1
        var copied = 0
        for _ in 0..<needBlocks {
            freeBlockCount -= 1
            let b = freeBlocks[freeBlockCount]
            nextBlock[Int(b)] = -1
            if previous >= 0 { nextBlock[Int(previous)] = b } else { first = b }
            previous = b
            let m = min(Self.blockSize, n - copied)
            (audio + Int(b) * Self.blockSize).update(from: samples.baseAddress! + copied, count: m)
            copied += m
        }
        slots[Int(slotIndex)] = Slot(sequence: sequence, utterance: utterance, media: media, length: n, firstBlock: first, consumed: 0, readBlock: first)
        // Insert at pos: shift the tail one place back.
        var i = orderCount
        while i > pos {
            order[ring(i)] = order[ring(i - 1)]
            i -= 1
        }
        order[ring(pos)] = slotIndex
        orderCount += 1
        queuedSamples += n
        if queuedSamples > statistics.maximumQueued { statistics.maximumQueued = queuedSamples }
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
        expireHistory(before: clock - Int64(configuration.historyWindow))
        var written = 0
        if pendingFlush {
            pendingFlush = false
            if playing && playUtterance <= flushedThrough {
                let budget = Int(max(0, pendingFlushTime + Int64(configuration.flushTailLimit) - clock))
                let f = gather(into: scratch, limit: min(configuration.fade, budget, n))
                if f > 0 {
                    let fadeLength = f
                    for k in 0..<f { out[k] = scratch[k] * Float(fadeLength - k) / Float(fadeLength + 1) }
                    consume(f, outputStart: 0, outputLength: Double(f))
                    written = f
                }
                stopPlaying()
                lastOutputSilent = true
            }
            dropQueued(throughUtterance: flushedThrough)
            if firstOpenUtterance <= flushedThrough { firstOpenUtterance = flushedThrough &+ 1 }
        }
        while written < n {
            if !playing && !startIfDue(at: clock + Int64(written)) {
                fillSilence(out + written, n - written, inUtterance: false)
                written = n
                break
            }
            dropBehindCursor()
            let want = n - written
            // Stretch only whole ticks, decided from the delay before any audio is copied.
            var stretch = 0
            var excess: Int64 = 0
            if written == 0 && configuration.timeStretch && isAdaptive {
                let delay = clock - cursor
                let target = targetDelay()
                // Only delay that no recent packet needed is removed (a TTS burst is never sped up).
                excess = delay - max(target, recentMaximum())
                if excess > Int64(configuration.accelerateThreshold) {
                    stretch = 1
                } else if delay - target < -Int64(configuration.decelerateThreshold) {
                    stretch = -1
                }
            }
            if stretch != 0 {
                let available = gather(into: scratch, limit: min(scratchCapacity, 2 * n))
                if available >= n {
                    if stretch > 0, accelerate(into: out, available: available, excess: Int(excess)) { written = n; break }
                    if stretch < 0, decelerate(into: out, available: available) { written = n; break }
                }
            }
            // Normal playout: straight from the packets into the output.
            let available = gather(into: out + written, limit: want)
            if available == 0 {
                let next = frontSlot()
                if let next, next.utterance != playUtterance {
                    // The next utterance is queued: this one is over.
                    stopPlaying()
                    continue
                }
                // Nothing at the cursor. A hole (later audio queued) is waited for while the delay is
                // under the target, then jumped: the cursor moves to the next queued audio at once, so
                // only the wait is concealed (the fixed policy conceals holes in real time instead).
                let delay = clock + Int64(written) - cursor
                if let next, delay >= targetDelay() + Int64(isAdaptive ? configuration.holeWait : 0) {
                    if isAdaptive {
                        cursor = next.media
                        continue
                    }
                    let hole = Int(min(Int64(want), next.media - cursor))
                    fillSilence(out + written, hole, inUtterance: true)
                    cursor += Int64(hole)
                    written += hole
                    continue
                }
                if delay >= targetDelay() && (!isAdaptive || delay - max(targetDelay(), recentMaximum()) > Int64(configuration.maximumStall)) {
                    fillSilence(out + written, want, inUtterance: true)
                    cursor += Int64(want)
                    written = n
                    break
                }
                fillSilence(out + written, want, inUtterance: true)  // stall
                written = n
                break
            }
            let m = available
            commitConcealment()
            if lastOutputSilent { fadeIn(out + written, m) }
            lastOutputSilent = false
            addDelay(count: m, outputStart: written)
            consume(m, outputStart: Double(written), outputLength: Double(m))
            written += m
            // Does the audio go on after this piece (the next queued packet covers the cursor)? If
            // not, fade out: a gap or the end follows.
            if !continuesAtCursor() { fadeOut(out + written - m, m) }
        }
        clock += Int64(n)
    }

    // MARK: - Playout decisions

    private var isAdaptive: Bool { if case .adaptive = configuration.policy { return true } else { return false } }

    /// Target playout delay (output time − media time) for the playing utterance.
    private func targetDelay() -> Int64 {
        if case .fixed(let d) = configuration.policy { return fixedStart + Int64(d) }
        let baseline = playUtterance == receivingUtterance ? receivingBaseline : playBaseline
        updateMargin()
        return baseline + Int64(cachedMargin)
    }

    /// Largest r of the playing utterance over the baseline window (its most delayed recent packet).
    private func recentMaximum() -> Int64 {
        guard playUtterance == receivingUtterance else { return Int64.min }
        return recentMaximumDelay.extreme ?? Int64.min
    }

    /// Starts the first queued utterance if its start time has come.
    private func startIfDue(at now: Int64) -> Bool {
        dropBeforeOpenUtterances()
        guard let s = frontSlot() else { return false }
        // An older utterance than the one arriving now is complete as far as it goes: play it at once.
        let current = s.utterance == receivingUtterance
        updateMargin()
        if current {
            let start: Int64
            switch configuration.policy {
            case .adaptive: start = s.media + receivingBaseline + Int64(cachedMargin)
            case .fixed(let d): start = receivingFirstArrival + Int64(d)
            }
            if start > now { return false }
        }
        playing = true
        playUtterance = s.utterance
        if firstOpenUtterance < s.utterance { firstOpenUtterance = s.utterance }
        cursor = s.media + Int64(s.consumed)
        playBaseline = current ? receivingBaseline : now - cursor - Int64(cachedMargin)
        fixedStart = (current ? receivingFirstArrival : now) - s.media
        pendingConceal = 0
        concealing = false
        return true
    }

    private func stopPlaying() {
        playing = false
        pendingConceal = 0
        concealing = false
        if firstOpenUtterance <= playUtterance { firstOpenUtterance = playUtterance &+ 1 }
    }

    /// Accelerate: output one tick from `tick + d` media samples, cutting `d` samples at the lag of best
    /// waveform similarity with a cross-fade.
    private func accelerate(into out: UnsafeMutablePointer<Float>, available: Int, excess: Int) -> Bool {
        let n = configuration.tick
        let overlap = n / 2
        let dMin = max(1, configuration.sampleRate / 400)  // 2.5 ms
        let dMax = min(n / 2, available - n, excess)
        guard dMax >= dMin else { return false }
        let start = (n - overlap) / 2
        let d = bestLag(a: start, bBase: start, lags: dMin...dMax, sign: 1, length: overlap)
        for k in 0..<start { out[k] = scratch[k] }
        for k in 0..<overlap {
            let w = Float(k + 1) / Float(overlap + 1)
            out[start + k] = scratch[start + k] * (1 - w) + scratch[start + d + k] * w
        }
        for k in (start + overlap)..<n { out[k] = scratch[k + d] }
        playStretched(media: n + d, into: out)
        statistics.ticksAccelerated += 1
        statistics.samplesRemoved += d
        return true
    }

    /// Decelerate: output one tick from `tick − d` media samples, repeating `d` samples.
    private func decelerate(into out: UnsafeMutablePointer<Float>, available: Int) -> Bool {
        let n = configuration.tick
        let overlap = n / 2
        let dMin = max(1, configuration.sampleRate / 400)
        let dMax = n - overlap
        guard dMax >= dMin, available >= n else { return false }
        let p = dMax  // cross-fade from x[p + k] to x[p − d + k]
        let d = bestLag(a: p, bBase: p, lags: dMin...dMax, sign: -1, length: overlap)
        for k in 0..<p { out[k] = scratch[k] }
        for k in 0..<overlap {
            let w = Float(k + 1) / Float(overlap + 1)
            out[p + k] = scratch[p + k] * (1 - w) + scratch[p - d + k] * w
        }
        for k in (p + overlap)..<n { out[k] = scratch[k - d] }
        playStretched(media: n - d, into: out)
        statistics.ticksDecelerated += 1
        statistics.samplesInserted += d
        return true
    }

    private func playStretched(media: Int, into out: UnsafeMutablePointer<Float>) {
        let n = configuration.tick
        commitConcealment()
        if lastOutputSilent { fadeIn(out, n) }
        lastOutputSilent = false
        // Delay of the media played: proportional mapping of output to media.
        let scale = Double(n) / Double(media)
        let m = Double(media)
        statistics.delaySum += m * Double(clock - cursor) + (scale - 1) * m * (m - 1) / 2
        statistics.samplesPlayed += media
        consume(media, outputStart: 0, outputLength: Double(n))
        if gather(into: scratch, limit: 1) == 0 { fadeOut(out, n) }
    }

    /// Lag in `lags` maximising the normalised correlation of x[a ..< a+L] with x[bBase + sign·lag ..< …].
    private func bestLag(a: Int, bBase: Int, lags: ClosedRange<Int>, sign: Int, length: Int) -> Int {
        var best = lags.lowerBound
        var bestScore = -Float.infinity
        let x = scratch
        var energyA: Float = 0
        for k in 0..<length { energyA += x[a + k] * x[a + k] }
        for lag in lags {
            let b = bBase + sign * lag
            var dot: Float = 0, energyB: Float = 0
            for k in 0..<length {
                dot += x[a + k] * x[b + k]
                energyB += x[b + k] * x[b + k]
            }
            let score = energyA * energyB > 0 ? dot / (energyA * energyB).squareRoot() : 0
            if score > bestScore { bestScore = score; best = lag }
        }
        return best
    }

    // MARK: - Output helpers

    private func fillSilence(_ p: UnsafeMutablePointer<Float>, _ count: Int, inUtterance: Bool) {
        guard count > 0 else { return }
        p.update(repeating: 0, count: count)
        lastOutputSilent = true
        if inUtterance {
            if !concealing { concealing = true }
            pendingConceal += count
        }
    }

    /// Concealment counts only once audio of the same utterance follows it (else it was the end).
    private func commitConcealment() {
        if concealing {
            statistics.samplesConcealed += pendingConceal
            statistics.underruns += 1
        }
        concealing = false
        pendingConceal = 0
    }

    private func fadeIn(_ p: UnsafeMutablePointer<Float>, _ count: Int) {
        let f = min(configuration.fade, count)
        for k in 0..<f { p[k] *= Float(k + 1) / Float(f + 1) }
    }

    private func fadeOut(_ p: UnsafeMutablePointer<Float>, _ count: Int) {
        let f = min(configuration.fade, count)
        for k in 0..<f { p[count - f + k] *= Float(f - k) / Float(f + 1) }
        lastOutputSilent = true
    }

    private func addDelay(count: Int, outputStart: Int) {
        let base = Double(clock + Int64(outputStart) - cursor)
        statistics.delaySum += base * Double(count)
        statistics.samplesPlayed += count
    }

    // MARK: - Queue

    @inline(__always) private func ring(_ i: Int) -> Int {
        let r = orderHead + i
        return r >= configuration.maximumPackets ? r - configuration.maximumPackets : r
    }

    private func frontSlot() -> Slot? { orderCount > 0 ? slots[Int(order[orderHead])] : nil }

    private func releaseFront() {
        let index = Int(order[orderHead])
        var b = slots[index].firstBlock
        while b >= 0 {
            freeBlocks[freeBlockCount] = b
            freeBlockCount += 1
            b = nextBlock[Int(b)]
        }
        queuedSamples -= slots[index].length
        freeSlots[freeSlotCount] = Int32(index)
        freeSlotCount += 1
        orderHead = ring(1)
        orderCount -= 1
    }

    private func dropBeforeOpenUtterances() {
        while let s = frontSlot(), s.utterance < firstOpenUtterance {
            statistics.packetsLate += 1
            statistics.samplesLate += s.length - s.consumed
            releaseFront()
        }
    }

    /// Drops queued packets of left utterances and packets wholly behind the cursor.
    private func dropBehindCursor() {
        while let s = frontSlot(), s.utterance < playUtterance || (s.utterance == playUtterance && s.media + Int64(s.length) <= cursor) {
            statistics.packetsLate += 1
            statistics.samplesLate += s.length - s.consumed
            releaseFront()
        }
    }

    private func dropQueued(throughUtterance u: Int64) {
        // Queued packets are sorted by utterance, so the cancelled ones are at the front.
        while let s = frontSlot(), s.utterance <= u {
            statistics.samplesFlushed += s.length - s.consumed
            releaseFront()
        }
    }

    /// Whether audio of the playing utterance is queued at the cursor.
    @inline(__always)
    private func continuesAtCursor() -> Bool {
        guard playing, orderCount > 0 else { return false }
        let s = slots[Int(order[orderHead])]
        return s.utterance == playUtterance && s.media <= cursor && s.media + Int64(s.length) > cursor
    }

    /// The block holding sample `offset` of a packet and that block's first sample, walking on from
    /// the packet's read position (or from its start for an earlier offset).
    @inline(__always)
    private func locate(_ s: Slot, _ offset: Int) -> (block: Int32, blockStart: Int) {
        var block = s.readBlock
        var blockStart = s.consumed - s.consumed % Self.blockSize
        if offset < s.consumed { block = s.firstBlock; blockStart = 0 }
        while offset - blockStart >= Self.blockSize {
            block = nextBlock[Int(block)]
            blockStart += Self.blockSize
        }
        return (block, blockStart)
    }

    /// Copies up to `limit` contiguous samples of the playing utterance, starting `skip` samples after
    /// the cursor, into `dst` without consuming them. Returns the count.
    private func gather(into dst: UnsafeMutablePointer<Float>, skip: Int = 0, limit: Int) -> Int {
        guard playing else { return 0 }
        var got = 0
        var position = cursor + Int64(skip)
        var i = 0
        while got < limit && i < orderCount {
            let s = slots[Int(order[ring(i)])]
            if s.utterance != playUtterance || s.media > position { break }
            let end = s.media + Int64(s.length)
            if end > position {
                var offset = Int(position - s.media)
                var (block, blockStart) = locate(s, offset)
                while got < limit && offset < s.length {
                    let inBlock = offset - blockStart
                    let m = min(Self.blockSize - inBlock, s.length - offset, limit - got)
                    (dst + got).update(from: audio + Int(block) * Self.blockSize + inBlock, count: m)
                    got += m
                    offset += m
                    position += Int64(m)
                    if inBlock + m == Self.blockSize {
                        block = nextBlock[Int(block)]
                        blockStart += Self.blockSize
                    }
                }
            }
            i += 1
        }
        return got
    }

    /// Consumes `count` media samples from the cursor, recording the pieces and releasing finished packets.
    private func consume(_ count: Int, outputStart: Double, outputLength: Double) {
        var left = count
        var out = outputStart
        let scale = outputLength / Double(count)
        while left > 0, orderCount > 0 {
            let index = Int(order[orderHead])
            let s = slots[index]
            let end = s.media + Int64(s.length)
            if end <= cursor { releaseFront(); continue }
            let offset = Int(cursor - s.media)
            // The head of a packet the cursor ran past while it was missing is late.
            if offset > s.consumed { statistics.samplesLate += offset - s.consumed }
            let m = min(left, s.length - offset)
            if pieceCount < pieceCapacity {
                pieces[pieceCount] = Piece(sequence: s.sequence, offset: offset, length: m, outputStart: out, outputLength: Double(m) * scale)
                pieceCount += 1
            }
            out += Double(m) * scale
            left -= m
            cursor += Int64(m)
            let newConsumed = offset + m
            if newConsumed >= s.length {
                releaseFront()
            } else {
                slots[index].readBlock = locate(s, newConsumed).block
                slots[index].consumed = newConsumed
            }
        }
    }

    // MARK: - Jitter statistics

    private func noteArrival(utterance: Int64, r: Int64, time: Int64) {
        // A straggler of an older utterance says nothing about the current baseline.
        if utterance < receivingUtterance { return }
        if utterance != receivingUtterance {
            receivingUtterance = utterance
            recentMinimum.clear()
            recentMaximumDelay.clear()
            receivingFirstArrival = time
        }
        let horizon = time - Int64(configuration.baselineWindow)
        recentMinimum.add(r, at: time, dropBefore: horizon)
        recentMaximumDelay.add(r, at: time, dropBefore: horizon)
        receivingBaseline = recentMinimum.extreme!
        if playing && playUtterance == utterance { playBaseline = receivingBaseline }
        // Jitter sample.
        let j = max(0, r - receivingBaseline)
        let bin = Int16(min(Int64(Self.binCount - 1), j / Int64(binWidth)))
        if historyCount == historyCapacity { removeOldestHistory() }
        let slot = (historyHead + historyCount) % historyCapacity
        historyTime[slot] = time
        historyBin[slot] = bin
        historyCount += 1
        histogram[Int(bin)] += 1
        histogramTotal += 1
        if Int(bin) > histogramTop { histogramTop = Int(bin) }
        marginDirty = true
        expireHistory(before: time - Int64(configuration.historyWindow))
    }

    private func removeOldestHistory() {
        let bin = Int(historyBin[historyHead])
        histogram[bin] -= 1
        histogramTotal -= 1
        if bin == histogramTop { while histogramTop > 0 && histogram[histogramTop] == 0 { histogramTop -= 1 } }
        historyHead = (historyHead + 1) % historyCapacity
        historyCount -= 1
        marginDirty = true
    }

    private func expireHistory(before time: Int64) {
        while historyCount > 0 && historyTime[historyHead] < time { removeOldestHistory() }
    }

    private func updateMargin() {
        guard marginDirty else { return }
        marginDirty = false
        let c = configuration
        guard histogramTotal >= 16 else {
            cachedMargin = min(max(c.initialTarget, c.minimumTarget), c.maximumTarget)
            return
        }
        // Smallest bin b with count(j in bins ≤ b) ≥ quantile·total, walking down from the top.
        let allowedAbove = Int(Double(histogramTotal) * (1 - c.quantile))
        var above = 0
        var b = histogramTop
        while b > 0 {
            let h = Int(histogram[b])
            if above + h > allowedAbove { break }
            above += h
            b -= 1
        }
        let value = (b + 1) * binWidth + c.margin
        cachedMargin = min(max(value, c.minimumTarget), c.maximumTarget)
    }
}

/// Sliding minimum or maximum of timed values: a monotonic deque in fixed storage (allocated at
/// init, freed by the owner with `deallocate()`). When full (more values in the window than
/// `capacity`), the newest value replaces the last one, so the extreme itself is never lost.
struct SlidingExtreme {
    let keepsMaximum: Bool
    let capacity: Int
    private let times: UnsafeMutablePointer<Int64>
    private let values: UnsafeMutablePointer<Int64>
    private var head = 0, count = 0

    init(maximum: Bool, capacity: Int) {
        keepsMaximum = maximum
        self.capacity = capacity
        times = .allocate(capacity: capacity)
        values = .allocate(capacity: capacity)
    }

    func deallocate() {
        times.deallocate()
        values.deallocate()
    }

    mutating func clear() { head = 0; count = 0 }

    /// The smallest (largest) value in the window, nil when empty.
    var extreme: Int64? { count > 0 ? values[head] : nil }

    /// Adds `value` at `time`, then forgets values older than `horizon` (always keeping the newest).
    mutating func add(_ value: Int64, at time: Int64, dropBefore horizon: Int64) {
        while count > 0 {
            let back = values[(head + count - 1) % capacity]
            guard keepsMaximum ? back <= value : back >= value else { break }
            count -= 1
        }
        if count == capacity { count -= 1 }
        let slot = (head + count) % capacity
        times[slot] = time
        values[slot] = value
        count += 1
        while count > 1 && times[head] < horizon {
            head = (head + 1) % capacity
            count -= 1
        }
    }
}
