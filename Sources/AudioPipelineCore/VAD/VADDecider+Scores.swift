/// The decider's per-frame figures, and the exit test's score with the noise's own score it
/// subtracts: split from VADDecider.swift (the core's file-size rule).
extension VADDecider {
    /// How long a stream's start is a warm-up (`framesSeen`), seconds.
    public static let warmUpSeconds = 0.5
    /// What starting speech needs over `enter_db` in the warm-up, dB.
    public static let warmUpMargin = 3.0
    /// The stream's first frames, which the noise floors do not learn from when there is a
    /// reference: a capture's first frame may hold its start (a resampler's filter from zeros, a
    /// device's fade-in), and it is one more of the few frames an early floor is the least of
    /// (`floorFramesToTrust`). In a session simulated at 48 kHz, the first 10 ms frame of a room's
    /// steady −57 dBFS noise read 16 dB under it in the band under 150 Hz and 9 dB in the next
    /// (`vad detect` on the session's microphone; the session's own scores the same: 0, then 13.3
    /// and 11.4 dB); learnt, the next frames stood 9–16 dB over it: speech 30 ms into the session,
    /// and a barge-in on the agent's first words (a fresh room of seed 10801, with and without a
    /// user; with `floorFramesToTrust` alone, still with the user). Without a reference the floors
    /// learn it still: there the early frames' excess over it raises the noise's own score (`bias`),
    /// which the dev items' noisiest conditions gained from (left out there too, F1 0.925 → 0.923
    /// and false alarm 5.5 → 6.5 %; docs/design/vad-experiments.md, "The floors' first frames").
    static let settlingFrames = 1

    /// Without a reference, the scores of the frames of a run that has not (yet) become speech: they
    /// go into the noise's own score (`bias`) only once the run ends without speech, and are dropped
    /// when it becomes speech. A run's frames are the onset's whenever it does: taken into the median
    /// at once, a word's first frames lifted it. On `samples/mic-16k-pcm16-mono.wav`, whose speech
    /// starts 60 ms in, three onset frames sat among the eight non-speech scores the median held;
    /// one frame more — the wait of the decay test without a reference — made it read 19.9 dB, and
    /// the exit test chopped the utterance into nine segments (docs/design/vad-experiments.md, "A
    /// knock's decay without a reference", 2026-12-02). At most eight are kept: a longer run's oldest
    /// go in at once.
    struct PendingScores: Sendable {
        var scores = SIMD8<Double>()
        var count = 0
    }

    /// The exit test's score — the mean score of the last `exitAverageFrames` frames less what the
    /// noise alone shows (the median score of recent non-speech frames alike: where no echo is
    /// expected, `echoFree`, or where one is) — and that noise score. Without a reference a frame out
    /// of speech waits in `pending` (`settlePendingScores`).
    @inline(__always)
    mutating func exitTestScore(
        _ score: Double, echoFree: Bool, hasReference: Bool
    ) -> (exitScore: Double, noiseScore: Double) {
        let noiseScore: Double
        if echoFree {
            noiseScore = max(0, bias.value(or: 0))
            if !speaking && hasReference { bias.add(score) }
            if !speaking && !hasReference { holdPending(score) }
        } else {
            noiseScore = max(0, echoBias.value(or: 0))
            if !speaking { echoBias.add(score) }
        }
        recentScores[scoreCount % 8] = score
        scoreCount += 1
        var sum = 0.0
        let taken = min(Int(configuration.exitAverageFrames), scoreCount)
        for k in 0..<taken { sum += recentScores[(scoreCount - 1 - k) % 8] }
        return (sum / Double(taken) - noiseScore, noiseScore)
    }

    /// Keeps a non-speech frame's `score` pending; with eight pending, the oldest goes into `bias`.
    @inline(__always)
    mutating func holdPending(_ score: Double) {
        if pending.count == 8 {
            bias.add(pending.scores[0])
            for k in 0..<7 { pending.scores[k] = pending.scores[k + 1] }
            pending.count = 7
        }
        pending.scores[pending.count] = score
        pending.count += 1
    }

