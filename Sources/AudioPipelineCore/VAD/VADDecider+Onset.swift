/// The onset check's rules that read more than the score — most of them with a far-end reference,
/// five without one — and the talker gate with a reference: split from VADDecider.swift (the
/// core's file-size rule); part of the per-frame path `process` describes.
///
/// With a reference the score is the excess over the expected echo, and that moves with the echo
/// as much as with what is in the room. Three rules of the onset check read it as if it moved with
/// the sound alone; with a reference they read the bands instead
/// (docs/design/vad-experiments.md, "Onsets read in their bands", 2026-12-02), a fourth holds a
/// click's attack one frame more, and a fifth reads the frame's quarters over the echo (without a
/// reference too, over the noise floor):
///
/// - **A drop the echo explains is not a click's.** A run holds a frame within `onsetDrop` of its
///   highest; a click falls 5–30 dB by the next frame. A user under a louder echo shows in the echo's
///   dips, and when the echo comes back his score falls though his voice did not: in the talking
///   grid (echo −3 dB, 300 ms) the user's first word stood 24 dB over the expected echo for 30 ms
///   and fell 5.7 dB with the echo's return, his own level within 1 dB; the run restarted, ended,
///   and he was heard 638 ms late. So a frame that still passes `enter_db` also holds the run when
///   the bands that stood out in the run's highest frame (those `enter_db` over noise ⊕ echo, or
///   the largest) are still within `onsetDrop` of their level then: a click's bands fall, a voice's
///   hold.
/// - **A lead-in is in the onset's own bands, and not far under it.** A rising frame before the
///   run counts as its lead-in (a click has none). Over an echo, the residual's flicker rises 3 dB
///   in some band or other in many frames, and a click after one such frame had a lead-in and
///   opened speech at once: with a reference, the frame before counts only by its excess in this
///   frame's two largest bands (a voice's onset rises where it will stand), and not at all when
///   this frame rises more than `leadInRiseMax` over it (a click's attack split over two frames).
/// - **The talker gate widens for a frame that stands out over the expected echo.** The loudest
///   recent level is the agent's echo's; a user 20 dB under its peaks, standing out 13–16 dB in the
///   echo's dips, was gated as if he were babble far from the talker (talking grid, echo 0 dB,
///   200 and 300 ms: 1.28 s late). The start gate widens by the frame's score over `enter_db`.
/// - **A click's attack holds one frame more.** A knock or a thump of 15–60 ms over the echo holds
///   its level two or three frames, as a word's first frames do; a run whose first frame rose more
///   than `leadInRiseMax` over the frame before — or that starts again from such a run, its decay
///   having fallen `onsetDrop` — needs one frame more (`OnsetBands.attack`). A voice under the echo
///   rises less: the echo hides its start.
/// - **A frame that decays through itself opens no speech.** A click whose attack falls late in a
///   frame fills that frame and the next about equally — a run of two frames, speech at once. Its
///   late start hides under the echo (the late-onset test measures the quarters over the noise
///   floor, and the echo fills the first quarters: a 6 dB jump, not `onsetJump`), and so does its
///   decay — but over noise ⊕ the expected echo, the second frame falls `onsetJump` or more from
///   its first quarter to its last. A voice's second frame holds or rises. With a reference, a
///   frame that would open speech but decays so waits for the next (docs/design/vad-experiments.md,
///   "A frame that decays through itself", 2026-12-02); without one, a frame that falls
///   `decayFallWithoutReference` over the noise floor and lies `decayUnderHighest` under the run's
///   highest (a knock's slower decay).
/// - **A run that has only fallen since its highest opens no speech** (a clink's ring:
///   `declineSlope`; without a reference in the score, `RunDecline`; with one in the level of the
///   bands the run began in, `EchoRing` in VADDecider+EchoRing.swift); **and, without a reference,
///   a click's attack holds one frame more unless the run's second frame builds up as a voice's
///   does** (`attackWithoutReference`).
/// - **A ring opens no speech**: a frame that stands out more above 1 kHz than under it and whose
///   sound there its own samples 2 ms earlier predict (`ringGainMinimum`, `VADRingPredictor`: a
///   clink's few lasting partials, whose beats the slope above misses; VADDecider+Ring.swift).
/// - **A sound only above 1 kHz holds one frame more, and a frame fallen under its run opens no
///   speech**, with a reference (a knock's, a thump's: `voiceUnder1k`, `runFallUnderHighest` in
///   VADDecider+OnsetRun.swift).
extension VADDecider {
    /// What the onset check reads in the bands, with a reference.
    struct OnsetBands: Sendable {
        /// The bands that stood out in the run's highest frame (1 in a lane, else 0).
        var bands = SIMD8<Double>()
        /// Their level in that frame, dBFS.
        var level = -Double.infinity
        /// The frame before's excess per band, dB.
        var previousExcess = SIMD8<Double>(repeating: -.infinity)
        /// The frame before's band powers.
        var previousPowers = SIMD8<Double>()
        /// The current run began with a click's attack (`OnsetReading.attack`), or started again
        /// from such a run: it holds one frame more.
        var attack = false
        /// The run had held its frames on a ringing frame (`VADDecider.rings`) and waited.
        var ringWaited = false
        /// Every frame of the run (and of the run it started again from) stood out above 1 kHz
        /// alone (`OnsetReading.onlyAbove1k`): it holds one frame more.
        var highOnly = false
        /// The run's highest power over noise ⊕ echo and its highest level (power) since it began or
        /// started again (`OnsetReading.overPower`, `levelPower`; `runFallUnderHighest`).
        var overPowerHighest = 0.0
        var levelPowerHighest = 0.0
        /// The run had held its frames on a frame fallen under them (`runFallUnderHighest`) and waited.
        var fallWaited = false

