import RealModule

/// The per-frame tracker and decision logic, fed band energies. Separate from the band analysis so
/// `vad tune` computes the bands once per file and sweeps settings over them.
public struct VADDecider: Sendable {
    /// One frame's decision and what it was made of.
    public struct Frame: Sendable, Hashable {
        /// Band-limited level of the frame (dBFS), its noise floor, the expected echo (−inf without a
        /// reference), the score (dB) and the decision.
        public var level: Double
        /// The frame's noise floor (dBFS).
        public var floor: Double
        /// The expected echo (dBFS; −inf without a reference).
        public var echo: Double
        /// The score: excess over noise floor and expected echo (dB).
        public var score: Double
        /// Whether the frame is speech.
        public var speech: Bool

        /// A decision with the given figures.
        public init(level: Double, floor: Double, echo: Double, score: Double, speech: Bool) {
            self.level = level
            self.floor = floor
            self.echo = echo
            self.score = score
            self.speech = speech
        }
    }

    /// The parameters this decider was made with.
    public let configuration: VADConfiguration
    /// Length of one frame, s.
    public let frameSeconds: Double
    var floors: [RunningQuantile]
    /// The bands whose floors have learnt from a frame where no echo was expected (bit b: band b).
    var echoFreeFloors: UInt8 = 0
    /// Per band (bit b), whether its floor may still hold fewer than `floorFramesToTrust` frames
    /// (cleared once it is seen to hold them; a floor only loses frames in `reset()`).
    var youngFloors: UInt8 = 0xFF
    /// The echo of the far-end reference expected per band (used only with a reference).
    private var echoModel: VADEchoModel
    private var talker: RunningQuantile
    /// Median score of recent non-speech frames: the excess noise alone shows over its low-quantile
    /// floor (band-energy flicker). Subtracted, so thresholds are "above what the noise does". With a
    /// reference, of the frames where no echo is expected; `echoBias` is the same over the frames
    /// where one is (scored against the echo and its margin, they score lower than the noise does
    /// alone: one median over both left the noise's score at 0, and speech then held on noise alone
    /// in the agent's pauses — its next words were taken for a barge-in).
    var bias: RunningQuantile
    var echoBias: RunningQuantile
    /// Without a reference, the scores of the current run's frames, kept out of `bias` until the run
    /// ends without speech (`VADDecider+Scores.swift`).
    var pending = PendingScores()
    /// Frames of score ≥ enter threshold needed to declare speech.
    public let confirmFrames: Int
    /// Frames a run must hold before speech is declared (`VADConfiguration.onsetFrames`).
    private let holdFrames: Int
    /// The quarter-to-quarter rise (power ratio) that makes a run's first frame a late onset.
    private let jumpRatio: Float
    private let hangoverFrames: Int
    /// Frames after an onset during which speech ends at the first frame that fails the exit test
    /// on its own score (`transientMilliseconds`).
    private let transientFrames: Int
    var run = 0
    private var quiet = 0
    /// Frames since speech was declared (while speaking).
    var age = 0
    private var peak = 0.0
    /// The steady-noise check (`VADDecider+Steady.swift`): per band, the frame power smoothed over
    /// `steadySmoothing` (40 ms), and its lowest and highest since the speech's first frames.
    var steadyPower = SIMD8<Double>()
    var steadyLow = SIMD8<Double>()
    var steadyHigh = SIMD8<Double>()
    /// The check's constants in frames: when it applies (`steadyNoiseMilliseconds`; 0: never), when
    /// the spread starts being tracked; the smoothing's weight of a new frame; `steadySpread` as a
    /// power ratio.
    let steadyFrames: Int
    let steadySettleFrames: Int
    let steadyAlpha: Double
    let steadyRatio: Double
    /// Frames of the stream so far, counted up to `warmUpFrames`: until then the noise floors hold
    /// too few frames to be trusted (a low quantile of a few noisy frames sits 2–5 dB under where it
    /// settles), and starting speech needs `warmUpMargin` more.
    private var framesSeen = 0
    private let warmUpFrames: Int
    /// The current run's highest score, and whether its first frame was a late, abrupt onset (one
    /// more frame to hold).
    var runPeak = 0.0
    private var lateOnset = false
    private var leadIn = false
    /// The current run reached its frames on a frame that decayed through itself
    /// (`OnsetReading.decaying`) and waited for one more.
    private var decayWaited = false
    /// Without a reference: the run's fall since its highest (`VADDecider+Onset.swift`).
    var decline = RunDecline()
    /// With a reference: what the onset check reads in the bands (`VADDecider+Onset.swift`), and
    /// the level of the bands the run began in (`VADDecider+EchoRing.swift`).
    var onset = OnsetBands()
    var echoRing = EchoRing()
    /// The frame before: its score, and whether its energy came abruptly in its last quarter.
    var previousScore = -Double.infinity
    private var previousLate = false
    var recentScores = SIMD8<Double>()
    var scoreCount = 0
    /// Whether the last frame decided was speech.
    public private(set) var speaking = false
    /// With a reference: what the echo model expected in the last frame (its delay, gains, basis).
    public private(set) var echoEstimate: VADEchoModel.Estimate?
    /// With a reference, per band: the echo heard so far, ringing on (`ringDecay` dB a frame; see
    /// `VADDecider+Echo.swift`), and what the last frame adds to it if it turns out to be echo.
    var heard = SIMD8<Double>(repeating: -140)
    var heardCandidate = SIMD8<Double>(repeating: -140)
    let ringDecay: Double

