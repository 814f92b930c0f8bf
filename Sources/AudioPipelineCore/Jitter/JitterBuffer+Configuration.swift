extension JitterBuffer {
    /// How the playout delay is chosen.
    public enum Policy: Sendable, Hashable {
        /// From the arrivals: the baseline delay plus a quantile of the jitter, adjusted by time-stretching.
        case adaptive
        /// A constant delay after each utterance's first arrival, in samples.
        case fixed(delay: Int)
    }

    /// A jitter buffer's sizes, policy and adaptive settings (samples at `sampleRate` unless named).
    public struct Configuration: Sendable, Hashable {
        /// Rate of the audio the buffer holds, Hz.
        public var sampleRate: Int
        /// Output per `pull`, samples.
        public var tick: Int
        /// Most audio the buffer holds, samples. A long TTS burst needs at least its own length.
        public var capacity: Int
        /// Most packets queued at once.
        public var maximumPackets: Int
        /// Adaptive (the default) or a fixed delay.
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
        /// Least jitter margin the adaptive policy targets, samples.
        public var minimumTarget: Int = 0
        /// Most jitter margin the adaptive policy targets, samples.
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
}
