extension VADDecider {
    /// What one frame's decision was made of (`process(mic:reference:detail:)`): what
    /// `vad detect --explain` reports and the tuning report plots. Levels in dB (dBFS for levels).
    public struct Detail: Sendable, Hashable {
        /// How many bands the frame held: 4 (`VADBandAnalyzer.splitsHz`) or, with a reference, 8
        /// (`VADBandPairAnalyzer.splitsHz`); the per-band figures' lanes from it on are unused.
        public var bandCount = 4
        /// Per band: the frame's energy, its noise floor and the
        /// expected echo (−inf without a reference, or before the reference has played in the band).
        public var bands = SIMD8<Double>(repeating: -.infinity)
        /// Per band, the noise floor (dB).
        public var floors = SIMD8<Double>(repeating: -.infinity)
        /// Per band, the expected echo (dB; −inf without a reference).
        public var echoes = SIMD8<Double>(repeating: -.infinity)
        /// Per band, the margin the expected echo is raised by (dB): `echoMargin` until the echo
        /// gain has learnt, then the echo model's error there within [`echoMarginMinimum`, `echoMargin`].
        public var echoMargins = SIMD8<Double>()
        /// Per band: the excess of the energy over noise floor ⊕ (expected echo + its margin) —
        /// the frame's score is the mean of the two largest. `bands − excess` is that model.
        public var excess = SIMD8<Double>()
        /// The exit test's score: the mean score of the last `exitAverageFrames` frames less
        /// `noiseScore`, the median score of recent non-speech frames (what the noise alone shows).
        public var exitScore = 0.0
        /// The median score of recent non-speech frames, subtracted in the exit test.
        public var noiseScore = 0.0
        /// The frame's level is at least `absoluteThreshold` (dBFS).
        public var loud = false
        /// The level is within `talkerGate` dB of `loudest`, the loudest recent speech (the 95th
        /// percentile of frame levels over `talkerWindowSeconds`), or the gate is off.
        public var dominant = false
        /// The loudest recent speech level, dBFS (the talker gate's reference).
        public var loudest = -Double.infinity
        /// The gate the start test applied, dB below `loudest`: `talkerOnsetGate` without a
        /// reference (at most `talkerGate`), else `talkerGate`.
        public var startGate = 0.0
        /// The tests the decision applies: to start speech (score ≥ enter threshold, loud and
        /// within `startGate` of `loudest`; `confirmFrames` in a row) and to keep it (exit score ≥
        /// exit threshold, loud and dominant; speech ends after more than the hangover of frames
        /// that fail it).
        public var enterTest = false
        /// The start test passed by `sustainedEnterThreshold` alone (the frame's score was below the
        /// enter threshold).
        public var sustainedStart = false
        /// The keep test (exit score ≥ exit threshold, loud and dominant) passed.
        public var exitTest = false
        /// Speech ended at this frame because it was younger than `transientMilliseconds` and the
        /// frame's own score failed the exit test (a transient, not a word).
        public var burstOver = false
        /// Speech ended at this frame because every band standing `steadyExcess` or more over its
        /// floor had stayed within `steadySpread` of one level since its first frames, for
        /// `steadyNoiseMilliseconds`: a noise that switched on (a fan, a hum, a running tap), not a
        /// voice; those bands' floors were lifted to it.
        public var steadyNoise = false
        /// The onset check: the run of frames passing the start test started again at this frame,
        /// its score more than `onsetDrop` below the run's highest (a decaying sound); the run's
        /// first frame had its energy in its last quarter, abruptly (`onsetJump`): one more frame.
        public var onsetRestart = false
        /// The run's first frame was a late, abrupt onset: one more frame to hold.
        public var lateOnset = false
        /// Frames in the current run that passes the start test (0 when none), and whether its count
        /// began with the frame before it as the onset's lead-in.
        public var runFrames = 0
        /// The run's count began with the frame before as its lead-in.
        public var leadIn = false
        /// The run had held its frames on a frame whose sound decayed through it (a click's tail), and
        /// waited for one that did not: with a reference, `onsetJump` from its first quarter to its
        /// last over noise ⊕ expected echo; without, `decayFallWithoutReference` over the noise floor
        /// in a frame `decayUnderHighest` under the run's highest.
        public var decayWaited = false
        /// The run had held its frames on a frame under its highest, every frame since which lay
        /// `declineSlope` a frame under it and rose at most `declineRise` over the one before (a
        /// clink's ring), and waited for one that did not: without a reference in the score, with
        /// one in the level of the bands the run began in (`ringRiseOverEcho`, `EchoRing`).
        public var declineWaited = false
        /// The run had held its frames on a frame that rang (its sound above 1 kHz predicted itself
        /// from 2 ms before, `ringGainMinimum`, and stood out more there than under 1 kHz — with a
        /// reference, its excess over noise ⊕ echo by `ringMarginOverEcho`: a clink), and waited for
        /// one that did not.
        public var ringWaited = false
        /// The run began with a click's attack (its first frame rose more than `leadInRiseMax` over
        /// the frame before with a reference, `attackWithoutReference` without one — and then its
        /// second frame did not build up as a voice's does) or started again from such a run: one
        /// more frame to hold.
        public var attackWaited = false
        /// With a reference, every frame of the run stood out above 1 kHz alone (no band under it
        /// `voiceUnder1k` over noise ⊕ echo: a knock's, or a word's hiss): one more frame to hold.
        public var highOnlyWaited = false
        /// With a reference, the run had held its frames on a frame whose power over noise ⊕ echo and
        /// whose level both lay `runFallUnderHighest` under the run's highest (a thump's), and waited.
        public var fallWaited = false
        /// With a reference: the echo model (`VADEchoModel`) — the gain per band in use (dB; the echo
        /// return loss is its negative), the estimated delay in frames once found, what the
        /// expectation rests on, and whether the echo of a new utterance was arriving (no start).
        public var echoGains = SIMD8<Double>()
        /// The estimated echo delay, frames, once found.
        public var echoDelayFrames: Int?
        /// Whether `echoDelayFrames` was in doubt (`VADEchoModel.Estimate.delayInDoubt`).
        public var echoDelayInDoubt = false
        /// What the expected echo rests on (nil without a reference).
        public var echoStage: VADEchoModel.Stage?
        /// The echo of a new utterance was arriving: speech could not start in this frame.
        public var onsetGuard = false
        /// The reverberation time the expected echo's tail falls by, ms (nil without a tail).
        public var echoReverbMilliseconds: Double?
        /// Whether `echoReverbMilliseconds` was measured in the reference's pauses, not configured.
        public var echoReverbMeasured = false

