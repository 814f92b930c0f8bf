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
    /// The decay of what was heard, as a room of this RT60 lets it fall, ms: the shortest room we
    /// plan for (a living room or an office 0.2–0.6 s; a car is shorter, and there the tail is
    /// overestimated for a frame or two).
    static let ringMilliseconds = 150.0
    /// How far over its noise floor a band must be for what it held to count as heard echo, dB.
    static let ringAboveFloor = 6.0
    /// A band's floor before it has learnt one, where an echo is expected: negligible under it, dB.
    static let unlearntFloor = -100.0
    /// `power(unlearntFloor)`, computed once.
    static let unlearntFloorPower = power(unlearntFloor)

    /// Per band, the excess of the level `m` over noise floor ⊕ the bound on the echo: the expected
    /// echo plus its margin, or what was heard as echo ringing on where that is more
    /// (`lastWasEcho`: the frame before turned out to be echo).
    mutating func excessOverEcho(
        _ m: SIMD8<Double>, count: Int, above300: Int, expected: VADEchoModel.Estimate, lastWasEcho: Bool,
        detail: inout Detail
    ) -> (excess: SIMD8<Double>, floorPower: Double, echoPower: Double, floorsAbove300: Double) {
        var excess = SIMD8<Double>(repeating: -.infinity)
        var floorPower = 0.0
        var echoPower = 0.0
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
                    let f =
                        inUse[b] && floors[b].isEmpty
                        ? (db: Self.unlearntFloor, power: Self.unlearntFloorPower)
                        : floors[b].valueAndPower(or: m[b])
                    if !inUse[b] { floors[b].add(m[b]) }
                    dbs.storeBytes(of: f.db, toByteOffset: b * 8, as: Double.self)
                    powers.storeBytes(of: f.power, toByteOffset: b * 8, as: Double.self)
                    floorPower += f.power
                    if b >= above300 { floorsAbove300 += f.power }
                }
            }
        }
        detail.floors = floorDB
        let bound = laneMax(echo + expected.margins, heard)
        // What this frame holds over the expected echo and its margin, well over the floor: if the
        // frame turns out to be echo, it rings on.
        let unpredicted = inUse .& (m .> bound) .& (m .> floorDB + Self.ringAboveFloor)
        heardCandidate = m.replacing(with: -140, where: .!unpredicted)
        let e = fastPower(echo.replacing(with: 0, where: .!inUse))
        let over = m - fastDB((floorPowers + fastPower(bound.replacing(with: -140, where: .!inUse))))
        excess = (m - floorDB).replacing(with: over, where: inUse)
        for b in 0..<count where inUse[b] { echoPower += e[b] }
        for b in count..<8 { excess[b] = -.infinity }
        return (excess, floorPower, echoPower, floorsAbove300)
    }
}