    /// A decider with fresh state; all state allocated here. `sampleRate`: the rate of the band
    /// analysis that feeds it (with a reference, the steep bands' leakage into each other depends on
    /// it: `VADEchoModel`).
    /// - Throws: `invalidConfiguration` for a configuration out of range (`VADConfiguration.validate()`).
    public init(configuration c: VADConfiguration, sampleRate: Int = 16_000) throws(AudioPipelineError) {
        try c.validate()
        configuration = c
        frameSeconds = c.frameMilliseconds / 1000
        let frames = { (seconds: Double) in max(1, Int((seconds / (c.frameMilliseconds / 1000)).rounded())) }
        floors = (0..<VADEchoModel.maxBands).map { _ in
            RunningQuantile(window: frames(c.floorWindowSeconds), quantile: c.floorQuantile, withPower: true)
        }
        echoModel = VADEchoModel(configuration: c, sampleRate: sampleRate)
        talker = RunningQuantile(window: frames(c.talkerWindowSeconds), quantile: 0.95)
        bias = RunningQuantile(window: frames(c.floorWindowSeconds), quantile: 0.5)
        echoBias = RunningQuantile(window: frames(c.floorWindowSeconds), quantile: 0.5)
        confirmFrames = c.confirmFrames
        holdFrames = c.onsetFrames
        jumpRatio = c.onsetJump > 0 ? Float(power(c.onsetJump)) : .infinity
        hangoverFrames = Int((c.hangoverMilliseconds / c.frameMilliseconds).rounded())
        transientFrames = Int((c.transientMilliseconds / c.frameMilliseconds).rounded())
        warmUpFrames = frames(Self.warmUpSeconds)
        ringDecay = 60 * c.frameMilliseconds / Self.ringMilliseconds
        steadyFrames = Int((c.steadyNoiseMilliseconds / c.frameMilliseconds).rounded(.up))
        steadySettleFrames = Int((Self.steadySettle / c.frameMilliseconds).rounded(.up))
        steadyAlpha = 1 - Double.exp(-c.frameMilliseconds / Self.steadySmoothing)
        steadyRatio = power(Self.steadySpread)
    }

    /// Forgets the stream: floors, echo model, gates and decision state start again.
    public mutating func reset() {
        for i in floors.indices { floors[i].reset() }
        echoFreeFloors = 0
        youngFloors = 0xFF
        echoModel.reset()
        echoEstimate = nil
        talker.reset()
        bias.reset()
        pending = PendingScores()
        echoBias.reset()
        run = 0
        quiet = 0
        age = 0
        framesSeen = 0
        runPeak = 0
        lateOnset = false
        leadIn = false
        decayWaited = false
        decline = RunDecline()
        onset = OnsetBands()
        echoRing = EchoRing()
        previousScore = -.infinity
        previousLate = false
        speaking = false
        recentScores = SIMD8()
        scoreCount = 0
        heard = SIMD8(repeating: -140)
        heardCandidate = heard
        steadyPower = SIMD8()
        steadyLow = SIMD8()
        steadyHigh = SIMD8()
    }

    /// One frame: the mic's band analysis (band powers, mean square, and the quarters' energies, as
    /// `VADBandAnalyzer` or `VADBandPairAnalyzer` gives them) and, with a far-end reference, the
    /// reference's band powers, as many bands (a stream's frames keep one layout: the floors are
    /// learnt per band).
    ///
    /// Cost: without a reference a frame takes six `log10` (four bands, the level and the floor) and
    /// no `exp10` — a noise floor is a histogram bin whose power comes from a table, and the excess
    /// over a floor alone is a difference of dB values. (The first version converted back and forth
    /// per band, about 20 transcendental calls, 0.4–0.5 µs of a 1.3 µs frame.) With a reference and
    /// eight bands, the levels and the expected echo's powers go through `fastDB` and `fastPower`
    /// (a series on the bits, within 1e-9 dB) instead of libm.
    public mutating func process(mic frame: VADBandFrame, reference rp: SIMD8<Double>? = nil) -> Frame {
        // The detail is a local nobody reads: the optimiser drops its stores (the inlined `decide`
        // is the whole cost, as before the detail existed).
        var unused = Detail()
        return decide(mic: frame, reference: rp, ring: { frame.ring }, detail: &unused)
    }

