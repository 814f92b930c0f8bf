import CVectorKernels
import Testing

@testable import AudioPipelineCore

/// The VAD's eight-lane kernels (`CVectorKernels/vadlanes.c`): the one the CPU runs (AVX2 where it
/// has it) and the portable one give the bits of the Swift they stand for, written out below as it
/// was, over powers and levels across their range, the range's edges, zeros, negatives, NaN and
/// infinities (a lane out of range is reported, and `fastDB` and `fastPower` give libm's there);
/// and the ring predictor's third difference (float frames, eight samples a step).
@Suite struct VADLanesKernel {
    typealias Kernel = @convention(c) (UnsafePointer<Double>?, UnsafeMutablePointer<Double>?) -> Int32

    /// `fastDB` as it was in Swift, every lane by the series (the out-of-range ones from 1).
    static func levelsRule(_ p: SIMD8<Double>) -> SIMD8<Double> {
        let inRange = (p .>= 1e-14) .& (p .< .infinity)
        let x = p.replacing(with: 1, where: .!inRange)
        let bits = unsafeBitCast(x, to: SIMD8<UInt64>.self)
        let biased = unsafeBitCast((bits &>> 52) | 0x4330_0000_0000_0000, to: SIMD8<Double>.self)
        var exponent = biased - (4_503_599_627_370_496 + 1023)
        var m = unsafeBitCast((bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000, to: SIMD8<Double>.self)
        let high = m .> 1.414_213_562_373_095_1
        m.replace(with: m * 0.5, where: high)
        exponent.replace(with: exponent + 1, where: high)
        let t = (m - 1) / (m + 1)
        let t2 = t * t
        var series = t2 * (2.0 / 11)
        series = t2 * (series + 2.0 / 9)
        series = t2 * (series + 2.0 / 7)
        series = t2 * (series + 2.0 / 5)
        series = t2 * (series + 2.0 / 3)
        let ln = t * (series + 2)
        return 10 * (exponent * 0.301_029_995_663_981_2 + ln * 0.434_294_481_903_251_8)
    }

    /// `fastPower` as it was in Swift, every lane by the series (the out-of-range ones from 0 dB).
    static func powersRule(_ levels: SIMD8<Double>) -> SIMD8<Double> {
        let inRange = (levels .> -3000) .& (levels .< 3000)
        let d = levels.replacing(with: 0, where: .!inRange)
        let y = d * 0.332_192_809_488_736_2
        let shift = SIMD8<Double>(repeating: 6_755_399_441_055_744)
        var n = (y + shift) - shift
        n.replace(with: n - 1, where: n .> y)
        let z = (y - n) * 0.693_147_180_559_945_3
        let terms: [Double] = [
            1.0 / 39_916_800, 1.0 / 3_628_800, 1.0 / 362_880, 1.0 / 40_320, 1.0 / 5_040, 1.0 / 720, 1.0 / 120,
            1.0 / 24, 1.0 / 6, 0.5, 1, 1,
        ]
        var e = SIMD8<Double>(repeating: 1.0 / 479_001_600)
        for term in terms { e = e * z + SIMD8(repeating: term) }
        let integer = unsafeBitCast(n + shift, to: SIMD8<UInt64>.self) &- unsafeBitCast(shift, to: SIMD8<UInt64>.self)
        return e * unsafeBitCast((integer &+ 1023) &<< 52, to: SIMD8<Double>.self)
    }

    /// `VADEchoModel.withLeakage` (eight bands) as it was in Swift.
    static func leakageRule(
        gains: SIMD8<Double>, x: SIMD8<Double>, distant: [SIMD8<Double>], all: [SIMD8<Double>], margin: Double
    ) -> SIMD8<Double> {
        var echo = gains + x
        for k in 0..<8 {
            let gain = SIMD8(repeating: gains[k])
            let leaked = distant[k] + SIMD8(repeating: x[k])
            let part = x.replacing(with: leaked, where: leaked .< x)
            echo = laneMax(echo, part + gain)
            let mostlyLeak = x .< all[k] + SIMD8(repeating: x[k] - margin)
            echo = echo.replacing(with: x + gain, where: mostlyLeak .& (echo .< x + gain))
        }
        return echo
    }

    static func run(_ kernel: Kernel, _ input: SIMD8<Double>) -> (out: SIMD8<Double>, inRange: Int) {
        var out = SIMD8<Double>()
        let inRange = withUnsafeBytes(of: input) { i in
            withUnsafeMutableBytes(of: &out) { o in
                kernel(
                    i.baseAddress!.assumingMemoryBound(to: Double.self),
                    o.baseAddress!.assumingMemoryBound(to: Double.self))
            }
        }
        return (out, Int(inRange))
    }

    /// A value from `range` on a log or linear scale, or now and then an edge or a non-finite one.
    static func value(_ g: inout SplitMix64, edges: [Double], draw: (inout SplitMix64) -> Double) -> Double {
        Int.random(in: 0..<8, using: &g) == 0 ? edges.randomElement(using: &g)! : draw(&g)
    }

    @Test func levelsHaveTheRulesBits() {
        var g = SplitMix64(seed: 4_242)
        let edges: [Double] = [
            0, -1, 1e-14, 1e-14.nextDown, 1e-14.nextUp, .infinity, -.infinity, .nan, 1, 2, 2.0.squareRoot(),
            1.414_213_562_373_095_1, Double.greatestFiniteMagnitude, 1e-300, 4.9e-324,
        ]
        for _ in 0..<20_000 {
            var p = SIMD8<Double>()
            for b in 0..<8 {
                p[b] = Self.value(&g, edges: edges) { power(Double.random(in: -160...30, using: &$0)) }
            }
            let rule = Self.levelsRule(p)
            let fast = fastDB(p)
            for kernel: Kernel in [cvk_vad_lanes_db, cvk_vad_lanes_db_portable] {
                let (out, inRange) = Self.run(kernel, p)
                for b in 0..<8 {
                    let valid = p[b] >= 1e-14 && p[b] < .infinity
                    #expect((inRange >> b) & 1 == (valid ? 1 : 0))
                    if valid { #expect(out[b].bitPattern == rule[b].bitPattern) }
                }
            }
            for b in 0..<8 {
                let valid = p[b] >= 1e-14 && p[b] < .infinity
                let expected = valid ? rule[b] : db(p[b])
                #expect(fast[b].bitPattern == expected.bitPattern || (fast[b].isNaN && expected.isNaN))
            }
        }
    }

    @Test func powersHaveTheRulesBits() {
        var g = SplitMix64(seed: 4_343)
        let edges: [Double] = [
            0, -0.0, -3000, 3000, (-3000.0).nextUp, 3000.0.nextDown, -140, 20, .infinity, -.infinity, .nan, 1e-300,
        ]
        for _ in 0..<20_000 {
            var levels = SIMD8<Double>()
            for b in 0..<8 {
                levels[b] = Self.value(&g, edges: edges) { Double.random(in: -200...40, using: &$0) }
            }
            let rule = Self.powersRule(levels)
            let fast = fastPower(levels)
            for kernel: Kernel in [cvk_vad_lanes_power, cvk_vad_lanes_power_portable] {
                let (out, inRange) = Self.run(kernel, levels)
                for b in 0..<8 {
                    let valid = levels[b] > -3000 && levels[b] < 3000
                    #expect((inRange >> b) & 1 == (valid ? 1 : 0))
                    if valid { #expect(out[b].bitPattern == rule[b].bitPattern) }
                }
            }
            for b in 0..<8 {
                let valid = levels[b] > -3000 && levels[b] < 3000
                let expected = valid ? rule[b] : power(levels[b])
                #expect(fast[b].bitPattern == expected.bitPattern || (fast[b].isNaN && expected.isNaN))
            }
        }
    }

    /// The model's own tables, gains and levels across their range (ties between lanes, −140 dB
    /// silence and NaN among them).
    @Test func leakageHasTheRulesBits() {
        var g = SplitMix64(seed: 4_444)
        var model = VADEchoModel(configuration: VADConfiguration())
        let distant = model.distantLeakage
        let all = model.leakage
        let margin = VADEchoModel.neighbourMargin
        for _ in 0..<20_000 {
            var gains = SIMD8<Double>()
            var x = SIMD8<Double>()
            for b in 0..<8 {
                gains[b] = Self.value(&g, edges: [0, -20, .nan]) { Double.random(in: -60...10, using: &$0).rounded() }
                x[b] = Self.value(&g, edges: [-140, -60, .nan]) { Double.random(in: -140...0, using: &$0) }
            }
            let rule = Self.leakageRule(gains: gains, x: x, distant: distant, all: all, margin: margin)
            let swift = model.withLeakage(gains: gains, x: x)
            var portable = SIMD8<Double>()
            withUnsafeBytes(of: gains) { gb in
                withUnsafeBytes(of: x) { xb in
                    withUnsafeMutableBytes(of: &portable) { o in
                        distant.withUnsafeBytes { d in
                            all.withUnsafeBytes { a in
                                cvk_vad_leakage_portable(
                                    gb.baseAddress!.assumingMemoryBound(to: Double.self),
                                    xb.baseAddress!.assumingMemoryBound(to: Double.self),
                                    d.baseAddress!.assumingMemoryBound(to: Double.self),
                                    a.baseAddress!.assumingMemoryBound(to: Double.self), margin,
                                    o.baseAddress!.assumingMemoryBound(to: Double.self))
                            }
                        }
                    }
                }
            }
            for b in 0..<8 {
                #expect(swift[b].bitPattern == rule[b].bitPattern)
                #expect(portable[b].bitPattern == rule[b].bitPattern)
            }
        }
    }

    /// `VADRingPredictor.filter`'s third difference as it was in Swift: eight samples a step from
    /// sample 3 while eight remain, each lane's squares summed.
    static func thirdDifferenceRule(_ x: [Float]) -> (out: [Float], squares: SIMD8<Float>, next: Int) {
        var out = [Float](repeating: 0, count: x.count)
        var squares = SIMD8<Float>()
        var i = 3
        while i + 8 <= x.count {
            var x0 = SIMD8<Float>()
            var x1 = SIMD8<Float>()
            var x2 = SIMD8<Float>()
            var x3 = SIMD8<Float>()
            for l in 0..<8 {
                x0[l] = x[i + l]
                x1[l] = x[i + l - 1]
                x2[l] = x[i + l - 2]
                x3[l] = x[i + l - 3]
            }
            let y = x0 - 3 * x1 + 3 * x2 - x3
            for l in 0..<8 { out[i + l] = y[l] }
            squares += y * y
            i += 8
        }
        return (out, squares, i)
    }

    /// Frames of 3 to 200 samples (under eight past the first three among them), speech-like
    /// amplitudes, full scale, subnormals, NaN and infinities.
    @Test func thirdDifferenceHasTheRulesBits() {
        var g = SplitMix64(seed: 4_545)
        let edges: [Float] = [0, -0.0, 1, -1, .leastNonzeroMagnitude, 1e-30, .infinity, -.infinity, .nan, 3e38]
        for _ in 0..<5_000 {
            let n = Int.random(in: 3...200, using: &g)
            let x = (0..<n).map { _ in
                Int.random(in: 0..<50, using: &g) == 0
                    ? edges.randomElement(using: &g)! : Float.random(in: -1...1, using: &g)
            }
            let rule = Self.thirdDifferenceRule(x)
            for kernel in [cvk_ring_third_difference, cvk_ring_third_difference_portable] {
                var out = [Float](repeating: 0, count: n)
                var squares = [Float](repeating: 0, count: 8)
                let next = kernel(x, n, &out, &squares)
                #expect(next == rule.next)
                for i in 3..<next {
                    #expect(out[i].bitPattern == rule.out[i].bitPattern || (out[i].isNaN && rule.out[i].isNaN))
                }
                for l in 0..<8 {
                    let same = squares[l].bitPattern == rule.squares[l].bitPattern
                    #expect(same || (squares[l].isNaN && rule.squares[l].isNaN))
                }
            }
        }
    }

    /// The ring predictor's correlations as the Swift loop summed them before the kernel (the rule):
    /// two sums per lane, even and odd k, a product then its sum, added at the end.
    static func ringCorrelationsRule(_ y: [Float], h: Int, n: Int, lag: Int) -> VADRingCorrelations {
        func lanes(_ from: Int) -> SIMD8<Float> {
            var v = SIMD8<Float>()
            for j in 0..<8 { v[j] = y[from + j] }
            return v
        }
        var short0 = SIMD8<Float>()
        var long0 = SIMD8<Float>()
        var short1 = SIMD8<Float>()
        var long1 = SIMD8<Float>()
        var k = h
        while k + 1 < h + n {
            short0 += y[k] * lanes(k - 7)
            long0 += y[k] * lanes(k - lag - 7)
            short1 += y[k + 1] * lanes(k - 6)
            long1 += y[k + 1] * lanes(k - lag - 6)
            k += 2
        }
        if k < h + n {
            short0 += y[k] * lanes(k - 7)
            long0 += y[k] * lanes(k - lag - 7)
        }
        return VADRingCorrelations(short: short0 + short1, long: long0 + long1, floor: 0)
    }

    /// Frames of 1 to 330 samples (odd and even counts) after histories of lag + 8 samples, speech-like
    /// values, full scale, subnormals, NaN and infinities: both kernels give the rule's bits.
    @Test func ringCorrelationsHaveTheRulesBits() {
        var g = SplitMix64(seed: 4_646)
        let edges: [Float] = [0, -0.0, 1, -1, .leastNonzeroMagnitude, 1e-30, .infinity, -.infinity, .nan, 3e38]
        for _ in 0..<3_000 {
            let lag = Int.random(in: 1...64, using: &g)
            let h = lag + 8
            let n = Int.random(in: 1...330, using: &g)
            let y = (0..<(h + n)).map { _ in
                Int.random(in: 0..<80, using: &g) == 0
                    ? edges.randomElement(using: &g)! : Float.random(in: -1...1, using: &g)
            }
            let rule = Self.ringCorrelationsRule(y, h: h, n: n, lag: lag)
            for kernel in [cvk_ring_correlations, cvk_ring_correlations_portable] {
                var shortLags = [Float](repeating: 7, count: 8)
                var longLags = [Float](repeating: 7, count: 8)
                kernel(y, h, n, lag, &shortLags, &longLags)
                for j in 0..<8 {
                    let short = shortLags[j].bitPattern == rule.short[j].bitPattern
                    let long = longLags[j].bitPattern == rule.long[j].bitPattern
                    #expect(short || (shortLags[j].isNaN && rule.short[j].isNaN), "lag \(lag), n \(n), lane \(j)")
                    #expect(long || (longLags[j].isNaN && rule.long[j].isNaN), "lag \(lag), n \(n), lane \(j)")
                }
            }
        }
    }
}
