import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

@Suite struct DecibelsTests {
    /// `fastDB` and `fastPower` (the reference path's logarithms and exponentials, eight lanes at a
    /// time) agree with libm's `db` and `power` to far below the VAD's 0.25 dB quantile bins, over
    /// every power and level the VAD meets, and hand what they do not cover (silence, infinities,
    /// NaN) to them, lane by lane.
    @Test func fastLevelsAndPowersAgreeWithLibm() {
        var rng = TestRNG(seed: 11)
        for _ in 0..<2_500 {
            var levels = SIMD8<Double>()
            for i in 0..<8 { levels[i] = Double.random(in: -150...30, using: &rng) }
            let powers = SIMD8<Double>((0..<8).map { Double.exp10(levels[$0] / 10) })
            let d = fastDB(powers)
            let w = fastPower(levels)
            for i in 0..<8 {
                #expect(abs(d[i] - db(powers[i])) < 1e-9, "\(powers[i])")
                #expect(abs(w[i] / power(levels[i]) - 1) < 1e-10, "\(levels[i]) dB")
            }
        }
        // Exact powers of two and their neighbours (the mantissa's ends).
        for e in -46...6 {
            let x = Double(sign: .plus, exponent: e, significand: 1)
            let y = Double(sign: .plus, exponent: e, significand: 1.414_213_6)
            let v = SIMD8<Double>(x, x.nextDown, x.nextUp, y, y.nextDown, y.nextUp, 1.414_213_562_373_095_1, 2)
            let d = fastDB(v)
            for i in 0..<8 { #expect(abs(d[i] - db(v[i])) < 1e-9, "\(v[i])") }
        }
        // Integers and halves of y = d·log2(10)/10 (floor's edges).
        let edges = SIMD8<Double>(
            0, 3.010_299_956_639_812, -3.010_299_956_639_812, 1.505_149_978_319_906, -1.505, 30, -140, -2999)
        let w = fastPower(edges)
        for i in 0..<8 { #expect(abs(w[i] / power(edges[i]) - 1) < 1e-10, "\(edges[i]) dB") }
        // What the series does not cover goes to libm, lane by lane; the other lanes keep their bits.
        let odd = SIMD8<Double>(0, 1e-20, .infinity, .nan, 1, 2, 0.5, 1e-3)
        let plain = SIMD8<Double>(1, 1, 1, 1, 1, 2, 0.5, 1e-3)
        let d = fastDB(odd)
        #expect(d[0] == -140 && d[1] == -140 && d[2] == db(.infinity) && d[3].isNaN)
        for i in 4..<8 { #expect(d[i].bitPattern == fastDB(plain)[i].bitPattern) }
        let oddLevels = SIMD8<Double>(-.infinity, 3001, .nan, -3001, 0, 1, -20, 6)
        let plainLevels = SIMD8<Double>(0, 0, 0, 0, 0, 1, -20, 6)
        let p = fastPower(oddLevels)
        #expect(p[0] == 0 && p[1] == power(3001) && p[2].isNaN && p[3] == power(-3001))
        for i in 4..<8 { #expect(p[i].bitPattern == fastPower(plainLevels)[i].bitPattern) }
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
