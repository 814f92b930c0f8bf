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
        /// How many bands the figures hold (4 or 8); the lanes from it on are unused.
        public var bandCount = 8
        /// Per band: the expected echo (dB; −inf where the reference was silent) and its margin.
        public var echo = SIMD8<Double>(repeating: -.infinity)
        /// Per band, the margin the expected echo is raised by (dB).
        public var margins = SIMD8<Double>()
        /// Per band, the echo gain in use (dB, echo over reference: the echo return loss is its
        /// negative).
        public var gains = SIMD8<Double>()
        /// The estimated echo delay (frames: the direct path's lag), once found.
        public var delayFrames: Int?
        /// Whether `delayFrames` is in doubt: its lags' correlation no longer stands out over the
        /// search range's (a delay found on a user's words before he was heard); the onset guard then
        /// holds from the reference's onsets, not from when their echo is due.
        public var delayInDoubt = false
        /// What the expectation rests on.
        public var stage = Stage.worstCase
        /// Speech may not start in this frame: the echo of a new utterance is arriving.
        public var onsetGuard = false
        /// The room's reverberation time the tail falls by, ms (nil: tracking off).
        public var reverbMilliseconds: Double?
        /// Whether `reverbMilliseconds` was measured (a room slower than `echo_rt60_ms`) rather than
        /// configured.
        public var reverbMeasured = false

        /// Nothing expected yet (−inf per band).
        public init() {}
    }

    /// One frame (`update(mic:reference:nearEnd:unexplained:into:)`, whose parameters it takes).
    /// - Returns: The echo expected in this frame, with what it rests on.
    public mutating func update(
        mic m: SIMD8<Double>, reference rp: SIMD8<Double>, nearEnd: Bool = false, unexplained: Bool = false
    ) -> Estimate {
        var e = Estimate()
        update(mic: m, reference: rp, nearEnd: nearEnd, unexplained: unexplained, into: &e)
        return e
    }

    /// The most bands a frame holds (`VADBandPairAnalyzer`'s eight): state is kept for as many.
    public static let maxBands = 8
    /// Playing reference the gain needs before it is used, s.
    public static let learnSeconds = 0.3
    /// How far back the tracked gain learns when the delay is first found, s: the microphone's and
    /// the reference's last second are kept, and the frames in it that the gains could have learnt
    /// from teach the tracked gain at once, at the delay just found — it is in use from that frame,
    /// not `learnSeconds` of echo later (a user who talked over the agent's first words waited for it).
    public static let replaySeconds = 1.0
    /// A reference onset after at least this much silence is guarded, s.
    public static let onsetPauseSeconds = 0.2
    /// The guard begins this many frames before the echo of a new utterance is due at the found
    /// delay: the model's echo begins one frame before the direct path (the delay's fraction of a
    /// frame) and the found delay is within a frame of the true one. Before it the microphone holds
    /// what the tracked echo already expects (the previous utterance's tail) and the user.
    public static let guardLeadFrames = 2
    /// The delay is found when the correlation's peak is this many times its mean magnitude.
    public static let confidence = 3.0
    /// A found delay moves only to a lag whose normalised correlation (the running mean of
    /// Σ Δmic·Δref over the root of those of Σ Δmic² and Σ Δref²) is at least this: one that
    /// explains the microphone's changes. On 330 generated items the 7 moves to a wrong lag came at
    /// 0.06–0.26; the moves back to the echo's delay at 0.25–0.64 (under 0.3 only where they undid
    /// such a move). The first estimate is not held to it: a weak echo's right delay was first
    /// found at as little as 0.15 (and a wrong one, with a user talking from the start, at 0.21).
    public static let moveCorrelation = 0.3
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
    /// Frames of the tail's level it takes before the tail is used, the loudest of them until
    /// `learnSeconds` of frames give the median: a session's first words give few such pauses
    /// (five by 3 s of the dev agent), and until then the tail stood at the direct path's level —
    /// in a room whose echo dies away fast, over a user who talks in the echo's dips.
    static let tailEarlyFrames = 5

    /// Forgets the room: delay, gains and history start again.
    public mutating func reset() {
        for i in history.indices {
            history[i] = SIMD8(repeating: -140)
            micHistory[i] = SIMD8(repeating: -140)
            learnable[i] = false
        }
        for i in blockMax.indices {
            blockMax[i] = SIMD8(repeating: -140)
            decayedBlockMax[i] = SIMD8(repeating: -140)
        }
        for i in scores.indices { scores[i] = 0 }
        for i in referenceScores.indices { referenceScores[i] = 0 }
        for i in changeColumns.indices { changeColumns[i] = 0 }
        micChangePower = 0
        head = 0
        frames = 0
        previousMic = SIMD8(repeating: -100)
        scored = 0
        delay = nil
        delayStandsOut = false
        candidate = 0
        candidateUpdates = 0
        for b in 0..<Self.maxBands {
            envelopeGains[b].reset()
            settledGains[b].reset()
            trackedGains[b].reset()
        }
        forgetTail()
        decay = configuredDecay
        decayFit.reset()
        decayLearnt = 0
        decayOffFrames = 0
        windowLearnt = 0
        settledLearnt = 0
        trackedLearnt = 0
        relearning = false
        windowRetired = false
        directPathHeard = false
        for d in bounds.indices { bounds[d] = SIMD8(repeating: .infinity) }
        for d in arrivals.indices { arrivals[d] = 0 }
        arrivalBaseline = SIMD8(repeating: -140)
        arrivalReach = searchMax
        boundLearning = true
        boundStart = nil
        for b in 0..<Self.maxBands { micQuiet[b].reset() }
        activeFrames = 0
        resetLouderWatch()
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
            let tracked = laneMax(parts.direct, parts.tail)
            learnTracked(mic: micHistory[slot(age)], tracked: tracked, start: start, age: age)
        }
    }
}