        /// Fills `detail`'s waits on a run's frames that this state keeps (`running`: out of speech,
        /// in a run). (Inlined: as a call, `decide` handed it a copy of the whole state, 233 bytes,
        /// three `memcpy` a frame.)
        @inline(__always)
        func noteWaits(in detail: inout Detail, running: Bool) {
            detail.attackWaited = running && attack
            detail.highOnlyWaited = running && highOnly
            detail.fallWaited = running && fallWaited
        }
    }

    /// What the onset check reads in this frame, with a reference (without one: the frame before's
    /// score as the lead-in, nothing else).
    struct OnsetReading {
        /// The bands that stood out in the run's highest frame hold their level (and the frame
        /// passes the enter threshold): the run holds though the score fell.
        var bandsHeld = false
        /// The frame before's score as this frame's lead-in (`leadInScore`).
        var leadInScore = -Double.infinity
        /// The frame's sound decayed through it (`decays`): it opens no speech.
        var decaying = false
        /// The frame rose more than `leadInRiseMax` (with a reference; without, more than
        /// `attackWithoutReference`) over the frame before: a run it begins holds one frame more.
        var attack = false
        /// Without a reference, the frame's last quarter stands `buildingRise` over its first: a
        /// voice building up (`attackWithoutReference`).
        var building = false
        /// The frame came with a far-end reference.
        var withReference = false
        /// The frame may ring: what stands over the noise floors (with a reference, its excess over
        /// noise ⊕ echo, by `ringMarginOverEcho`) stands more in a band above 1 kHz than in one
        /// under it. It rings, and opens no speech, where its sound above 1 kHz also predicts itself
        /// from 2 ms before (`VADRingCorrelations.gain` at least `ringGainMinimum`): solved only for
        /// a frame that would open speech otherwise (`VADDecider.rings`).
        var mayRing = false
        /// With a reference: no band under 1 kHz stands `voiceUnder1k` over noise ⊕ echo (a knock's
        /// or a click's frame, or a voice's hiss): a run of such frames holds one frame more.
        var onlyAbove1k = false
        /// With a reference and the onset check on, eight bands: `runFallUnderHighest` reads this
        /// frame's `overPower` and `levelPower` (else both are 0).
        var readsFall = false
        /// The frame's power over noise ⊕ echo (summed over the bands where it stands over them),
        /// from `powers` and `excess`: computed only where a run reads it (`runFallUnderHighest`),
        /// not on every frame. (A band's power over noise ⊕ echo: its power less theirs,
        /// 10^(−excess/10) of it.)
        var overPower: Double {
            guard readsFall else { return 0 }
            let over = powers * (1 - fastPower(-excess))
            return over.replacing(with: 0, where: excess .<= 0).sum()
        }
        /// The frame's level as a power (the sum of its band powers; `runFallUnderHighest`).
        var levelPower: Double { readsFall ? powers.sum() : 0 }
        /// With a reference: the frame's band powers and excesses, the frame before's powers, and
        /// the band count and the first band above 300 Hz (`EchoRing`).
        var powers = SIMD8<Double>()
        var previousPowers = SIMD8<Double>()
        var excess = SIMD8<Double>()
        var count = 0
        var above300 = 0
    }