    /// As `process(mic:reference:)`, and what the decision was made of, in `detail` (per band: the
    /// level, floor, expected echo and excess; the tests that opened or held speech; the echo
    /// model's delay and gains): for `vad detect --explain` and the tuning report's plots. The same
    /// decisions, a little slower.
    public mutating func process(
        mic frame: VADBandFrame, reference rp: SIMD8<Double>? = nil, detail: inout Detail
    ) -> Frame {
        let decided = decide(mic: frame, reference: rp, ring: { frame.ring }, detail: &detail)
        detail.loudest = talker.value(or: decided.level)
        return decided
    }

    /// One frame (`ring`: its correlations, summed where read).
    @inline(__always)
    mutating func decide(
        mic frame: VADBandFrame, reference rp: SIMD8<Double>?, ring: () -> VADRingCorrelations, detail: inout Detail
    ) -> Frame {
        let c = configuration
        let p = frame.bands
        let count = frame.bandCount
        let m = Self.bandLevels(p, count: count)
        let hasReference = rp != nil
        var explained = false
        if let rp {
            // What stood out over the expected echo in the frame before (an onset's lead-in, or a
            // run being counted) may be the user: the echo model does not learn its gains from it.
            let stoodOut = previousScore - max(0, echoBias.value(or: 0)) >= Self.leadInMinimum
            explained = !stoodOut && run == 0 && !speaking
            echoModel.bandCount = count
            // (Into the stored estimate, read once below: returned, it went three times by `memcpy`.)
            if case .none = echoEstimate { echoEstimate = VADEchoModel.Estimate() }
            echoModel.update(
                mic: m, reference: rp, nearEnd: speaking, unexplained: stoodOut || run > 0, into: &echoEstimate!)
        }
        let expected = hasReference ? echoEstimate! : VADEchoModel.Estimate()
        let bands = excess(
            m, count: count, above300: frame.firstBandAbove300, expected: expected, hasReference: hasReference,
            lastWasEcho: explained, learnFloors: framesSeen >= Self.settlingFrames, detail: &detail)
        let score = Self.meanOfTwoLargest(bands.excess, count: count)
        let echoFree = !hasReference || largestLane(expected.echo) == -.infinity
        let (exitScore, noiseScore) = exitTestScore(score, echoFree: echoFree, hasReference: hasReference)
        let levels = Self.frameLevels(p, count: count, floorPower: bands.floorPower, echoPower: bands.echoPower)
        let levelDB = levels[0]
        let loud = levelDB >= c.absoluteThreshold
        talker.add(levelDB)
        let loudest = talker.value(or: levelDB)
        let dominant = c.talkerGate <= 0 || levelDB >= loudest - c.talkerGate
        let startGate = Self.startGate(c, hasReference: hasReference, score: score)
        let dominantToStart = c.talkerGate <= 0 || levelDB >= loudest - startGate
        // A smaller excess held over the exit test's frames starts speech too (without a reference).
        let sustained =
            !hasReference && c.sustainedEnterThreshold > 0 && exitScore >= c.sustainedEnterThreshold
            && score - noiseScore >= c.sustainedEnterThreshold
        let startGates = loud && dominantToStart && !expected.onsetGuard
        let warmingUp = framesSeen < warmUpFrames
        if warmingUp { framesSeen += 1 }
        let startTest = (score >= c.enterThreshold + (warmingUp ? Self.warmUpMargin : 0) || sustained) && startGates
        let holdTest = exitScore >= c.exitThreshold && loud && dominant
        detail.startGate = startGate
        detail.bandCount = count
        detail.bands = m
        detail.excess = bands.excess
        detail.exitScore = exitScore
        detail.record(echo: expected, hasReference: hasReference)
        detail.noiseScore = noiseScore
        detail.loud = loud
        detail.dominant = dominant
        detail.sustainedStart = sustained && score < c.enterThreshold
        detail.enterTest = startTest
        detail.exitTest = holdTest
        let late = Self.lateOnset(frame.quarters, floor: bands.floorsAbove300, jumpRatio: jumpRatio)
        let steady = steadyNoise(powers: p, excess: bands.excess, count: count)
        detail.steadyNoise = steady
        // With a reference, the onset check reads the bands, not the score alone.
        let reading = onsetReading(
            score: score, powers: p, excess: bands.excess, count: count, above300: frame.firstBandAbove300,
            hasReference: hasReference, quarters: frame.quarters,
            quietAbove300: bands.floorsAbove300 + bands.echoAbove300, jumpRatio: jumpRatio,
            floorPowers: bands.floorPowers)
        advance(
            score: score, noiseScore: noiseScore, startTest: startTest, startGates: startGates, holdTest: holdTest,
            ownHold: score - noiseScore >= c.exitThreshold && loud && dominant, late: late, steady: steady,
            reading: reading, ring: ring, detail: &detail)
        if !hasReference { settlePendingScores() }
        if hasReference && run > 0 && runPeak == score {
            noteOnsetBands(powers: p, excess: bands.excess, count: count, enter: c.enterThreshold)
        }
        return Frame(
            level: levelDB, floor: levels[1], echo: levels[2], score: score, speech: speaking)
    }