extension VADEchoModel {
    /// Adds the current frame (the stream's frame `frames`) to its block's maxima: of the reference,
    /// and of g = reference + decay · frame (`decayedMax`).
    @inline(__always)
    mutating func writeBlock(_ r: SIMD8<Double>) {
        let k = (frames >> 3) & blockMask
        let g = r + decay * Double(frames)
        blockMax[k] = frames & 7 == 0 ? r : laneMax(blockMax[k], r)
        decayedBlockMax[k] = frames & 7 == 0 ? g : laneMax(decayedBlockMax[k], g)
    }

    /// `m` raised, lane by lane, to the maximum over the stream's frames u in `lo…hi` of
    /// g[u] − `less`, g[u] = reference[u] + decay · u: with `less` = decay · (frames − start), the
    /// reference less `decay` per frame of lag beyond `start` — the reverberant tail's maximum, from
    /// the blocks as `windowMax`. (decay · u grows by ~1.3 dB a frame: 480,000 dB after an hour,
    /// where a double still resolves 1e-10 dB.)
    @inline(__always)
    func decayedMax(_ lo: Int, _ hi: Int, into m: inout SIMD8<Double>, less: Double) {
        var best = SIMD8<Double>(repeating: -.infinity)
        var a = max(lo, 0)
        while a <= hi && a & 7 != 0 {
            best = laneMax(best, history[slot(frames - a)] + decay * Double(a))
            a += 1
        }
        while a + 7 <= hi {
            best = laneMax(best, decayedBlockMax[(a >> 3) & blockMask])
            a += 8
        }
        while a <= hi {
            best = laneMax(best, history[slot(frames - a)] + decay * Double(a))
            a += 1
        }
        m = laneMax(m, best - less)
    }

    /// `m` raised, lane by lane, to the reference's maximum over the stream's frames `lo…hi`
    /// (`hi` at most the current frame; those before the stream's start are left out): whole blocks
    /// from `blockMax`, the frames at either end one by one.
    /// (`mutating` though it only reads: see the type's note on its cost.)
    @inline(__always)
    mutating func windowMax(_ lo: Int, _ hi: Int, into m: inout SIMD8<Double>) {
        var a = max(lo, 0)
        while a <= hi && a & 7 != 0 {
            m = laneMax(m, history[slot(frames - a)])
            a += 1
        }
        while a + 7 <= hi {
            m = laneMax(m, blockMax[(a >> 3) & blockMask])
            a += 8
        }
        while a <= hi {
            m = laneMax(m, history[slot(frames - a)])
            a += 1
        }
    }
}

// The tracked gain's learning (live and in the replay), split from VADEchoModel.swift (the core's
// file-size rule).
extension VADEchoModel {
    /// The tracked model's gain learns from the frame `age` frames back (its microphone levels `m`,
    /// the reference it follows `tracked`) if its direct path (the lag `start` and the two after it)
    /// played and is not stopping (`plays`, when the caller has it; else `directPathPlays`).
    @inline(__always)
    mutating func learnTracked(mic m: SIMD8<Double>, tracked: SIMD8<Double>, start: Int, age: Int, plays: Bool? = nil) {
        guard plays ?? directPathPlays(start: start, age: age, tracked: tracked) else { return }
        var gains = SIMD8<Double>()
        for b in 0..<bandCount { gains[b] = trackedGains[b].value(or: worst) }
        let lowers = leakLowers(tracked, gains: gains)
        // (Through the buffer: written by index, the array was checked for a unique owner per band.)
        let count = bandCount
        let learnt = trackedLearnt >= learnFrames
        trackedGains.withUnsafeMutableBufferPointer { q in
            for b in 0..<count where tracked[b] > -120 && !lowers[b] {
                q[b].add(Self.limited(m[b] - tracked[b], q[b], learnt: learnt))
            }
        }
        trackedLearnt += 1
    }

    /// `v`, at most `learnStep` over the gain `q` once it has learnt.
    @inline(__always)
    static func limited(_ v: Double, _ q: RunningQuantile, learnt: Bool) -> Double {
        learnt ? min(v, q.value(or: v) + learnStep) : v
    }
}