    /// This frame's `OnsetReading` (of `score`, band `powers` and `excess`, and the `quarters`' power
    /// above 300 Hz over `quietAbove300`: the noise floors ⊕ the expected echo there); keeps its
    /// excesses (and, with a reference, its powers) for the next frame's.
    @inline(__always)
    mutating func onsetReading(
        score: Double, powers: SIMD8<Double>, excess: SIMD8<Double>, count: Int, above300: Int, hasReference: Bool,
        quarters: SIMD4<Float>, quietAbove300: Double, jumpRatio: Float,
        floorPowers: SIMD8<Double> = SIMD8()
    ) -> OnsetReading {
        var r = OnsetReading(leadInScore: previousScore)
        r.withReference = hasReference
        if hasReference {
            let c = configuration
            r.powers = powers
            r.previousPowers = onset.previousPowers
            r.excess = excess
            r.count = count
            r.above300 = above300
            onset.previousPowers = powers
            r.decaying = Self.decays(quarters, quiet: quietAbove300, jumpRatio: jumpRatio)
            r.bandsHeld = run > 0 && score >= c.enterThreshold && onsetBandsHeld(powers: powers, drop: c.onsetDrop)
            r.attack = c.onsetDrop > 0 && score - previousScore > Self.leadInRiseMax
            // (A lead-in counts only for a run's first frame.)
            if run == 0 { r.leadInScore = leadInScore(excess: excess, count: count, score: score) }
            r.mayRing = c.onsetDrop > 0 && count == 8 && Self.standsOutAbove1kOverEcho(excess: excess)
            r.onlyAbove1k = c.onsetDrop > 0 && count == 8 && !Self.voicedUnder1k(excess: excess)
            r.readsFall = c.onsetDrop > 0 && count == 8
        } else if configuration.onsetDrop > 0 {
            // (Off with `onset_drop_db` 0, as the rest of the onset check is.)
            if run == 0 || score < runPeak - Self.decayUnderHighest {
                r.decaying = Self.decays(quarters, quiet: quietAbove300, jumpRatio: Self.decayRatioWithoutReference)
            }
            r.attack = score - previousScore > Self.attackWithoutReference
            r.building = quarters[3] > quarters[0] * Self.buildingRatio
            r.mayRing = count == 4 && Self.standsOutAbove1k(powers: powers, floors: floorPowers)
        }
        onset.previousExcess = excess
        return r
    }

    /// Without a reference, how far a frame's quarters must fall from the first to the last (over
    /// the noise floor, `decays`) and its score lie under the run's highest for it to be a click's
    /// decay, dB. The reference path's `onsetJump` (8 dB) passes the decay of a knock or a thump (a
    /// burst of 20–60 ms decaying over 8–20 ms: 3–8 dB in a frame); 2 dB alone waits on voices in
    /// pink noise or babble at 0 dB, whose quarters fluctuate so (pink 0 dB 0.836 → 0.745 F1),
    /// unless the frame also lies 2 dB under the run's highest, where a voice's second frame seldom
    /// does. Knocks without a reference 7.7 → 4.5 false triggers a minute, thumps 5.3 → 3.6 (the
    /// draws that chose it), 6.2 → 3.6 and 5.6 → 4.5 on a draw after the choice; the 38 dev items
    /// without a reference F1 0.9248 → 0.9239 (docs/design/vad-experiments.md, "A knock's decay
    /// without a reference", 2026-12-02). Its wait made a word at a stream's start four of the
    /// noise's own score's first eight frames, until a run's frames waited out of it
    /// (`PendingScores`).
    public static let decayFallWithoutReference = 2.0
    /// Without a reference, how far under the run's highest score a decaying frame lies, dB (see
    /// `decayFallWithoutReference`).
    public static let decayUnderHighest = 2.0
    static let decayRatioWithoutReference = Float(power(decayFallWithoutReference))