    /// The decision: speech holds while the hold test passes, plus the hangover (or ends at once as
    /// a transient); it starts after a run has held `holdFrames` (one more after a late start; a
    /// rising frame before it counts as its lead-in): a first frame passing the start test, then
    /// frames within `onsetDrop` of the run's highest (below the enter threshold too: a voice under
    /// a louder echo shows in the echo's dips) — a lower one that passes the start test starts the
    /// run again, one that does not ends it.
    @inline(__always)
    private mutating func advance(
        score: Double, noiseScore: Double, startTest: Bool, startGates: Bool, holdTest: Bool, ownHold: Bool,
        late: Bool, steady: Bool, reading: OnsetReading, ring: () -> VADRingCorrelations, detail: inout Detail
    ) {
        let c = configuration
        defer {
            previousScore = score
            previousLate = late
        }
        detail.burstOver = false
        detail.onsetRestart = false
        if speaking {
            age += 1
            if holdTest { quiet = 0 } else { quiet += 1 }
            peak = max(peak, score)
            let burstOver = age <= transientFrames && !ownHold && peak - score >= c.transientDrop
            detail.burstOver = burstOver
            if quiet > hangoverFrames || burstOver || steady {
                speaking = false
                quiet = 0
                run = 0
            }
        } else if run > 0 && c.onsetDrop > 0 && startGates && (score >= runPeak - c.onsetDrop || reading.bandsHeld) {
            // Within `onsetDrop` of the run's highest, even below the enter threshold: a voice
            // under a louder echo shows in the echo's dips, one frame over it and the next just under
            // (with a reference, or its bands' level held while the echo came back: `bandsHeld`).
            continueRun(score: score, reading: reading)
        } else if !startTest {
            run = 0
        } else if run == 0 || (c.onsetDrop > 0 && score < runPeak - c.onsetDrop) {
            // A frame before the run that rose over the exit threshold (and `leadInMinimum`), not
            // abruptly at its end, is the onset's own lead-in and counts (a click has none: its
            // attack is instantaneous) — unless this frame's own sound began late in it.
            let leadInMinimum = max(c.exitThreshold, Self.leadInMinimum)
            leadIn =
                run == 0 && c.onsetDrop > 0 && reading.leadInScore - noiseScore >= leadInMinimum
                && previousScore < score && !previousLate && !late
            detail.onsetRestart = run > 0
            // (With a reference, a run that began with a click's attack or only above 1 kHz, or
            // starts again from such a run, holds one frame more.)
            onset.attack = reading.attack || (run > 0 && onset.attack)
            startOnsetRun(reading: reading, restart: run > 0)
            startDecline(score: score, restart: run > 0)
            if reading.withReference { startEchoRing(reading: reading, restart: run > 0) }
            run = leadIn ? 2 : 1
            runPeak = score
            lateOnset = late
            decayWaited = false
            onset.ringWaited = false
        } else {
            continueRun(score: score, reading: reading)
        }
        detail.lateOnset = !speaking && run > 0 && lateOnset
        detail.runFrames = run
        detail.leadIn = run > 0 && leadIn
        let held = !speaking && run >= holdFrames + (lateOnset ? 1 : 0) + (onset.attack || onset.highOnly ? 1 : 0)
        // (A frame that decayed through itself opens no speech: a click's; nor one of a run that has
        // only fallen since its highest: a clink's ring — with a reference, in its bands' level.)
        let declining =
            c.onsetDrop > 0
            && (reading.withReference
                ? echoRingDeclines(excess: reading.excess, above300: reading.above300) : declines(score: score))
        if held && reading.decaying { decayWaited = true }
        let ringing = held && Self.rings(reading, ring)
        if ringing { onset.ringWaited = true }
        if held && declining { decline.waited = true }
        detail.decayWaited = !speaking && run > 0 && decayWaited
        detail.ringWaited = !speaking && run > 0 && onset.ringWaited
        detail.declineWaited = !speaking && run > 0 && decline.waited
        let fallen = held && noteFall(reading)
        onset.noteWaits(in: &detail, running: !speaking && run > 0)
        if held && !reading.decaying && !declining && !ringing && !fallen {
            speaking = true
            quiet = 0
            age = 0
            peak = score
        }
    }
}
