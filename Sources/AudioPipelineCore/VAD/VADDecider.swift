/// The per-frame tracker and decision logic, fed band energies. Separate from the band analysis so
/// `vad tune` computes the bands once per file and sweeps settings over them.
public struct VADDecider: Sendable {
    public struct Frame: Sendable, Hashable {
        /// Band-limited level of the frame (dBFS), its noise floor, the expected echo (−inf without a
        /// reference), the score (dB) and the decision.
        public var level: Double
        public var floor: Double
        public var echo: Double
        public var score: Double
        public var speech: Bool

        public init(level: Double, floor: Double, echo: Double, score: Double, speech: Bool) {
            self.level = level
            self.floor = floor
            self.echo = echo
            self.score = score
            self.speech = speech
        }
    }

    public let configuration: VADConfiguration
    public let frameSeconds: Double
    private var floors: [RunningQuantile]
    private var gains: [RunningQuantile]
    /// Per band, the 75th percentile of the values the gain's median learns from: with it, the
    /// echo model's error spread, which sets the band's echo margin (`margins`).
    private var spreads: [RunningQuantile]
    private var margins: SIMD4<Double>
    private var talker: RunningQuantile
    /// Median score of recent non-speech frames: the excess noise alone shows over its low-quantile
    /// floor (band-energy flicker). Subtracted, so thresholds are "above what the noise does".
    private var bias: RunningQuantile
    private var refHistory: [SIMD4<Double>]  // ring of reference band energies
    /// Ring (same slots): each reference frame's change from the previous one, per band, in dB
    /// (levels clipped to [−100, 0] dBFS, changes to ±20 dB): what the delay estimate correlates.
    private var refChanges: [SIMD4<Double>]
    private var refHead = 0, refFrames = 0
    private let delayMin: Int, delayMax: Int
    /// Echo-delay estimate: per delay (frames), the running mean of Σ_b Δmic_b · Δref_b(delay ago);
    /// its argmax is the delay. Updated over `delayFrames` playing frames, with weight `delayAlpha`.
    private var delayScores: [Double]
    private var delayFrames = 0
    private var previousMic = SIMD4<Double>(repeating: -100)
    private let delayAlpha: Double, delayWarmUp: Int
    /// The expected echo's decay per frame after the reference stops, dB (0: no delay tracking).
    private let echoDecay: Double
    /// Frames of score ≥ enter threshold needed to declare speech.
    public let confirmFrames: Int
    private let hangoverFrames: Int
    /// Frames after an onset during which speech ends at the first frame that fails the exit test
    /// on its own score (`transientMilliseconds`).
    private let transientFrames: Int
    private var run = 0, quiet = 0, age = 0, peak = 0.0
    private var recentScores = SIMD8<Double>()
    private var scoreCount = 0
    public private(set) var speaking = false

    public init(configuration c: VADConfiguration) throws(AudioPipelineError) {
        try c.validate()
        configuration = c
        frameSeconds = c.frameMilliseconds / 1000
        let frames = { (seconds: Double) in max(1, Int((seconds / (c.frameMilliseconds / 1000)).rounded())) }
        floors = (0..<VADBandAnalyzer.bandCount).map { _ in
            RunningQuantile(window: frames(c.floorWindowSeconds), quantile: c.floorQuantile)
        }
        gains = (0..<VADBandAnalyzer.bandCount).map { _ in
            RunningQuantile(window: frames(c.echoGainWindowSeconds), quantile: 0.5)
        }
        spreads = (0..<VADBandAnalyzer.bandCount).map { _ in
            RunningQuantile(window: frames(c.echoGainWindowSeconds), quantile: 0.75)
        }
        margins = SIMD4(repeating: c.echoMargin)
        talker = RunningQuantile(window: frames(c.talkerWindowSeconds), quantile: 0.95)
        bias = RunningQuantile(window: frames(c.floorWindowSeconds), quantile: 0.5)
        delayMin = Int((c.echoDelayMinMilliseconds / c.frameMilliseconds).rounded(.down))
        delayMax = max(delayMin, Int((c.echoDelayMaxMilliseconds / c.frameMilliseconds).rounded(.up)))
        refHistory = [SIMD4<Double>](repeating: SIMD4(repeating: -140), count: delayMax + 1)
        refChanges = [SIMD4<Double>](repeating: SIMD4(), count: delayMax + 1)
        delayScores = [Double](repeating: 0, count: delayMax + 1)
        delayAlpha = min(1, frameSeconds / c.echoDelaySmoothingSeconds)
        delayWarmUp = Int((2 * c.echoDelaySmoothingSeconds / frameSeconds).rounded())
        echoDecay = c.echoReverbMilliseconds > 0 ? 60 * c.frameMilliseconds / c.echoReverbMilliseconds : 0
        confirmFrames = c.confirmFrames
        hangoverFrames = Int((c.hangoverMilliseconds / c.frameMilliseconds).rounded())
        transientFrames = Int((c.transientMilliseconds / c.frameMilliseconds).rounded())
    }

