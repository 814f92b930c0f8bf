import RealModule

// Decibels in one place. Powers (mean squares) use 10·log10, amplitudes 20·log10; full scale is
// 0 dB either way (dBFS).

/// The level of a power (mean square, full scale = 1) in dB, floored at −140 dB so silence stays
/// finite (the VAD's band energies and noise floors).
@inline(__always) func db(_ power: Double) -> Double { 10 * Double.log10(max(power, 1e-14)) }

/// The power (mean square) of a level in dB: the inverse of `db`.
@inline(__always) func power(_ db: Double) -> Double { Double.exp10(db / 10) }

/// The level of an amplitude (peak or RMS, full scale = 1) in dBFS: 20·log10(x), −∞ for silence.
@inline(__always) func amplitudeDB(_ linear: Double) -> Double {
    linear > 0 ? 20 * Double.log10(linear) : -Double.infinity
}

/// `db` of each of eight band powers, with the logarithm from the bits and a series in place of
/// libm's `log10`: the VAD's reference path takes 24 a frame (the microphone's eight bands, the
/// reference's and the excesses'), which cost a quarter of its 2 µs budget as calls, and 14 % of a
/// frame done one lane at a time. Within 1e-10 dB of `db`; a lane below 1e-14, infinite or NaN
/// goes to `db` itself (the other lanes are not changed by it). x = m · 2^e with m in [√½, √2),
/// and ln m = 2 atanh t = 2 (t + t³/3 + t⁵/5 + …) with t = (m − 1)/(m + 1), |t| ≤ 0.172: to t¹¹ the
/// series' error is under 2e-11. (No fused multiply-add: each lane's bits are those of the
/// one-value version the VAD's figures were first measured with.)
@inline(__always) func fastDB(_ p: SIMD8<Double>) -> SIMD8<Double> {
    let inRange = (p .>= 1e-14) .& (p .< .infinity)
    let x = p.replacing(with: 1, where: .!inRange)
    let bits = unsafeBitCast(x, to: SIMD8<UInt64>.self)
    // The biased exponent k as a Double: the bits of 2^52 + k, less 2^52 + 1023 (exact).
    let biased = unsafeBitCast((bits &>> 52) | 0x4330_0000_0000_0000, to: SIMD8<Double>.self)
    var exponent = biased - (4_503_599_627_370_496 + 1023)
    var m = unsafeBitCast((bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000, to: SIMD8<Double>.self)
    let high = m .> 1.414_213_562_373_095_1
    m.replace(with: m * 0.5, where: high)
    exponent.replace(with: exponent + 1, where: high)
    let t = (m - 1) / (m + 1)
    let t2 = t * t
    // The series, innermost term first.
    var series = t2 * (2.0 / 11)
    series = t2 * (series + 2.0 / 9)
    series = t2 * (series + 2.0 / 7)
    series = t2 * (series + 2.0 / 5)
    series = t2 * (series + 2.0 / 3)
    let ln = t * (series + 2)
    let log10Of2 = 0.301_029_995_663_981_2
    let log10OfE = 0.434_294_481_903_251_8
    var out = 10 * (exponent * log10Of2 + ln * log10OfE)
    if !all(inRange) {
        for i in 0..<8 where !inRange[i] { out[i] = db(p[i]) }
    }
    return out
}

/// The largest lane, inlined (the standard library's `SIMD.max()` stayed a call on
/// `SIMD8<Double>`). For lanes without NaN, its result (it passes NaN lanes over; callers here hold
/// none: the echo model takes a NaN reference band as silence).
@inline(__always) func largestLane(_ v: SIMD8<Double>) -> Double {
    var m = v[0]
    for i in 1..<8 { m = max(m, v[i]) }
    return m
}

/// Lane-wise maximum, inlined (the standard library's `pointwiseMax` on `SIMD8<Double>` stayed a
/// call per use: 13 % of a frame's time in a profile). A NaN in `b` is passed over, as there; `a`
/// is an accumulator without NaN.
@inline(__always) func laneMax(_ a: SIMD8<Double>, _ b: SIMD8<Double>) -> SIMD8<Double> {
    a.replacing(with: b, where: a .< b)
}

/// Each lane within `low…high`, inlined; a NaN lane becomes `low` (as `pointwiseMin(pointwiseMax(x,
/// low), high)` makes it).
@inline(__always) func clampLanes(_ x: SIMD8<Double>, _ low: SIMD8<Double>, _ high: SIMD8<Double>) -> SIMD8<Double> {
    let raised = x.replacing(with: low, where: .!(x .>= low))
    return raised.replacing(with: high, where: raised .> high)
}

/// `power` of eight levels, with the exponential from a series and the bits in place of libm's
/// `exp10`: the VAD's reference path takes sixteen a frame. Within 1e-11 (relative) of `power`; a
/// lane outside ±3000 dB, or NaN, goes to `power` itself (the other lanes are not changed by it).
/// 10^(d/10) = 2^y, y = n + f with n an integer and f in [0, 1); 2^f = e^z, z = f·ln 2 in
/// [0, 0.7), by its Taylor series to z¹² (error under 2e-12). floor(y) without a rounding
/// instruction (the SSE2 baseline has none): y + 1.5·2^52 − 1.5·2^52 rounds y to an integer
/// (|y| ≤ 1000), less one where that is above y; the integer's bits are those of the sum less the
/// constant's.
@inline(__always) func fastPower(_ levels: SIMD8<Double>) -> SIMD8<Double> {
    let inRange = (levels .> -3000) .& (levels .< 3000)
    let d = levels.replacing(with: 0, where: .!inRange)
    let y = d * 0.332_192_809_488_736_2
    let shift = SIMD8<Double>(repeating: 6_755_399_441_055_744)
    var n = (y + shift) - shift
    n.replace(with: n - 1, where: n .> y)
    let z = (y - n) * 0.693_147_180_559_945_3
    var e = SIMD8<Double>(repeating: 1.0 / 479_001_600)
    e = e * z + 1.0 / 39_916_800
    e = e * z + 1.0 / 3_628_800
    e = e * z + 1.0 / 362_880
    e = e * z + 1.0 / 40_320
    e = e * z + 1.0 / 5_040
    e = e * z + 1.0 / 720
    e = e * z + 1.0 / 120
    e = e * z + 1.0 / 24
    e = e * z + 1.0 / 6
    e = e * z + 0.5
    e = e * z + 1
    e = e * z + 1
    // n's bits: those of n + 1.5·2^52 less the constant's (two's complement in the low bits).
    let integer = unsafeBitCast(n + shift, to: SIMD8<UInt64>.self) &- unsafeBitCast(shift, to: SIMD8<UInt64>.self)
    var out = e * unsafeBitCast((integer &+ 1023) &<< 52, to: SIMD8<Double>.self)
    if !all(inRange) {
        for i in 0..<8 where !inRange[i] { out[i] = power(levels[i]) }
    }
    return out
}
