/// The ring rule with a far-end reference: a run whose sound has only fallen since its highest, in
/// the microphone's own level in the bands it began in, opens no speech — a clink's ring or a
/// knock's decay over the agent's echo. Part of the onset check (`VADDecider+Onset.swift`); the
/// rule without a reference reads the score instead (`RunDecline`, `declineSlope`).
///
/// With a reference the score is the excess over the expected echo, and it moves with the echo as
/// much as with the sound: when the agent's utterance ends under a clink the echo falls faster than
/// the ring, and the score rises while the ring decays. So this rule reads the level of the bands
/// that stood out in the run's first frame (`enter_db` over noise ⊕ echo, else the largest) — the
/// clink's own bands, its level only — and asks of it what the rule without a reference asks of
/// the score: every frame since the highest `declineSlope` a frame under it, none rising more than
/// `ringRiseOverEcho` over the frame before. Three readings make it hold on real rings over an echo
/// (docs/design/vad-experiments.md, "A ringing sound's decay over the echo, read in its bands",
/// 2026-12-03):
///
/// - **The frame before counts** when it was louder in those bands: a ring that rang through the
///   echo-onset guard, or on from an earlier run, began its run with the frame before as its
///   lead-in and opened speech at its first frame, before a frame of it had fallen; read from the
///   louder frame before, that first frame already lies on the decay.
/// - **A frame within `declineSlope` of the highest, right after it, holds it**: a clink's second
///   frame as loud as its first (its attack late in the first) no longer ended the decay for the run.
/// - **No ring where a band under 300 Hz stands out in the frame.** A voice's first syllable can
///   fall as a ring does — in the talking grid (dev agent, echo −3 dB, 300 ms) the user's first
///   30 ms stand 20–28 dB over the echo under 300 Hz and fall 1.5 dB from the first frame to the
///   second, and were heard 638 ms late instead of 268 — but a voice's fundamental lies there and
///   a clink's or a knock's ring does not. Thumps (80–1200 Hz) are left to the other rules.
///
/// Clinks over the sample agent's echo in 20 random rooms, on three draws of clinks and rooms that
/// chose nothing: rooms with a false barge-in 14 / 20 / 19 → 5 / 20 / 5; knocks 11 / 9 / 4 → 11 /
/// 4 / 1; the echo grids, the barge-in items and a user talking over the agent in 40 rooms
/// unchanged; two of the dev kit's barge-in onsets 10 and 30 ms later.
extension VADDecider {
    /// With a reference: the level of the bands the run began in, and how it has fallen.
    struct EchoRing: Sendable {
        /// The bands that stood out in the run's first frame (1 in a lane, else 0).
        var bands = SIMD8<Double>()
        /// The run's highest level in them — or the frame before's, when that was higher — dBFS.
        var highest = -Double.infinity
        /// Frames since `highest`.
        var frames = 0
        /// Every frame since `highest` lay on its decay.
        var falling = true
        /// This frame's level in `bands`, dBFS.
        var level = -Double.infinity
    }

    /// How far a frame's level in the ring's bands may rise over the frame before and still lie on
    /// its decay, with a reference, dB (`declineRise` reads the score, without one). Over the echo a
    /// clink's partials beat 2.5–3.5 dB from one frame to the next (the residual of the echo adds
    /// its flicker), which ended the decay at 2 dB: clinks over the sample agent's echo, rooms with a
    /// false barge-in 12 → 10 of 20 at 2 → 4 dB on one tuning draw (seed 6101; 6301, 6501, 6701
    /// and the knocks unchanged) — and no change on the three draws that chose nothing (6901, 7101,
    /// 7301): a tuning gain only, kept because it cost nothing measured.
    public static let ringRiseOverEcho = 4.0

    /// A run begins (`restart` false) or starts again: at its start, the bands that stand out in
    /// this frame, their level, and the frame before's level in them as the highest when higher;
    /// started again, the ring goes on (`followEchoRing`).
    @inline(__always)
    mutating func startEchoRing(reading r: OnsetReading, restart: Bool) {
        if restart {
            followEchoRing(powers: r.powers)
            return
        }
        let bands = Self.standingBands(excess: r.excess, count: r.count, enter: configuration.enterThreshold)
        echoRing = EchoRing(bands: bands)
        echoRing.level = Self.levelIn(bands, of: r.powers)
        let before = Self.levelIn(bands, of: r.previousPowers)
        if before > echoRing.level {
            echoRing.highest = before
            echoRing.frames = 1
            echoRing.falling = echoRing.level < before - Self.declineSlope
        } else {
            echoRing.highest = echoRing.level
        }
    }

    /// A frame on the run (of band `powers`): a new highest; or, right after the highest, a frame
    /// within `declineSlope` of it, which holds it; or one more frame that must lie on the decay.
    @inline(__always)
    mutating func followEchoRing(powers: SIMD8<Double>) {
        let previous = echoRing.level
        echoRing.level = Self.levelIn(echoRing.bands, of: powers)
        if echoRing.level >= echoRing.highest {
            echoRing = EchoRing(bands: echoRing.bands, highest: echoRing.level, level: echoRing.level)
        } else if echoRing.frames == 0 && echoRing.level >= echoRing.highest - Self.declineSlope {
            return
        } else {
            echoRing.frames += 1
            let falls =
                echoRing.level <= previous + Self.ringRiseOverEcho
                && echoRing.level < echoRing.highest - Self.declineSlope * Double(echoRing.frames)
            echoRing.falling = echoRing.falling && falls
        }
    }

    /// Whether this frame (its band `excess`) is a ringing sound's decay over the echo: a frame of
    /// the ring's fall, at least one frame after its highest, and no band under 300 Hz (those under
    /// `above300`) `enter_db` over noise ⊕ echo.
    @inline(__always)
    func echoRingDeclines(excess: SIMD8<Double>, above300: Int) -> Bool {
        guard echoRing.falling && echoRing.frames >= 1 && echoRing.level < echoRing.highest else { return false }
        for b in 0..<above300 where excess[b] >= configuration.enterThreshold { return false }
        return true
    }

    /// The level of `powers` in `bands` (1 in a lane), dBFS; −inf when silent.
    @inline(__always)
    static func levelIn(_ bands: SIMD8<Double>, of powers: SIMD8<Double>) -> Double {
        let sum = (powers * bands).sum()
        return sum > 0 ? db(sum) : -.infinity
    }
}