    public mutating func reset() {
        for i in floors.indices { floors[i].reset(); gains[i].reset(); spreads[i].reset() }
        margins = SIMD4(repeating: configuration.echoMargin)
        talker.reset()
        bias.reset()
        for i in refHistory.indices { refHistory[i] = SIMD4(repeating: -140); refChanges[i] = SIMD4() }
        for i in delayScores.indices { delayScores[i] = 0 }
        delayFrames = 0; previousMic = SIMD4(repeating: -100)
        refHead = 0; refFrames = 0; run = 0; quiet = 0; age = 0; speaking = false
        recentScores = SIMD8(); scoreCount = 0
    }

    /// One frame: the mic's band powers (mean square, as `VADBandAnalyzer` gives them) and, with a
    /// far-end reference, the reference's.
    ///
    /// Cost: without a reference a frame takes six `log10` (four bands, the level and the floor) and
    /// no `exp10` — a noise floor is a histogram bin whose power comes from a table, and the excess
    /// over a floor alone is a difference of dB values. (The first version converted back and forth
    /// per band, about 20 transcendental calls, 0.4–0.5 µs of a 1.3 µs frame.)
    public mutating func process(mic p: SIMD4<Double>, reference rp: SIMD4<Double>? = nil) -> Frame {
        // The detail is a local nobody reads: the optimiser drops its stores (the inlined `decide`
        // is the whole cost, as before the detail existed).
        var unused = Detail()
        return decide(mic: p, reference: rp, detail: &unused)
    }

    /// As `process(mic:reference:)`, and what the decision was made of, in `detail` (per band: the
    /// level, floor, expected echo and excess; the tests that opened or held speech): for
    /// `vad detect --explain` and the tuning report's plots. The same decisions, a little slower.
    public mutating func process(
        mic p: SIMD4<Double>, reference rp: SIMD4<Double>? = nil, detail: inout Detail
    ) -> Frame {
        let frame = decide(mic: p, reference: rp, detail: &detail)
        detail.loudest = talker.value(or: frame.level)
        return frame
    }