    /// Without a reference: how the run has fallen since its highest (`declineSlope`).
    struct RunDecline: Sendable {
        /// The run's highest score — or, for a run that started again from a falling one on a frame
        /// that fell too, that run's highest (a ring falls `onsetDrop` under its run's highest every
        /// few frames; each new run is still its decay).
        var highest = -Double.infinity
        /// Frames since `highest`.
        var frames = 0
        /// Every frame since `highest` lay on its decay (`fallsOn`).
        var falling = true
        /// The run waited on a frame of such a fall.
        var waited = false

        /// Counts a frame of `score` after the highest (`previous`: the frame before's); whether it
        /// lies on the decay: `declineSlope` under the highest for each frame since, and at most
        /// `declineRise` over the frame before.
        @inline(__always)
        mutating func fallsOn(score: Double, previous: Double) -> Bool {
            frames += 1
            return score <= previous + VADDecider.declineRise
                && score < highest - VADDecider.declineSlope * Double(frames)
        }
    }

    /// A frame that goes on the run (of `score`, and what the onset check read in it): one more
    /// frame, its highest, and whether it lies on the decay from the highest as every frame since
    /// did. Without a reference, a run's second frame that rises `attackRiseWithoutReference` over
    /// its first, or builds up through itself, is a voice's: a click's attack holds it no longer.
    @inline(__always)
    mutating func continueRun(score: Double, reading: OnsetReading) {
        if reading.withReference { followEchoRing(powers: reading.powers) }
        onset.highOnly = onset.highOnly && reading.onlyAbove1k
        onset.overPowerHighest = max(onset.overPowerHighest, reading.overPower)
        onset.levelPowerHighest = max(onset.levelPowerHighest, reading.levelPower)
        run += 1
        if run == 2 && onset.attack && !reading.withReference
            && (score - previousScore >= Self.attackRiseWithoutReference || reading.building)
        {
            onset.attack = false
        }
        runPeak = max(runPeak, score)
        if score >= decline.highest {
            decline = RunDecline(highest: score, waited: decline.waited)
        } else {
            let falls = decline.fallsOn(score: score, previous: previousScore)
            decline.falling = decline.falling && falls
        }
    }

    /// A run begins (of `score`), or starts again (`restart`): the fall is the old run's when it
    /// was falling and this frame lies on it too, else it starts here.
    @inline(__always)
    mutating func startDecline(score: Double, restart: Bool) {
        if restart && decline.falling && decline.fallsOn(score: score, previous: previousScore) { return }
        decline = RunDecline(highest: score)
    }

    /// Whether a frame of `score` is a ringing sound's decay: under its run's highest, which stands
    /// `declineClearance` over `enter_db`, every frame since having lain on its decay.
    @inline(__always)
    func declines(score: Double) -> Bool {
        decline.falling && score < decline.highest
            && decline.highest >= configuration.enterThreshold + Self.declineClearance
    }

