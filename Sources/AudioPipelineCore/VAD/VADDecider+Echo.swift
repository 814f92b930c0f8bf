/// The decider's score with a far-end reference: split from VADDecider.swift (the core's file-size
/// rule); part of the per-frame path `process` describes.
///
/// ## What was heard as echo rings on
/// The echo model predicts the echo band by band from the reference, linearly. A loudspeaker
/// driven into soft clipping puts harmonics of its loud low bands into bands where the reference is
/// quiet, and they ring in the room after the reference falls silent: in generated item 001_s2004
/// (soft clipping, a resonance at 1.3 kHz, direct-to-reverberant ratio 0.3 dB) 1000–3000 Hz stood
/// 10–19 dB over the expected echo for three frames after a word — a false barge-in, with nothing of
/// the user in the room. Echo cannot fall faster than the room lets it: a band's bound on the echo
/// is at least what it heard of it, less `ringMilliseconds`' decay (60 dB over the shortest room we
/// plan for) per frame since. What rings on: a band of a frame that turned out to be echo (it did
/// not stand out, no run was being counted, no speech — the user's voice must not mask itself),
/// that held more than the expected echo and its margin (where the model predicts the echo, it
/// stays the bound, and the user shows in the echo's dips as before), well over its noise floor
/// (`ringAboveFloor`: else the floor would be the bound in every pause of the agent), and that fell
/// in the next frame (a band that rises may be the user's onset). The margin is not added to what
/// was heard: it is a level measured, not a prediction.
extension VADDecider {
    /// A frame's bands over what is expected there (`excessOverEcho`, or the floors alone without a
    /// reference).
    struct BandExcess {
        /// Per band, the level's excess over the noise floor ⊕ the bound on the echo, dB (−inf past
        /// the band count).
        var excess: SIMD8<Double>
        /// The noise floors' power, all bands.
        var floorPower: Double
        /// The expected echo's power, all bands (0 without a reference).
        var echoPower = 0.0
        /// The noise floors' power above 300 Hz (what the quarters are measured over).
        var floorsAbove300: Double
        /// Without a reference, each band's noise floor power (infinite before it has learnt one; 0
        /// past the band count, and with a reference): what a band's power stands out over
        /// (`OnsetReading.mayRing`).
        var floorPowers = SIMD8<Double>()
        /// The expected echo's power above 300 Hz (0 without a reference).
        var echoAbove300 = 0.0
    }

    /// The decay of what was heard, as a room of this RT60 lets it fall, ms: the shortest room we
    /// plan for (a living room or an office 0.2–0.6 s; a car is shorter, and there the tail is
    /// overestimated for a frame or two).
    static let ringMilliseconds = 150.0
    /// How far over its noise floor a band must be for what it held to count as heard echo, dB.
    static let ringAboveFloor = 6.0
    /// A band's floor before it has learnt one, where an echo is expected: negligible under it, dB.
    static let unlearntFloor = -100.0
    /// How far under a frame's level the bound on the echo must be for the band's floor to learn
    /// from it while an echo is expected (the frame is the room's noise, or the user), dB. A floor
    /// learnt only where no echo was expected at all never learnt while the reference played: with
    /// headphones, or an echo the device cancelled, the model still expects one, far under the
    /// noise (−120 to −160 dBFS), and the floors of a long answer stayed at `unlearntFloor` — the
    /// room's noise read as 10–20 dB of excess, and a click over it opened speech (clicks under
    /// headphones in 10 random rooms: 3.1 false barge-ins per minute, none since). Only while the
    /// detector hears nobody (no speech, no run): a user who talks over a loud echo for seconds must
    /// not teach his own level as the floor.
    static let floorUnderEcho = 10.0
    /// How many frames a floor learnt only so (never where no echo was expected) needs before it
    /// stands in the excess, not `unlearntFloor`: a user's first frames over a negligible echo
    /// (a band the loudspeaker hardly reaches) would otherwise be the whole floor, 40–50 dB over the
    /// noise, and his onset would not stand out.
    static let floorFramesUnderEcho = 30
    /// `power(unlearntFloor)`, computed once.
    static let unlearntFloorPower = power(unlearntFloor)
    /// How many frames a floor needs before a band's excess is read over it, not over the frame
    /// itself (with a reference). Of fewer than five, the floor's 20th percentile is their minimum,
    /// and in the lowest bands a 10 ms frame of steady noise holds few degrees of freedom (under
    /// 150 Hz, about three): the least of two to four such frames lies up to 10 dB under the noise,
    /// and the next frames stood 13–14 dB over it in the two lowest bands — speech 30–50 ms into the
    /// session and a barge-in on the agent's first words, in 1–2 of 100 rooms with a −60 to −50
    /// dBFS noise floor (docs/design/vad-experiments.md, "The floors' first frames").
    static let floorFramesToTrust = 5

