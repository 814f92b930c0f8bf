import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// The iOS client code, verbatim in behaviour (reference 001): the oracle for `--compat ios`.
private func iosCapture(_ x: Float) -> Int16 { Int16(max(-1.0, min(1.0, x)) * Float(Int16.max)) }
private func iosPlayback(_ x: Int16) -> Float { Float(x) / Float(Int16.max) }

private func toInt16(_ xs: [Float], _ config: Float32ToInt16Converter.Configuration = .init()) throws -> (
    out: [Int16], clipped: Int, nan: Int
) {
    var c = try Float32ToInt16Converter(config)
    let out = c.processAll(xs)
    return (out, c.clippedCount, c.nanCount)
}

/// Places `value` at every position 0..<17 of a zero buffer so both the 8-wide vector loop and the
/// scalar tail are exercised, and checks each conversion.
private func expectEverywhere(_ value: Float, _ expected: Int16, mode: PCMCompatibility = .standard) throws {
    for len in [1, 7, 8, 9, 16, 17] {
        for pos in 0..<len {
            var xs = [Float](repeating: 0, count: len)
            xs[pos] = value
            let (out, _, _) = try toInt16(xs, .init(compatibility: mode))
            #expect(out[pos] == expected, "\(value) at \(pos) of \(len) in \(mode)")
        }
    }
}

@Suite struct Float32ToInt16Standard {
    /// (input, expected): saturation, rounding (ties to even), NaN and infinities.
    static let cases: [(Float, Int16)] = {
        var c: [(Float, Int16)] = [(0, 0), (1, 32767), (-1, -32768), (0.5, 16384), (-0.5, -16384)]
        c += [(1.0 / 65536, 0), (3.0 / 65536, 2), (-3.0 / 65536, -2), (5.0 / 65536, 2)]
        c += [(32767.0 / 32768, 32767), (2, 32767), (-2, -32768), (1e30, 32767), (-1e30, -32768)]
        c += [(Float.infinity, 32767), (-Float.infinity, -32768), (Float.nan, 0), (-Float.nan, 0)]
        c += [(Float(bitPattern: 0x7FA0_0001), 0), (0.000_01, 0), (0.1, 3277), (-0.1, -3277)]
        return c
    }()

    @Test(arguments: cases)
    func exactValues(value: Float, expected: Int16) throws {
        try expectEverywhere(value, expected)
    }

    @Test func countsClippedAndNaN() throws {
        let xs: [Float] = [
            0, 1, -1, 1.0001, -1.0001, .infinity, -.infinity, .nan, 0.5, 3, .nan, -7, 0.99, 1.5, 0, 0, 2,
        ]
        let (_, clipped, nan) = try toInt16(xs)
        let expectedClipped = xs.filter { !$0.isNaN && abs($0) > 1 }.count
        #expect(clipped == expectedClipped)
        #expect(nan == 2)
    }

    @Test func pcm16RoundTripIsIdentity() throws {
        let all = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        var back = Int16ToFloat32Converter()
        let floats = back.processAll(all)
        #expect(floats.allSatisfy { $0 >= -1 && $0 < 1 })
        let (again, clipped, _) = try toInt16(floats)
        #expect(firstDifference(again, all) == nil)
        #expect(clipped == 0)
    }

    @Test func roundTripErrorIsAtMostHalfAnLSB() throws {
        var rng = TestRNG(seed: 7)
        let xs = (0..<100_000).map { _ in Float.random(in: -1...(32767.0 / 32768), using: &rng) }
        let (q, _, _) = try toInt16(xs)
        var back = Int16ToFloat32Converter()
        let ys = back.processAll(q)
        let worst = zip(xs, ys).map { abs($0 - $1) }.max()!
        #expect(worst <= 0.5 / 32768 + 1e-9)
    }

    @Test func matchesScalarDefinitionOnRandomInput() throws {
        var rng = TestRNG(seed: 11)
        let xs: [Float] = (0..<50_003).map { _ in Float.random(in: -1.3...1.3, using: &rng) }
        let (q, _, _) = try toInt16(xs)
        for (x, y) in zip(xs, q) {
            let expected = Int16(min(max(Double(x) * 32768, -32768), 32767).rounded(.toNearestOrEven))
            #expect(y == expected)
        }
    }
}

@Suite struct IOSCompatibility {
    /// (input, expected) for the iOS code's ×32767-and-truncate.
    static let cases: [(Float, Int16)] = {
        var c: [(Float, Int16)] = [(1, 32767), (-1, -32767), (0.99999, 32766), (-0.99999, -32766), (0.5, 16383)]
        c += [(2, 32767), (-2, -32767), (Float.infinity, 32767), (-Float.infinity, -32767), (Float.nan, 32767)]
        c += [(1.0 / 32767, 1), (0.9 / 32767, 0), (-0.9 / 32767, 0)]
        return c
    }()