    /// Without a reference, how far under its run's highest each frame since must lie for the run
    /// to be a ringing sound's decay, dB per frame since the highest: a run whose held frame lies on
    /// that decay opens no speech (off with `onset_drop_db` 0). A dish or glass clink rings on
    /// 50–400 ms, falling 0.7–4 dB a frame from its attack; a voice's run rises to its highest or
    /// holds. Read only where the run's highest stands `declineClearance` over `enter_db`: nearer the
    /// noise, its flicker makes a voice's frames fall as often (a voice at 0 dB in pink noise lost
    /// 0.04 F1 to the rule without it). The first rule asked each frame to fall 0.5 dB under the one
    /// before; a clink's partials beat, and its level rises 0.3–0.7 dB every few frames on the way
    /// down, which ended the decay and opened speech at the next held frame. Read as a slope with
    /// `declineRise`, dish and glass clinks in the dev kit's clean, level, white, brown and hum rows
    /// (`make-click-items.py --clinks`) 12.5 → 8.9 and 11.3 → 7.1 false triggers a minute on the
    /// draws that chose it (seeds 11 and 651), 10.7 → 6.8, 10.4 → 7.1, 12.2 → 8.3 and 11.9 → 8.3 on
    /// four drawn after (661, 671, 681, 691; false alarm 23 → 18, 21 → 17, 23 → 19, 24 → 19 %);
    /// knocks unchanged, thumps 2.7 → 2.4 (661); the 38 dev items without a reference F1 0.9232 →
    /// 0.9230, onset latencies unchanged; real/ 0.8055 → 0.8044 (docs/design/vad-experiments.md, "A
    /// ring's beats", 2026-12-02). Slope 0 took dev to 0.9225 for 0.6 fewer false triggers a
    /// minute; 0.5 (rises of 1–3 dB) and 0.8 kept fewer clinks out (8.0–10.4 on seed 651).
    public static let declineSlope = 0.3
    /// How far a frame of a ringing sound's decay may rise over the one before, dB (`declineSlope`):
    /// its partials' beats rise 0.3–0.7 dB, a voice's next syllable more. At slope 0.5, 1 dB let
    /// 8.9 false triggers a minute through on seed 651, 3 dB 8.0; 3 dB at slope 0.2 let 6.8 through
    /// to 2 dB at 0.3's 7.1, for dev F1 0.9226 to 0.9230.
    public static let declineRise = 2.0
    /// How far over `enter_db` a run's highest must stand for `declineSlope` to be read, dB.
    public static let declineClearance = 5.0

    /// Without a reference, how far a run's first frame must rise over the frame before for the run
    /// to begin with a click's attack, dB: such a run holds one frame more — unless its second frame
    /// rises `attackRiseWithoutReference` over the first or builds up through itself (its last
    /// quarter `buildingRise` over its first), as a voice's does. A clink, a knock or a thump puts
    /// its energy in at once and its second frame holds or falls; then the third frame falls on the
    /// ring's decay (`declineSlope`) or the knock's (`decayFallWithoutReference`) and opens nothing.
    /// Without it the run opened at its second frame, before anything had fallen: 17 of 38 false
    /// triggers left on a draw of clinks. Clinks 8.9 → 3.9 and 7.1 → 4.2 false triggers a minute of
    /// clinking on the draws that chose it (seeds 11, 651), 6.8 → 3.3, 7.1 → 3.6, 8.3 → 4.5 and
    /// 8.3 → 6.8 on four that did not (661–691; false alarm 18 → 14, 17 → 13, 19 → 14, 19 → 18 %);
    /// knocks 1.5 → 0.3 and 1.2 → 0.3, thumps 2.4 → 0.6 and 2.1 → 0.6 (661, 671); a recorded dish
    /// clatter at 0 dB (dev item 027) false alarm 8.1 → 4.1 %. Cost: the 38 dev items without a
    /// reference F1 0.9230 → 0.9229 (miss 7.86 → 7.95 %, onset p50 unchanged), real/ 0.8044 →
    /// 0.8034 (fresh onsets 79 / 149 → 80 / 159 ms) (docs/design/vad-experiments.md, "A clink's
    /// attack without a reference", 2026-12-02). At 15 dB and with no second-frame test, it held
    /// every abrupt voice: dev's fresh-onset p50 30 → 35 ms.
    public static let attackWithoutReference = 10.0
    /// Without a reference, how far a run's second frame must rise over its first to be a voice
    /// building, not a click's attack, dB (`attackWithoutReference`). Without the quarters' test, 1 dB
    /// let 5.6 and 4.7 clinks a minute through where 2 let 3.9 and 4.2, and 3 dB 3.9 and 3.6 for
    /// 0.0007 less F1 on the dev items.
    public static let attackRiseWithoutReference = 2.0
    /// How far a frame's last quarter must stand over its first to be building up, dB
    /// (`attackWithoutReference`): a voice's second frame does; a clink's holds or falls. Read over
    /// the quarters as they are (noise in). 0 dB let 0.9 more clinks a minute through on one draw; 1
    /// dB took dev F1 from 0.9225 (the second frame's rise alone) to 0.9229.
    public static let buildingRise = 1.0
    static let buildingRatio = Float(power(buildingRise))