        /// An empty detail, filled by `process(mic:reference:detail:)`.
        public init() {}

        /// The echo model's part of a frame: its margins, gains, delay and stage (none without a
        /// reference), and whether its onset guard held.
        @inline(__always)
        mutating func record(echo expected: VADEchoModel.Estimate, hasReference: Bool) {
            echoMargins = expected.margins
            echoGains = expected.gains
            echoDelayFrames = expected.delayFrames
            echoDelayInDoubt = expected.delayInDoubt
            echoStage = hasReference ? expected.stage : nil
            onsetGuard = expected.onsetGuard
            echoReverbMilliseconds = expected.reverbMilliseconds
            echoReverbMeasured = expected.reverbMeasured
        }

        /// Band names for people, for four bands ("< 300 Hz", "300–1000 Hz", "1000–3000 Hz",
        /// "> 3000 Hz") or eight.
        public static func bandNames(count: Int) -> [String] {
            let splits = count == 4 ? VADBandAnalyzer.splitsHz : VADBandPairAnalyzer.splitsHz
            let s = splits.map { String(Int($0)) }
            return ["< \(s[0]) Hz"] + (1..<s.count).map { "\(s[$0 - 1])–\(s[$0]) Hz" } + ["> \(s[s.count - 1]) Hz"]
        }
    }
}