    @Test(arguments: cases)
    func exactValues(value: Float, expected: Int16) throws {
        #expect(value.isNaN || iosCapture(value) == expected, "the oracle itself agrees")
        try expectEverywhere(value, expected, mode: .ios)
    }

    @Test func captureMatchesTheIOSCodeBitForBit() throws {
        var rng = TestRNG(seed: 3)
        var xs: [Float] = (0..<200_001).map { _ in Float.random(in: -1.2...1.2, using: &rng) }
        // Every representable small multiple of 1/32767 and its neighbours, where truncation bites.
        for k in stride(from: -32767, through: 32767, by: 97) {
            let v = Float(k) / 32767
            xs += [v, v.nextUp, v.nextDown]
        }
        xs += [.nan, .infinity, -.infinity, 0, -0.0, 1, -1]
        let (q, _, _) = try toInt16(xs, .init(compatibility: .ios))
        for (x, y) in zip(xs, q) { #expect(y == iosCapture(x), "x = \(x)") }
    }

    @Test func playbackMatchesTheIOSCodeBitForBit() {
        let all = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        var c = Int16ToFloat32Converter(compatibility: .ios)
        let ys = c.processAll(all)
        for (x, y) in zip(all, ys) { #expect(y.bitPattern == iosPlayback(x).bitPattern) }
        #expect(ys[0] == -32768.0 / 32767)
    }

    @Test func ditherIsRefusedInIOSMode() {
        #expect(throws: AudioPipelineError.self) {
            _ = try Float32ToInt16Converter(.init(compatibility: .ios, dither: .tpdf(seed: 1)))
        }
    }
}

@Suite struct TPDFDither {
    @Test func staysWithinTheDitherBoundAndIsUnbiased() throws {
        var rng = TestRNG(seed: 5)
        let xs = (0..<100_000).map { _ in Float.random(in: -0.9...0.9, using: &rng) }
        let (q, _, _) = try toInt16(xs, .init(dither: .tpdf(seed: 42)))
        let errors = zip(xs, q).map { Double($1) - Double($0) * 32768 }
        #expect(errors.allSatisfy { abs($0) <= 1.5 + 1e-6 })  // ±1 LSB TPDF + ½ LSB rounding
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(abs(mean) < 0.01)
        // TPDF + rounding gives error variance 1/6 + 1/12 = 0.25 LSB² (vs 1/12 undithered).
        let variance = errors.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(errors.count)
        #expect(abs(variance - 0.25) < 0.02)
    }

    @Test func isRepeatableForASeedAndDiffersAcrossSeeds() throws {
        let xs = (0..<10_000).map { Float($0 % 200) / 1000 - 0.1 }
        let a = try toInt16(xs, .init(dither: .tpdf(seed: 1))).out
        let b = try toInt16(xs, .init(dither: .tpdf(seed: 1))).out
        let c = try toInt16(xs, .init(dither: .tpdf(seed: 2))).out
        #expect(a == b)
        #expect(a != c)
    }

    @Test func decorrelatesAQuietToneFromTheQuantiser() throws {
        // A −100 dBFS DC level rounds to 0 everywhere without dither; with dither the mean survives.
        let level: Float = 0.3 / 32768
        let xs = [Float](repeating: level, count: 100_000)
        #expect(try toInt16(xs).out.allSatisfy { $0 == 0 })
        let d = try toInt16(xs, .init(dither: .tpdf(seed: 9))).out
        let mean = Double(d.map { Int($0) }.reduce(0, +)) / Double(d.count)
        #expect(abs(mean - 0.3) < 0.02)
    }
}

/// The dither noise itself (`TPDFNoise`): its distribution, its independence from sample to sample
/// and from seed to seed, and the vector draw against the scalar definition.
@Suite struct TPDFNoiseStatistics {
    static let count = 1 << 20

    static func samples(seed: UInt64, count: Int = count) -> [Double] {
        var noise = TPDFNoise(seed: seed)
        return (0..<count).map { _ in Double(noise.next()) }
    }

    static func correlation(_ a: ArraySlice<Double>, _ b: ArraySlice<Double>) -> Double {
        let n = Double(a.count)
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) {
            ab += (x - ma) * (y - mb)
            aa += (x - ma) * (x - ma)
            bb += (y - mb) * (y - mb)
        }
        return ab / (aa * bb).squareRoot()
    }

