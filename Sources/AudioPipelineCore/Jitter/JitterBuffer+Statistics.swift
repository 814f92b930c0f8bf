extension JitterBuffer {
    /// Counters since `init` or `reset`, in samples unless named otherwise.
    public struct Statistics: Sendable, Hashable {
        /// Packets pushed.
        public var packetsReceived = 0
        /// Samples in the packets pushed.
        public var samplesReceived = 0
        /// Packets (or their unplayed parts) that arrived behind the play cursor or after their
        /// utterance.
        public var packetsLate = 0
        /// Samples of the late packets (or parts) dropped.
        public var samplesLate = 0
        /// Packets of a flushed utterance that arrived after the flush.
        public var packetsStale = 0
        /// Queued audio dropped by flushes.
        public var samplesFlushed = 0
        /// Flushes (barge-ins, or the API's own interruptions).
        public var flushes = 0
        /// Packets whose sequence number had been seen (dropped).
        public var packetsDuplicate = 0
        /// Packets dropped because the buffer was full (capacity or packet slots).
        public var packetsOverflow = 0
        /// Samples of the packets dropped for overflow.
        public var samplesOverflow = 0
        /// Audio played (media samples) and output produced while an utterance played.
        public var samplesPlayed = 0
        /// Silence inside an utterance (gaps later followed by more of the same utterance).
        public var samplesConcealed = 0
        /// Concealment events (gaps) inside utterances.
        public var underruns = 0
        /// Ticks played faster to bring the delay down.
        public var ticksAccelerated = 0
        /// Ticks played slower to bring the delay up.
        public var ticksDecelerated = 0
        /// Media samples removed by accelerate / inserted by decelerate.
        public var samplesRemoved = 0
        /// Media samples inserted by decelerating.
        public var samplesInserted = 0
        /// Sum over played samples of their playout delay (output time − media time), for the mean.
        public var delaySum: Double = 0
        /// Most audio queued at once, samples.
        public var maximumQueued = 0
        /// Ticks pulled.
        public var ticks = 0

        /// Mean playout delay of the samples played, samples (0 before any).
        public var meanDelay: Double { samplesPlayed > 0 ? delaySum / Double(samplesPlayed) : 0 }
        /// All counters at 0.
        public init() {}
    }
}