    @inline(__always)
    private mutating func decide(mic p: SIMD4<Double>, reference rp: SIMD4<Double>?, detail: inout Detail) -> Frame {
        let c = configuration
        let m = SIMD4(db(p[0]), db(p[1]), db(p[2]), db(p[3]))
        let hasReference = rp != nil
        let echo = rp.map { expectedEcho(mic: m, reference: $0) } ?? SIMD4(repeating: -.infinity)
        var excess = SIMD4<Double>()
        var floorPower = 0.0, echoPower = 0.0
        for b in 0..<4 {
            // With a reference, the noise floor learns only from frames without echo in the band (else
            // a talkative agent would lift the floor to its echo level); before any, it is negligible.
            let f = floors[b].valueAndPower(or: hasReference ? -100 : m[b])
            if echo[b] > -.infinity {
                excess[b] = m[b] - db(f.power + power(echo[b] + margins[b]))
                echoPower += power(echo[b])
            } else {
                floors[b].add(m[b])
                excess[b] = m[b] - f.db
            }
            floorPower += f.power
            detail.floors[b] = f.db
        }
        let level = pointwiseMax(p, SIMD4(repeating: 1e-14)).sum()
        // Mean of the two largest band excesses.
        var first = -Double.infinity, second = -Double.infinity
        for b in 0..<4 {
            let v = excess[b]
            if v > first { second = first; first = v } else if v > second { second = v }
        }
        let score = (first + second) / 2
        // What the noise alone shows (median score of recent non-speech frames), for the exit test.
        let noiseScore = max(0, bias.value(or: 0))
        if !speaking { bias.add(score) }
        let averaged = Int(c.exitAverageFrames)
        recentScores[scoreCount % 8] = score
        scoreCount += 1
        var exitScore = 0.0
        let taken = min(averaged, scoreCount)
        for k in 0..<taken { exitScore += recentScores[(scoreCount - 1 - k) % 8] }
        exitScore = exitScore / Double(taken) - noiseScore
        let levelDB = db(level)
        let loud = levelDB >= c.absoluteThreshold
        talker.add(levelDB)
        let loudest = talker.value(or: levelDB)
        let dominant = c.talkerGate <= 0 || levelDB >= loudest - c.talkerGate
        // Starting needs more without a reference (`talkerOnsetGate`: the gate's hysteresis).
        let startGate = hasReference || c.talkerOnsetGate <= 0 ? c.talkerGate : min(c.talkerGate, c.talkerOnsetGate)
        let dominantToStart = c.talkerGate <= 0 || levelDB >= loudest - startGate
        detail.startGate = startGate
        (detail.bands, detail.echoes, detail.excess, detail.exitScore) = (m, echo, excess, exitScore)
        detail.echoMargins = margins
        detail.noiseScore = noiseScore
        (detail.loud, detail.dominant) = (loud, dominant)
        // A smaller excess held over the exit test's frames starts speech too (without a reference).
        let sustained =
            !hasReference && c.sustainedEnterThreshold > 0 && exitScore >= c.sustainedEnterThreshold
            && score - noiseScore >= c.sustainedEnterThreshold
        let startTest = (score >= c.enterThreshold || sustained) && loud && dominantToStart
        detail.sustainedStart = sustained && score < c.enterThreshold
        detail.enterTest = startTest
        detail.exitTest = exitScore >= c.exitThreshold && loud && dominant
        detail.burstOver = false
        if speaking {
            age += 1
            if exitScore >= c.exitThreshold && loud && dominant { quiet = 0 } else { quiet += 1 }
            peak = max(peak, score)
            let burstOver =
                age <= transientFrames && !(score - noiseScore >= c.exitThreshold && loud && dominant)
                && peak - score >= c.transientDrop
            detail.burstOver = burstOver
            if quiet > hangoverFrames || burstOver { speaking = false; quiet = 0; run = 0 }
        } else {
            if startTest { run += 1 } else { run = 0 }
            if run >= confirmFrames { speaking = true; quiet = 0; age = 0; peak = score }
        }
        return Frame(
            level: levelDB, floor: db(floorPower), echo: echoPower > 0 ? db(echoPower) : -.infinity, score: score,
            speech: speaking)
    }