    /// After the frame's decision, without a reference: speech drops the pending scores (they were
    /// its onset's), a frame out of any run adds them to `bias` (they were the noise's); within a
    /// run they wait.
    @inline(__always)
    mutating func settlePendingScores() {
        if speaking {
            pending.count = 0
        } else if run == 0 {
            for k in 0..<pending.count { bias.add(pending.scores[k]) }
            pending.count = 0
        }
    }

    /// The frame's score: the mean of its two largest band excesses (the bands where speech stands
    /// out, robust to one noisy band).
    @inline(__always)
    static func meanOfTwoLargest(_ excess: SIMD8<Double>, count: Int) -> Double {
        var first = -Double.infinity
        var second = -Double.infinity
        for b in 0..<count {
            let v = excess[b]
            if v > first {
                second = first
                first = v
            } else if v > second {
                second = v
            }
        }
        return (first + second) / 2
    }

    /// The band levels of powers `p`, dB: eight bands (the reference's steep ones) by `fastDB`,
    /// four as they always were; lanes past `count` at −140.
    @inline(__always)
    static func bandLevels(_ p: SIMD8<Double>, count: Int) -> SIMD8<Double> {
        if count == 8 { return fastDB(p) }
        var m = SIMD8<Double>(repeating: -140)
        for b in 0..<count { m[b] = db(p[b]) }
        return m
    }

    /// The frame's level (of band powers `p`), noise floor and expected echo (−∞ for none), dB, in
    /// lanes 0–2. (Four bands summed as four: the same bits as before there were eight.) With eight
    /// bands (a reference) in one `fastDB`, as the bands' levels (three libm `log10` calls were 2 %
    /// of the frame; within 1e-10 dB of them); four as they always were.
    @inline(__always)
    static func frameLevels(_ p: SIMD8<Double>, count: Int, floorPower: Double, echoPower: Double) -> SIMD8<Double> {
        let levelPower =
            count == 4
            ? pointwiseMax(p.lowHalf, SIMD4(repeating: 1e-14)).sum()
            : laneMax(SIMD8(repeating: 1e-14), p).sum()
        var levels =
            count == 8
            ? fastDB(SIMD8(levelPower, floorPower, echoPower, 1, 1, 1, 1, 1))
            : SIMD8(db(levelPower), db(floorPower), echoPower > 0 ? db(echoPower) : 0, 0, 0, 0, 0, 0)
        if !(echoPower > 0) { levels[2] = -.infinity }
        return levels
    }

    /// Late: the quarters' power over the noise floor (above 300 Hz, `floor`) jumped by `jumpRatio`
    /// or more into the third or the last quarter (a quarter at the floor counts as a tenth of it)
    /// and peaks there: the sound began in the frame's second half.
    @inline(__always)
    static func lateOnset(_ quarters: SIMD4<Float>, floor: Double, jumpRatio: Float) -> Bool {
        let q = quarters - Float(floor)
        let least = Float(0.1 * floor)
        return max(q[2], q[3]) >= largestQuarter(q)
            && (q[2] > jumpRatio * max(q[1], least) || q[3] > jumpRatio * max(q[2], least))
    }

    /// How far over the noise's own score a frame must rise to count as an onset's lead-in, dB, at
    /// least: over the exit threshold alone (1.5 dB), a frame of steady noise that happened to
    /// fluctuate up became the lead-in of a click in the next frame, which then opened speech (2 of
    /// 200 noise draws in a test; false triggers on the click items 1.09 and 0.82 per minute). At
    /// 3 dB: none of 200, 0.00 and 0.27 per minute, and on the dev items F1, fresh-onset latency p50
    /// and p90 unchanged (docs/design/vad-experiments.md).
    static let leadInMinimum = 3.0
}
