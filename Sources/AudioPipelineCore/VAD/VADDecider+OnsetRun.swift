/// Two rules of the onset check with a reference, for the short noises over the agent's echo that
/// hold their level two or three frames as a word's start does (split from VADDecider+Onset.swift,
/// the core's file-size rule):
///
/// - **A sound only above 1 kHz holds one frame more** (`voiceUnder1k`): a knock on a desk or a
///   keyboard click has nothing under 1 kHz; a voice stands out there from its first frames.
/// - **A frame fallen under its run opens no speech** (`runFallUnderHighest`): a thump's second
///   frame lies far under its first in power over noise ⊕ echo and in level, though its score held.
extension VADDecider {
    /// A run begins, or starts again (`restart`): whether it stands out only above 1 kHz (a restart
    /// only if the run before did too), and its highest power over noise ⊕ echo and level from this
    /// frame (`runFallUnderHighest`).
    @inline(__always)
    mutating func startOnsetRun(reading: OnsetReading, restart: Bool) {
        onset.highOnly = reading.onlyAbove1k && (!restart || onset.highOnly)
        onset.overPowerHighest = reading.overPower
        onset.levelPowerHighest = reading.levelPower
        onset.fallWaited = false
    }

    /// Whether a frame that would open speech has fallen under its run, with a reference: its power
    /// over noise ⊕ echo and its level both `runFallUnderHighest` or more under the run's highest
    /// (then it opens no speech, and the run waits: `fallWaited`).
    @inline(__always)
    mutating func noteFall(_ reading: OnsetReading) -> Bool {
        let ratio = Self.runFallRatio
        let fell =
            reading.withReference && reading.overPower < onset.overPowerHighest * ratio
            && reading.levelPower < onset.levelPowerHighest * ratio
        if fell { onset.fallWaited = true }
        return fell
    }

    /// With a reference, how far under its run's highest a frame's power over noise ⊕ echo, and its
    /// level, must both lie for it to open no speech, dB. A thump (80–1200 Hz, 15–40 ms) over the
    /// echo fell 9–12 dB from its first frame to its second and still opened speech there: its energy
    /// left in the band under 150 Hz, where the steep filter rings on and the echo expected is
    /// 24–42 dB down, so its score held within `onset_drop_db`. A voice's frames rise to their
    /// highest; a voice under a loud echo whose excess falls as the echo returns keeps its level (the
    /// level's test: without it, at 4 dB, two cells of the talking grid with the sample agent, echo
    /// −3 and 0 dB, went from heard 770 ms late to missed). Thumps over the sample agent's echo in 20
    /// random rooms, rooms with a false barge-in: 9 / 6 / 4 / 8 → 7 / 5 / 4 / 8 on the draws that
    /// chose it (6101–6701), 95 → 72 of 180 on nine others (6901–8501; 9 → 1 and 15 → 6 on two);
    /// knocks, clinks, barge-in items, a user talking over the agent in 60 rooms and both echo grids
    /// unchanged (docs/design/vad-experiments.md, "A thump's fall over the echo", 2026-12-03). At
    /// 3 dB a dev item's onset waited 10 ms more; at 6 dB without the level's test, fewer thumps.
    public static let runFallUnderHighest = 4.0
    static let runFallRatio = power(-runFallUnderHighest)

    /// With a reference, how far a band under 1 kHz must stand over noise ⊕ echo for a frame to
    /// hold a voice's low harmonics, dB: a run of frames where none does holds one frame more
    /// (`OnsetReading.onlyAbove1k`). A knock on a desk or a keyboard click is noise above 500 Hz to
    /// 2 kHz that lasts 20–60 ms: over the echo it held two frames and opened speech before it had
    /// fallen. A voice stands out under 1 kHz from its first frames; a word that starts with a hiss
    /// (/s/, /f/, /t/) waits a frame more, until its vowel or its third frame. Knocks over the sample
    /// agent's echo in 20 random rooms (`session simulate --rooms`), rooms with a false barge-in:
    /// 2 / 4 / 7 / 8 → 1 / 1 / 2 / 1 on the draws that chose it (seeds 6101–6701), 3 / 6 / 5 → 0 / 1 /
    /// 1 on draws after the choice (8101–8501); keyboard clicks 1 → 0 there; clinks and thumps
    /// unchanged. Barge-in latency p50 +0–1 ms on the barge-in items, p90 unchanged; the echo grids
    /// unchanged (docs/design/vad-experiments.md, "A knock's high bands over the echo", 2026-12-03).
    /// At `enter_db` (10 dB) the knocks fell to 1 / 0 / 1 / 1, but a user under the echo first heard
    /// in a frame whose band under 150 Hz stood 7.6 dB over it waited 530 ms more; 5–7 dB read alike.
    public static let voiceUnder1k = 6.0

    /// Whether a band under 1 kHz (the first four of eight) stands `voiceUnder1k` over noise ⊕ echo.
    @inline(__always)
    static func voicedUnder1k(excess: SIMD8<Double>) -> Bool {
        excess[0] >= voiceUnder1k || excess[1] >= voiceUnder1k || excess[2] >= voiceUnder1k
            || excess[3] >= voiceUnder1k
    }
}

// The lead-in read (`OnsetReading.leadInScore`; split from VADDecider+Onset.swift, the core's file-size
// rule, beside `leadInRiseMax` there).
extension VADDecider {
    /// The frame before as a lead-in of this one (of `score`): the mean of its excesses in this
    /// frame's two largest bands, at most its own score; none (−inf) more than `leadInRiseMax` under.
    /// (The largest so far kept beside its band: read back by the band's index, each step stored the
    /// vector and waited on the load, a chain of sixteen through memory — 2 % of a frame.)
    @inline(__always)
    func leadInScore(excess: SIMD8<Double>, count: Int, score: Double) -> Double {
        var first = 0
        var firstExcess = excess[0]
        for b in 1..<count where excess[b] > firstExcess {
            first = b
            firstExcess = excess[b]
        }
        var second = first == 0 ? 1 : 0
        var secondExcess = excess[second]
        for b in 0..<count where b != first && excess[b] > secondExcess {
            second = b
            secondExcess = excess[b]
        }
        let lead = min(previousScore, (onset.previousExcess[first] + onset.previousExcess[second]) / 2)
        return score - lead > Self.leadInRiseMax ? -.infinity : lead
    }
}