    /// The echo expected in each band this frame (dB), from the reference's bands `rp` (power):
    /// the learnt gain over the reference in the delay window (from the estimated delay on, decaying
    /// by `echoDecay` per frame; the whole window, flat, before there is an estimate); learns the
    /// gain and the delay from `m`.
    @inline(__always)
    private mutating func expectedEcho(mic m: SIMD4<Double>, reference rp: SIMD4<Double>) -> SIMD4<Double> {
        let c = configuration
        var echo = SIMD4<Double>(repeating: -.infinity)
        let reference = SIMD4(db(rp[0]), db(rp[1]), db(rp[2]), db(rp[3]))
        // Store this frame's reference (and its change), then look over the delay window.
        let slots = delayMax + 1
        let lastSlot = refHead == 0 ? slots - 1 : refHead - 1
        refChanges[refHead] = Self.change(reference, from: refFrames > 0 ? refHistory[lastSlot] : reference)
        refHistory[refHead] = reference
        var maxR = SIMD4<Double>(repeating: -140)
        var quietest = Double.infinity  // the weakest frame of the window (its loudest band)
        for d in delayMin...delayMax where d <= refFrames {
            let r = refHistory[slot(d)]
            maxR = pointwiseMax(maxR, r)
            quietest = min(quietest, r.max())
        }
        // The echo gain learns only where the reference played through the whole delay window:
        // then its echo has surely arrived, whatever the path's delay. (Learning from the first
        // frames after the agent starts, before the echo reaches the mic, measured gains far too
        // low, and the echo's arrival then read as speech.) Nor at an offset, where the newest
        // reference frame is `offsetGap` below the window's loudest: the echo dies away while the
        // window still holds the word before, and a pause learnt that way put the gains 15–20 dB
        // too low (a false barge-in at the agent's next word).
        let playing =
            quietest > c.referenceActiveThreshold && quietest.isFinite
            && reference.max() >= maxR.max() - Self.offsetGap
        let x = echoDecay > 0 ? trackedReference(mic: m, playing: playing) : maxR
        refHead = refHead + 1 == slots ? 0 : refHead + 1
        refFrames += 1
        for b in 0..<4 where maxR[b] > -120 {
            if playing {
                gains[b].add(m[b] - x[b])
                spreads[b].add(m[b] - x[b])
            }
            let gain = gains[b].value(or: c.initialEchoGain)
            echo[b] = gain + x[b]
            // The margin: the echo model's error in the band (a robust σ from the upper quartile),
            // within [minimum, echoMargin]; the full margin until the gain has learnt.
            if !spreads[b].isEmpty {
                let sigma = 1.4826 * (spreads[b].value(or: gain) - gain)
                margins[b] = min(c.echoMargin, max(min(c.echoMarginMinimum, c.echoMargin), sigma))
            }
        }
        return echo
    }

    /// The ring slot of the reference frame `d` frames before the current one (`refHead`).
    @inline(__always)
    /// How far below the delay window's loudest frame the newest reference frame may be for the
    /// echo gain to learn (dB): lower means the reference is stopping (see `expectedEcho`).
    static let offsetGap = 15.0

    private func slot(_ d: Int) -> Int {
        let s = refHead - d
        return s < 0 ? s + delayMax + 1 : s
    }

    /// Change of clipped band levels (dB), clipped: loud onsets count, not silence's −140 dB.
    @inline(__always)
    private static func change(_ now: SIMD4<Double>, from before: SIMD4<Double>) -> SIMD4<Double> {
        let lo = SIMD4<Double>(repeating: -100), hi = SIMD4<Double>(repeating: 0)
        let d = now.clamped(lowerBound: lo, upperBound: hi) - before.clamped(lowerBound: lo, upperBound: hi)
        return d.clamped(lowerBound: SIMD4(repeating: -20), upperBound: SIMD4(repeating: 20))
    }

    /// Updates the delay estimate (while the reference plays) and returns the reference the echo
    /// follows: per band, the max over the window from one frame before the estimated delay (the
    /// delay's fraction of a frame) of the reference less `echoDecay` per frame beyond that start;
    /// before `delayWarmUp` playing frames, the flat max over the whole window.
    @inline(__always)
    private mutating func trackedReference(mic m: SIMD4<Double>, playing: Bool) -> SIMD4<Double> {
        let micChange = Self.change(m, from: previousMic)
        previousMic = m
        if playing && refFrames > delayMax {
            for d in delayMin...delayMax {
                let product = (micChange * refChanges[slot(d)]).sum()
                delayScores[d] += delayAlpha * (product - delayScores[d])
            }
            delayFrames += 1
        }
        var start = delayMin, decay = 0.0
        if delayFrames >= delayWarmUp {
            var peak = 0.0
            for d in delayMin...delayMax { peak = max(peak, delayScores[d]) }
            // The direct path: the first delay at half the peak (the reverberant tail drags the
            // peak itself later).
            var first = delayMin
            while first < delayMax && delayScores[first] < peak / 2 { first += 1 }
            if peak > 0 { (start, decay) = (max(delayMin, first - 1), echoDecay) }
        }
        var x = SIMD4<Double>(repeating: -140)
        for d in start...delayMax where d <= refFrames {
            x = pointwiseMax(x, refHistory[slot(d)] - decay * Double(d - start))
        }
        return x
    }
}