    @Test func isTriangularOnMinusOneToOneLSB() {
        let d = Self.samples(seed: 1)
        let n = Double(d.count)
        let mean = d.reduce(0, +) / n
        let variance = d.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / n
        // σ of the mean is 0.0004 LSB here, of the variance about 0.0001 LSB².
        #expect(abs(mean) < 0.003, "mean \(mean)")
        #expect(abs(variance - 1.0 / 6) < 0.002, "variance \(variance)")
        #expect(d.allSatisfy { abs($0) < 1 && ($0 * 256).rounded() == $0 * 256 }, "steps of 1/256 inside (-1, 1)")
        // The triangle's shape: P(|d| < ½) = ¾ and P(d > ½) = P(d < -½) = ⅛ (steps of 1/256 shift these
        // by under 0.004).
        let inner = Double(d.filter { abs($0) < 0.5 }.count) / n
        let upper = Double(d.filter { $0 > 0.5 }.count) / n, lower = Double(d.filter { $0 < -0.5 }.count) / n
        #expect(abs(inner - 0.75) < 0.006 && abs(upper - 0.125) < 0.005 && abs(lower - 0.125) < 0.005)
    }

    @Test func neighboursAndSeedsAreUncorrelated() {
        let d = Self.samples(seed: 2)
        // σ of a correlation over 2^20 samples is 0.001; lag 1 pairs the two halves of one hashed word.
        for lag in [1, 2, 3, 4, 8, 16, 32] {
            let r = Self.correlation(d.dropLast(lag), d.dropFirst(lag))
            #expect(abs(r) < 0.005, "lag \(lag): \(r)")
        }
        let other = Self.samples(seed: 3)
        #expect(other != d)
        #expect(abs(Self.correlation(d[...], other[...])) < 0.005, "seeds 2 and 3")
        // Nor are two seeds' streams shifted copies of one another (as they would be with a plain Weyl
        // counter, whose key only offsets it).
        for shift in 1...16 {
            #expect(abs(Self.correlation(d.dropFirst(shift).prefix(100_000), other.prefix(100_000))) < 0.02)
        }
    }

    @Test func theVectorDrawIsTheScalarDefinition() {
        for position: UInt64 in [0, 2, 1000, (1 << 33) - 16, (1 << 34) - 8] {
            var noise = TPDFNoise(seed: 5, position: position)
            var lanes = noise.lanes()
            for step in 0..<100 {
                let (a, b) = lanes.draw()
                for l in 0..<8 {
                    let k = position &+ UInt64(16 * step + l)
                    #expect(a[l] == TPDFNoise.noise(k, key: noise.key), "\(k)")
                    #expect(b[l] == TPDFNoise.noise(k + 8, key: noise.key), "\(k + 8)")
                }
            }
            noise.advance(1600)
            #expect(noise.position == position &+ 1600)
        }
    }
}

@Suite struct ConversionChunkInvariance {
    static let configs: [Float32ToInt16Converter.Configuration] = [
        .init(), .init(compatibility: .ios), .init(dither: .tpdf(seed: 77)),
    ]

    @Test(arguments: configs, [1, 3, 64, 4096])
    func floatToInt16(config: Float32ToInt16Converter.Configuration, maxBlock: Int) throws {
        var rng = TestRNG(seed: UInt64(maxBlock))
        var xs = (0..<20_011).map { _ in Float.random(in: -1.1...1.1, using: &rng) }
        xs[17] = .nan
        var whole = try Float32ToInt16Converter(config)
        let reference = whole.processAll(xs)
        var chunked = try Float32ToInt16Converter(config)
        let blocks = randomBlocks(total: xs.count, maxBlock: maxBlock, rng: &rng)
        #expect(firstDifference(runInBlocks(&chunked, xs, blocks: blocks), reference) == nil)
        #expect(chunked.clippedCount == whole.clippedCount)
        #expect(chunked.nanCount == whole.nanCount)
    }

    @Test(arguments: PCMCompatibility.allCases, [1, 5, 960])
    func int16ToFloat(mode: PCMCompatibility, maxBlock: Int) {
        var rng = TestRNG(seed: 99)
        let xs = (0..<10_007).map { _ in Int16.random(in: .min ... .max, using: &rng) }
        var whole = Int16ToFloat32Converter(compatibility: mode)
        let reference = whole.processAll(xs)
        var chunked = Int16ToFloat32Converter(compatibility: mode)
        #expect(
            firstDifference(
                runInBlocks(&chunked, xs, blocks: randomBlocks(total: xs.count, maxBlock: maxBlock, rng: &rng)),
                reference) == nil)
    }

    @Test func processTakesOnlyWhatFitsAndResetRestartsDither() throws {
        var c = try Float32ToInt16Converter(.init(dither: .tpdf(seed: 3)))
        let xs = [Float](repeating: 0.25, count: 100)
        var out = [Int16](repeating: 0, count: 40)
        let r = xs.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { c.process(i, into: $0) } }
        #expect(r == ProcessResult(consumed: 40, produced: 40))
        let first = out
        c.reset()
        _ = xs.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { c.process(i, into: $0) } }
        #expect(out == first)
    }
}