    /// The start test's talker gate, dB under the loudest recent level: without a reference
    /// `talkerOnsetGate` (the gate's hysteresis: starting needs more than holding), at most
    /// `talkerGate`; with one `talkerGate`, wider by the frame's `score` over the enter threshold.
    @inline(__always)
    static func startGate(_ c: VADConfiguration, hasReference: Bool, score: Double) -> Double {
        if hasReference { return c.talkerGate + max(0, score - c.enterThreshold) }
        return c.talkerOnsetGate <= 0 ? c.talkerGate : min(c.talkerGate, c.talkerOnsetGate)
    }

    /// Whether the bands that stood out in the run's highest frame (`noteOnsetBands`) still hold
    /// within `drop` dB of their level then, in this frame's band `powers`.
    @inline(__always)
    func onsetBandsHeld(powers: SIMD8<Double>, drop: Double) -> Bool {
        let now = (powers * onset.bands).sum()
        return now > 0 && db(now) >= onset.level - drop
    }

    /// A new highest frame of the run: its bands that stand `enter` dB over noise ⊕ echo (or its
    /// largest, where none does) and their level, for `onsetBandsHeld`.
    @inline(__always)
    mutating func noteOnsetBands(powers: SIMD8<Double>, excess: SIMD8<Double>, count: Int, enter: Double) {
        onset.bands = Self.standingBands(excess: excess, count: count, enter: enter)
        onset.level = Self.levelIn(onset.bands, of: powers)
    }

    /// The bands of the first `count` whose `excess` stands `enter` dB or more over noise ⊕ echo,
    /// or the largest where none does: 1 in a lane, else 0 (`noteOnsetBands`, `EchoRing`).
    @inline(__always)
    static func standingBands(excess: SIMD8<Double>, count: Int, enter: Double) -> SIMD8<Double> {
        var bands = SIMD8<Double>()
        var largest = 0
        for b in 0..<count {
            if excess[b] >= enter { bands[b] = 1 }
            if excess[b] > excess[largest] { largest = b }
        }
        if bands.sum() == 0 { bands[largest] = 1 }
        return bands
    }

    /// Whether a frame's sound decayed through it: the `quarters`' power over `quiet` (a quarter
    /// under it counts as a tenth of it) peaks in the first half and falls by `jumpRatio`
    /// (`onset_jump_db`; never when infinite, the check off) or more from the first quarter to the
    /// last. The mirror of `lateOnset`.
    @inline(__always)
    static func decays(_ quarters: SIMD4<Float>, quiet: Double, jumpRatio: Float) -> Bool {
        let q = quarters - Float(quiet)
        let least = Float(0.1 * quiet)
        return max(q[0], q[1]) >= largestQuarter(q) && q[0] > jumpRatio * max(q[3], least)
    }

    /// How far a frame may rise over its lead-in, dB, with a reference: more is a click's attack
    /// split over the frame boundary (its first millisecond at the end of the frame before, the
    /// rest in this one), not a voice rising. Clicks over the agent's echo in 20 random rooms:
    /// false barge-ins 3.40 → 2.77 per minute (seed 5101, tuning, which chose 15 over 20 dB: 2.97),
    /// 4.46 → 3.79 on other clicks and rooms (seed 5301; 20 dB: 3.99); barge-in items and grids
    /// unchanged but one item half's latency p50, 1 ms. A run whose first frame rose more than this
    /// over the frame before (a click's attack, `OnsetReading.attack`), or that starts again from
    /// such a run (the click's decay falling `onsetDrop` and holding), holds one frame more: knocks
    /// and thumps of 15–60 ms over the sample agent's echo in 20 rooms (seed 6101, tuning) 44 → 12
    /// and 25 → 5.6 false barge-ins per minute, on other draws and rooms (6301) 25 → 8.7 and 42 →
    /// 11; barge-in latency p50 +2–10 ms, p90 and the grids unchanged (vad-experiments.md, "A
    /// knock's attack", 2026-12-02). At 10 dB the talking grid's −3 dB / 300 ms user, who rises
    /// 14.5 dB and is heard for 30 ms before the echo returns, waited 638 ms.
    public static let leadInRiseMax = 15.0
}
