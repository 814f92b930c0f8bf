import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

@Suite struct DecibelsTests {
    /// `fastDB` and `fastPower` (the reference path's logarithms and exponentials) agree with libm's
    /// `db` and `power` to far below the VAD's 0.25 dB quantile bins, over every power and level the
    /// VAD meets, and hand what they do not cover (silence, infinities, NaN) to them.
    @Test func fastLevelsAndPowersAgreeWithLibm() {
        var rng = TestRNG(seed: 11)
        for _ in 0..<20_000 {
            let level = Double.random(in: -150...30, using: &rng)
            let p = Double.exp10(level / 10)
            #expect(abs(fastDB(p) - db(p)) < 1e-9, "\(p)")
            #expect(abs(fastPower(level) / power(level) - 1) < 1e-10, "\(level) dB")
        }
        // Exact powers of two and their neighbours (the mantissa's ends).
        for e in -46...6 {
            for x in [
                Double(sign: .plus, exponent: e, significand: 1),
                Double(sign: .plus, exponent: e, significand: 1.414_213_6),
            ] {
                #expect(abs(fastDB(x) - db(x)) < 1e-9, "\(x)")
                #expect(abs(fastDB(x.nextDown) - db(x.nextDown)) < 1e-9, "\(x)")
            }
        }
        #expect(fastDB(0) == -140)
        #expect(fastDB(1e-20) == -140)
        #expect(fastDB(.infinity) == db(.infinity))
        #expect(fastDB(.nan).isNaN == db(.nan).isNaN)
        #expect(fastPower(-.infinity) == 0)
        #expect(fastPower(.nan).isNaN)
        let eight = SIMD8<Double>(1e-14, 1e-9, 1e-6, 0.001, 0.01, 0.1, 0.5, 1)
        for i in 0..<8 { #expect(fastDB(eight)[i] == fastDB(eight[i])) }
    }

    /// The lane helpers are the standard library's results where their callers use them: the maximum
    /// of an accumulator and a value (a NaN value passed over), the largest of lanes without NaN, and
    /// a clamp that takes NaN to the lower bound.
    @Test func laneHelpersMatchTheStandardLibrary() {
        let a = SIMD8<Double>(1, -2, -140, 4, 0, -0.0, 7, -.infinity)
        let b = SIMD8<Double>(0, 3, 1, .nan, -1, 0, 7, 5)
        let mx = laneMax(a, b)
        let ref = pointwiseMax(a, b)
        for i in 0..<8 { #expect(mx[i] == ref[i], "max lane \(i)") }
        let v = SIMD8<Double>(-3, 9, 2, 8, -140, 0, 1, 5)
        #expect(largestLane(v) == v.max())
        let low = SIMD8<Double>(repeating: -100), high = SIMD8<Double>(repeating: 0)
        let x = SIMD8<Double>(.nan, -200, -50, 3, -.infinity, .infinity, -100, 0)
        let clamped = clampLanes(x, low, high)
        let want = pointwiseMin(pointwiseMax(x, low), high)
        for i in 0..<8 { #expect(clamped[i] == want[i], "clamp lane \(i)") }
    }
}
