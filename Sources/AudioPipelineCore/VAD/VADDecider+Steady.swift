/// A noise that switches on: split from VADDecider.swift (the core's file-size rule); part of the
/// per-frame path `process` describes.
///
/// The noise floor is a low quantile over `floorWindowSeconds` (5 s): a talker can fill most of
/// the window without lifting it, and a noise that switches on and stays (a fan, a hum, an
/// exercise bike) read as speech until it filled 80 % of the window — 4.1–5.1 s on steps of white,
/// pink and brown noise. A voice is never that steady: syllables, pauses and consonants move every
/// band it fills within a few hundred milliseconds. So once speech has lasted
/// `steadyNoiseMilliseconds`, if every band standing `steadyExcess` over its floor (⊕ expected
/// echo) has kept its level — smoothed over `steadySmoothing` — within `steadySpread` since the
/// speech's first frames (after `steadySettle`), and one of them carries the speech (at least
/// `enterThreshold`), the speech ends at that frame and those bands' floors are lifted to the
/// lowest level they kept. Bands that moved keep their floors: a voice that started with the noise
/// goes on in them and holds the speech. Measured in `docs/design/vad-experiments.md` ("A noise
/// that switches on").
extension VADDecider {
    /// The largest spread of a steady band (its highest smoothed level since the speech's first
    /// frames less its lowest), dB. Stationary noise in 10 ms frames: 0.5–4 dB (the band below
    /// 300 Hz the most, having the fewest degrees of freedom); read speech and meetings held this
    /// for 500 ms in places, never for 600 (the kit's dev and real sets).
    public static let steadySpread = 6.0
    /// A band counts when it stands this much over its floor ⊕ expected echo, dB.
    public static let steadyExcess = 3.0
    /// The time constant the band powers are smoothed with, ms.
    public static let steadySmoothing = 40.0
    /// Time after speech was declared before the spread is tracked (the smoothing has taken the
    /// new level, within 0.5 dB), ms; `steadyNoiseMilliseconds` is at least this.
    public static let steadySettle = 100.0
    /// Copies of the new level the lifted floor starts from (`RunningQuantile.refill`).
    static let steadyRefill = 10

    /// Tracks the smoothed band powers; `true` when this frame ends speech as a steady noise (the
    /// steady bands' floors lifted).
    @inline(__always)
    mutating func steadyNoise(powers p: SIMD8<Double>, excess: SIMD8<Double>, count: Int) -> Bool {
        steadyPower += steadyAlpha * (p - steadyPower)
        guard speaking, steadyFrames > 0 else { return false }
        if age < steadySettleFrames {
            steadyLow = steadyPower
            steadyHigh = steadyPower
            return false
        }
        steadyLow = pointwiseMin(steadyLow, steadyPower)
        steadyHigh = pointwiseMax(steadyHigh, steadyPower)
        guard age >= steadyFrames else { return false }
        var carried = false
        for b in 0..<count where excess[b] >= Self.steadyExcess {
            guard steadyHigh[b] <= steadyLow[b] * steadyRatio else { return false }
            if excess[b] >= configuration.enterThreshold { carried = true }
        }
        guard carried else { return false }
        for b in 0..<count where excess[b] >= Self.steadyExcess {
            floors[b].refill(db(steadyLow[b]), count: Self.steadyRefill)
        }
        return true
    }
}
