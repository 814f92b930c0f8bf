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

    /// The eight-lane `fastDB` and `fastPower` give each lane the one-value version's bits (the
    /// VAD's decisions with a reference were scored with those), over the levels the VAD meets, the
    /// mantissa's ends, and vectors with a lane the fast path does not take (all lanes then go the
    /// one-value way).
    @Test func eightLanesGiveTheOneValueBits() {
        var rng = TestRNG(seed: 29)
        for _ in 0..<5_000 {
            var levels = SIMD8<Double>()
            for i in 0..<8 { levels[i] = Double.random(in: -160...40, using: &rng) }
            let powers = SIMD8<Double>(levels.indices.map { Double.exp10(levels[$0] / 10) })
            let d = fastDB(powers)
            let w = fastPower(levels)
            for i in 0..<8 {
                #expect(d[i].bitPattern == fastDB(powers[i]).bitPattern, "\(powers[i])")
                #expect(w[i].bitPattern == fastPower(levels[i]).bitPattern, "\(levels[i]) dB")
            }
        }
        // Integers and halves of y = d·log2(10)/10 (floor's edges), the mantissa's ends, and lanes
        // outside the fast path's range.
        let edges = SIMD8<Double>(
            0, 3.010_299_956_639_812, -3.010_299_956_639_812, 1.505_149_978_319_906, -1.505, 30, -140, -2999)
        let powers = SIMD8<Double>(1, 2, 0.5, 1.414_213_562_373_095_1, 1.414_213_562_373_095_1.nextUp, 1e-14, 4, 0.25)
        let odd: [SIMD8<Double>] = [
            SIMD8(1, 2, 0, 4, 5, 6, 7, 8), SIMD8(1, 2, 3, .nan, 5, 6, 7, 8), SIMD8(1, .infinity, 3, 4, 5, 6, 7, 1e-20),
        ]
        for v in [edges, powers] + odd {
            for i in 0..<8 {
                #expect(fastPower(v)[i].bitPattern == fastPower(v[i]).bitPattern, "\(v[i]) dB")
                #expect(fastDB(v)[i].bitPattern == fastDB(v[i]).bitPattern, "\(v[i])")
            }
        }
        let levels = SIMD8<Double>(-.infinity, 3001, .nan, 0, 1, 2, 3, 4)
        for i in 0..<8 { #expect(fastPower(levels)[i].bitPattern == fastPower(levels[i]).bitPattern) }
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