    /// Per band, the excess of the level `m` over noise floor ⊕ (expected echo + its margin); the
    /// floors learn here (with a reference, only where no echo is expected: else a talkative agent
    /// would lift the floor to its echo level; before any, it is negligible) — with a reference, not
    /// from the stream's first frame (`learnFloors` false; `settlingFrames`).
    @inline(__always)
    mutating func excess(
        _ m: SIMD8<Double>, count: Int, above300: Int, expected: VADEchoModel.Estimate, hasReference: Bool,
        lastWasEcho: Bool, learnFloors: Bool, detail: inout Detail
    ) -> BandExcess {
        guard hasReference else {
            detail.echoes = expected.echo
            var excess = SIMD8<Double>(repeating: -.infinity)
            var floorPower = 0.0
            var floorsAbove300 = 0.0
            var floorPowers = SIMD8<Double>()
            for b in 0..<count {
                let f = floors[b].valueAndPower(or: m[b])
                floorPowers[b] = floors[b].isEmpty ? .infinity : f.power
                floors[b].add(m[b])
                excess[b] = m[b] - f.db
                floorPower += f.power
                if b >= above300 { floorsAbove300 += f.power }
                detail.floors[b] = f.db
            }
            return BandExcess(
                excess: excess, floorPower: floorPower, floorsAbove300: floorsAbove300, floorPowers: floorPowers)
        }
        return excessOverEcho(
            m, count: count, above300: above300, expected: expected, lastWasEcho: lastWasEcho,
            learnFloors: learnFloors, detail: &detail)
    }

    /// Per band, the excess of the level `m` over noise floor ⊕ the bound on the echo: the expected
    /// echo plus its margin, or what was heard as echo ringing on where that is more
    /// (`lastWasEcho`: the frame before turned out to be echo).
    mutating func excessOverEcho(
        _ m: SIMD8<Double>, count: Int, above300: Int, expected: VADEchoModel.Estimate, lastWasEcho: Bool,
        learnFloors: Bool, detail: inout Detail
    ) -> BandExcess {
        var excess = SIMD8<Double>(repeating: -.infinity)
        var floorPower = 0.0
        var echoPower = 0.0
        var echoAbove300 = 0.0
        var floorsAbove300 = 0.0
        let echo = expected.echo
        detail.echoes = echo
        // Lanes without an expected echo (and those past `count`) compute from stand-ins and are
        // not used; what was heard rings on only where the model expects some echo (the reference
        // played within its window).
        let inUse = echo .> -.infinity
        // The last frame's unpredicted echo rings on in the bands that have fallen since (one that
        // rises again may be the user's onset, the echo's own or not).
        if lastWasEcho { heard = laneMax(heard, heardCandidate.replacing(with: -140, where: m .>= heardCandidate)) }
        heard = laneMax(heard - ringDecay, SIMD8(repeating: -140))
        // The floors band by band, then the expected echoes' powers and the excesses over floor ⊕
        // echo for all bands at once (`fastPower`, `fastDB` on eight lanes; one band at a time they
        // were 14 % of a frame).
        let bound = laneMax(echo + expected.margins, heard)
        let listening = !speaking && run == 0
        var floorDB = SIMD8<Double>(repeating: -.infinity)
        var floorPowers = SIMD8<Double>(repeating: 1)
        // (Written through memory: a lane written by index in a loop took the whole vector out of
        // its registers and back each time.)
        withUnsafeMutableBytes(of: &floorDB) { dbs in
            withUnsafeMutableBytes(of: &floorPowers) { powers in
                for b in 0..<count {
                    // A floor with no frame yet: negligible under an expected echo, else the frame itself
                    // (as without a reference; −100 dB made a session's first frames read as speech).
                    // (The unlearnt floor's power computed once: the floors stay empty while the
                    // agent talks from the start, and a libm `pow` per band was 3 % of a frame.)
                    // (Or learnt only under an echo expected `floorUnderEcho` under the frame, from
                    // fewer than `floorFramesUnderEcho` frames: it may be the user's first frames.)
                    let echoFree = echoFreeFloors & (1 << b) != 0
                    var f =
                        inUse[b] && !echoFree && floors[b].size < Self.floorFramesUnderEcho
                        ? (db: Self.unlearntFloor, power: Self.unlearntFloorPower)
                        : floors[b].valueAndPower(or: m[b])
                    let young = youngFloors & (1 << b) != 0 && (!inUse[b] || echoFree)
                    if young && floors[b].size < Self.floorFramesToTrust { f = (m[b], power(m[b])) }
                    if young && floors[b].size >= Self.floorFramesToTrust { youngFloors &= ~(1 << b) }
                    // (Not from the stream's first frame: `learnFloors`, `settlingFrames`.)
                    if learnFloors && !inUse[b] {
                        floors[b].add(m[b])
                        echoFreeFloors |= 1 << b
                    } else if learnFloors && listening && bound[b] < m[b] - Self.floorUnderEcho {
                        floors[b].add(m[b])
                    }
                    dbs.storeBytes(of: f.db, toByteOffset: b * 8, as: Double.self)
                    powers.storeBytes(of: f.power, toByteOffset: b * 8, as: Double.self)
                    floorPower += f.power
                    if b >= above300 { floorsAbove300 += f.power }
                }
            }
        }
        detail.floors = floorDB
        // What this frame holds over the expected echo and its margin, well over the floor: if the
        // frame turns out to be echo, it rings on.
        let unpredicted = inUse .& (m .> bound) .& (m .> floorDB + Self.ringAboveFloor)
        heardCandidate = m.replacing(with: -140, where: .!unpredicted)
        let e = fastPower(echo.replacing(with: 0, where: .!inUse))
        let over = m - fastDB((floorPowers + fastPower(bound.replacing(with: -140, where: .!inUse))))
        excess = (m - floorDB).replacing(with: over, where: inUse)
        for b in 0..<count where inUse[b] {
            echoPower += e[b]
            if b >= above300 { echoAbove300 += e[b] }
        }
        for b in count..<8 { excess[b] = -.infinity }
        return BandExcess(
            excess: excess, floorPower: floorPower, echoPower: echoPower, floorsAbove300: floorsAbove300,
            echoAbove300: echoAbove300)
    }
}
