import CVectorKernels
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
/// one-value version the VAD's figures were first measured with.) The arithmetic is C's
/// (`cvk_vad_lanes_db`, vadlanes.c: four lanes a register with AVX2, where this baseline's SSE2
/// took two and three instructions a lane select; the same bits).
@inline(__always) func fastDB(_ p: SIMD8<Double>) -> SIMD8<Double> {
    eightLanes(p, cvk_vad_lanes_db, outOfRange: db)
}

/// `kernel` (vadlanes.c) on the eight lanes of `x`; the lanes it reports out of range from
/// `outOfRange`, one by one.
@inline(__always) private func eightLanes(
    _ x: SIMD8<Double>, _ kernel: (UnsafePointer<Double>?, UnsafeMutablePointer<Double>?) -> Int32,
    outOfRange: (Double) -> Double
) -> SIMD8<Double> {
    var out = SIMD8<Double>()
    let inRange = withUnsafeBytes(of: x) { input in
        withUnsafeMutableBytes(of: &out) { output in
            kernel(
                input.baseAddress!.assumingMemoryBound(to: Double.self),
                output.baseAddress!.assumingMemoryBound(to: Double.self))
        }
    }
    if inRange != 0xFF {
        for i in 0..<8 where inRange & (1 << i) == 0 { out[i] = outOfRange(x[i]) }
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

/// The largest of four quarters' powers, inlined: the standard library's `SIMD.max()` on
/// `SIMD4<Float>` stayed a call (0.4 % of a frame with a reference); the same fold of
/// `Float.maximum` in lane order, the same result with NaN.
@inline(__always) func largestQuarter(_ q: SIMD4<Float>) -> Float {
    Float.maximum(Float.maximum(Float.maximum(q[0], q[1]), q[2]), q[3])
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
/// constant's. The arithmetic is C's (`cvk_vad_lanes_power`, vadlanes.c, as `fastDB`'s).
@inline(__always) func fastPower(_ levels: SIMD8<Double>) -> SIMD8<Double> {
    eightLanes(levels, cvk_vad_lanes_power, outOfRange: power)
}
