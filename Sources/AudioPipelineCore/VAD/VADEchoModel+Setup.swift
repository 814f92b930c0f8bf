/// The echo model's types, constants, reset and replay: split from VADEchoModel.swift (the core's
/// file-size rule), which keeps the per-frame path (update, the delay estimate, the learning) in
/// one file. The method is described there.
extension VADEchoModel {
    /// What the expected echo rests on.
    public enum Stage: String, Sendable, Hashable, Codable {
        /// Nothing learnt yet (the session's start, or after the delay moved): the worst plausible
        /// gain over the whole search window.
        case worstCase = "worst-case"
        /// No delay found yet: the learnt upper envelope over the whole search window.
        case window
        /// The delay found and the gain learnt over the reference from that delay on.
        case tracked
    }

    /// One frame's expectation.
    public struct Estimate: Sendable, Hashable {
        /// Per band: the expected echo (dB; −inf where the reference was silent) and its margin.
        public var echo = SIMD4<Double>(repeating: -.infinity)
        /// Per band, the margin the expected echo is raised by (dB).
        public var margins = SIMD4<Double>()
        /// Per band, the echo gain in use (dB, echo over reference: the echo return loss is its
        /// negative).
        public var gains = SIMD4<Double>()
        /// The estimated echo delay (frames: the direct path's lag), once found.
        public var delayFrames: Int?
        /// What the expectation rests on.
        public var stage = Stage.worstCase
        /// Speech may not start in this frame: the echo of a new utterance is arriving.
        public var onsetGuard = false

        /// Nothing expected yet (−inf per band).
        public init() {}
    }

    /// Playing reference the gain needs before it is used, s.
    public static let learnSeconds = 0.3
    /// How far back the tracked gain learns when the delay is first found, s: the microphone's and
    /// the reference's last second are kept, and the frames in it that the gains could have learnt
    /// from teach the tracked gain at once, at the delay just found — it is in use from that frame,
    /// not `learnSeconds` of echo later (a user who talked over the agent's first words waited for it).
    public static let replaySeconds = 1.0
    /// A reference onset after at least this much silence is guarded, s.
    public static let onsetPauseSeconds = 0.2
    /// The delay is found when the correlation's peak is this many times its mean magnitude.
    public static let confidence = 3.0
    /// How far below the delay window's loudest frame the reference at the direct path may be for
    /// the gain to learn (dB): lower means the reference is stopping, and the echo dies away while
    /// the window still holds the word before (a pause learnt so put the gains 15–20 dB too low).
    static let offsetGap = 15.0
    /// What the settled median adds to the margin, dB: it lies below the echo's peaks (the window's
    /// maximum is often later than the echo, and pauses count), by about this much on speech.
    static let settledMargin = 6.0
    /// How far above its quiet level a band must be for the window model to learn from it, dB.
    static let arrivedMargin = 6.0
    /// Once a gain has learnt, a frame teaches it at most this much (dB) over its value: a user not
    /// yet heard (double talk before the first decision) moves it a little, not at once; a louder
    /// echo path still lifts it, step by step.
    static let learnStep = 6.0
    /// How far the direct path must be under the tail for a frame to teach the tail's level, dB: the
    /// reference has stopped and what the microphone holds of it is the room's reverberation.
    static let tailGap = 10.0

    /// Forgets the room: delay, gains and history start again.
    public mutating func reset() {
        for i in history.indices {
            history[i] = SIMD4(repeating: -140)
            changes[i] = SIMD4()
            micHistory[i] = SIMD4(repeating: -140)
            learnable[i] = false
        }
        for i in scores.indices { scores[i] = 0 }
        head = 0
        frames = 0
        previousMic = SIMD4(repeating: -100)
        scored = 0
        delay = nil
        candidate = 0
        candidateUpdates = 0
        for b in 0..<4 {
            envelopeGains[b].reset()
            settledGains[b].reset()
            trackedGains[b].reset()
            spreads[b].reset()
            tailOffsets[b].reset()
        }
        tailLearnt = 0
        windowLearnt = 0
        settledLearnt = 0
        trackedLearnt = 0
        relearning = false
        for b in 0..<4 { micQuiet[b].reset() }
        activeFrames = 0
        quietFrames = Int.max / 2
        sinceOnset = Int.max / 2
    }

    /// The kept frames the gains could have learnt from, oldest first, teach the tracked gain at the
    /// direct path's lag `start`, as if the delay had been known then.
    mutating func replay(start: Int) {
        let oldest = min(replayFrames, frames)
        guard oldest >= 1 else { return }
        for age in stride(from: oldest, through: 1, by: -1) where learnable[slot(age)] {
            let parts = trackedParts(from: start, age: age)
            let tracked = pointwiseMax(parts.direct, parts.tail)
            learnTracked(mic: micHistory[slot(age)], tracked: tracked, start: start, age: age)
        }
    }
}
