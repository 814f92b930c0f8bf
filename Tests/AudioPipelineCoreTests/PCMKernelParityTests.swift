import Testing

@testable import AudioPipelineCore

/// The C kernels (`CVectorKernels/pcm.c`, AVX2 and AVX-512) against the Swift SIMD loops: bit-identical
/// outputs and identical clip/NaN counts on every special value, every length (the C kernels take
/// groups of 16 or 32, Swift the rest) and unaligned starts, at every width this CPU has. On a machine without AVX2 both sides are the
/// Swift code and the test still checks the portable path against itself and the scalar rule.
@Suite(.serialized) struct PCMKernelParity {
    /// Every C kernel width this CPU has (AVX-512, AVX2), then none (the Swift code on both sides).
    static var levels: [Int] { Array((0...PCMKernels.cpuLevel).reversed()) }

    /// Runs `body` with the C kernels capped at each level in turn.
    func atEveryLevel(_ body: (Int) -> Void) {
        defer { PCMKernels.capLevel(2) }
        for level in Self.levels {
            PCMKernels.capLevel(level)
            body(level)
        }
    }

    /// Special values, then values on and next to the rounding boundaries, then random ones.
    static func floats(_ count: Int, seed: UInt64) -> [Float] {
        let special: [Float] = [
            0, -0, 1, -1, 1.0000001, -1.0000001, 0.99999994, -0.99999994, .nan, -.nan, .infinity, -.infinity,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNormalMagnitude,
            0.5 / 32768, 1.5 / 32768, 2.5 / 32768, -0.5 / 32768, -1.5 / 32768, 32767.5 / 32768, -32768.5 / 32768,
            32766.5 / 32768, 1.0 / 32767, -1.0 / 32767, 2, -2, 1e30, -1e30,
        ]
        var g = SplitMix64(seed: seed)
        return (0..<count).map { k in
            if k < special.count { return special[k] }
            let u = Float(g.next() >> 40) / Float(1 << 24)
            switch g.next() % 10 {
            case 0: return special[Int(g.next() % UInt64(special.count))]
            case 1: return (u - 0.5) * 4  // often clipping
            case 2: return (Float(Int(g.next() % 65536)) - 32768 + 0.5) / 32768  // on a rounding tie
            default: return (u - 0.5) * 1.98
            }
        }
    }

    static let lengths = [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 100, 960, 961, 4099]

    @Test func float32ToInt16StandardAndIOS() {
        let input = Self.floats(5000, seed: 7)
        atEveryLevel { _ in runFloat32ToInt16(input) }
    }

    func runFloat32ToInt16(_ input: [Float]) {
        for n in Self.lengths {
            for offset in [0, 1, 3] where offset + n <= input.count {
                input.withUnsafeBufferPointer { b in
                    let src = b.baseAddress! + offset
                    var c = [Int16](repeating: 1, count: n + 1), s = c
                    let cc = c.withUnsafeMutableBufferPointer {
                        PCMKernels.floatToInt16Standard(src, $0.baseAddress!, n)
                    }
                    let sc = s.withUnsafeMutableBufferPointer {
                        PCMKernels.floatToInt16Standard(src, $0.baseAddress!, n, kernel: .portable)
                    }
                    #expect(c == s, "standard n=\(n) offset=\(offset)")
                    #expect(cc == sc, "standard counts n=\(n)")
                    let ci = c.withUnsafeMutableBufferPointer { PCMKernels.floatToInt16IOS(src, $0.baseAddress!, n) }
                    let si = s.withUnsafeMutableBufferPointer {
                        PCMKernels.floatToInt16IOS(src, $0.baseAddress!, n, kernel: .portable)
                    }
                    #expect(c == s, "ios n=\(n) offset=\(offset)")
                    #expect(ci == si, "ios counts n=\(n)")
                    // The iOS rule itself, sample by sample.
                    for k in 0..<n { #expect(c[k] == Int16(max(-1.0, min(1.0, src[k])) * 32767), "ios \(src[k])") }
                    #expect(c[n] == 1 && s[n] == 1, "wrote past the end")
                }
            }
        }
    }

    @Test func standardMatchesItsScalarRule() {
        let input = Self.floats(3000, seed: 11)
        var out = [Int16](repeating: 0, count: input.count)
        let counts = input.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer {
                PCMKernels.floatToInt16Standard(b.baseAddress!, $0.baseAddress!, b.count)
            }
        }
        var clipped = 0, nans = 0
        for (k, x) in input.enumerated() {
            if x.isNaN {
                nans += 1
                #expect(out[k] == 0)
            } else {
                if x > 1 || x < -1 { clipped += 1 }
                #expect(out[k] == Int16(min(max(x * 32768, -32768), 32767).rounded(.toNearestOrEven)), "\(x)")
            }
        }
        #expect(counts.clipped == clipped && counts.nan == nans)
    }

    /// Dithered conversion of `input` from sample `position` of seed 99's noise, in blocks of the sizes
    /// `blocks` (cycled): output and clip/NaN counts.
    static func dither(
        _ input: [Float], from position: UInt64 = 0, kernel: VectorKernel, blocks: [Int]
    ) -> (out: [Int16], clipped: Int, nan: Int) {
        var noise = TPDFNoise(seed: 99, position: position)
        var out = [Int16](repeating: 0, count: input.count)
        var at = 0, clipped = 0, nans = 0, b = 0
        input.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                while at < input.count {
                    let n = min(blocks[b % blocks.count], input.count - at)
                    let c = PCMKernels.floatToInt16Dithered(
                        src.baseAddress! + at, dst.baseAddress! + at, n, &noise, kernel: kernel)
                    (clipped, nans, at, b) = (clipped + c.clipped, nans + c.nan, at + n, b + 1)
                }
            }
        }
        #expect(noise.position == position &+ UInt64(input.count), "the noise advanced by what was converted")
        return (out, clipped, nans)
    }

    /// The scalar rule of dithered conversion with `TPDFNoise.noise`, sample by sample.
    static func expectDitherRule(_ input: [Float], _ out: [Int16], from position: UInt64) {
        let key = TPDFNoise(seed: 99).key
        for (k, x) in input.enumerated() {
            let d = TPDFNoise.noise(position &+ UInt64(k), key: key)
            let rule = x.isNaN ? 0 : Int16(min(max(x * 32768 + d, -32768), 32767).rounded(.toNearestOrEven))
            #expect(out[k] == rule, "sample \(k) from \(position): x = \(x), noise \(d)")
        }
    }

    /// The C kernels at every width against the Swift loops and the scalar rule, from even and odd
    /// positions and from where the pair counter's 32-bit parts wrap (2^32 and 2^33 pairs).
    @Test func ditherAtEveryLevelMatchesTheSwiftLoopsAndTheRule() {
        let input = Self.floats(3000, seed: 5)
        for position: UInt64 in [0, 1, 17, (1 << 33) - 21, (1 << 34) - 40, 1 << 40 | 3] {
            let reference = Self.dither(input, from: position, kernel: .portable, blocks: [input.count])
            Self.expectDitherRule(input, reference.out, from: position)
            atEveryLevel { level in
                for blocks in [[input.count], [960], [1, 15, 16, 17, 33]] {
                    let r = Self.dither(input, from: position, kernel: .best, blocks: blocks)
                    #expect(r.out == reference.out, "level \(level) from \(position) in \(blocks)")
                    #expect(r.clipped == reference.clipped && r.nan == reference.nan, "level \(level) counts")
                }
            }
        }
    }

    /// Chunk invariance as a property: random chunkings (any sizes, odd ones too) at every level give
    /// the output of one call, bit for bit, with the same counts.
    @Test func ditherIsTheSameNoiseForAnyChunking() {
        let input = Self.floats(5000, seed: 13)
        let reference = Self.dither(input, kernel: .portable, blocks: [input.count])
        var g = SplitMix64(seed: 21)
        atEveryLevel { level in
            for trial in 0..<12 {
                let limit = [2, 20, 70, 1100][trial % 4]
                let blocks = (0..<64).map { _ in 1 + Int(g.next() % UInt64(limit)) }
                for kernel in [VectorKernel.best, .portable] {
                    let r = Self.dither(input, kernel: kernel, blocks: blocks)
                    #expect(r.out == reference.out, "level \(level) \(kernel) blocks \(blocks)")
                    #expect(r.clipped == reference.clipped && r.nan == reference.nan, "level \(level) counts")
                }
            }
        }
    }

    @Test func int16ToFloat32BothConventions() {
        var g = SplitMix64(seed: 3)
        let input: [Int16] =
            [0, 1, -1, .max, .min, 16384, -16384] + (0..<5000).map { _ in Int16(truncatingIfNeeded: g.next()) }
        atEveryLevel { _ in runInt16ToFloat32(input) }
    }

    func runInt16ToFloat32(_ input: [Int16]) {
        for n in Self.lengths where n <= input.count {
            input.withUnsafeBufferPointer { b in
                var c = [Float](repeating: 7, count: n + 1), s = c
                c.withUnsafeMutableBufferPointer { PCMKernels.int16ToFloatStandard(b.baseAddress!, $0.baseAddress!, n) }
                s.withUnsafeMutableBufferPointer {
                    PCMKernels.int16ToFloatStandard(b.baseAddress!, $0.baseAddress!, n, kernel: .portable)
                }
                #expect(c.map(\.bitPattern) == s.map(\.bitPattern), "standard n=\(n)")
                #expect((0..<n).allSatisfy { c[$0] == Float(input[$0]) / 32768 })
                c.withUnsafeMutableBufferPointer { PCMKernels.int16ToFloatIOS(b.baseAddress!, $0.baseAddress!, n) }
                s.withUnsafeMutableBufferPointer {
                    PCMKernels.int16ToFloatIOS(b.baseAddress!, $0.baseAddress!, n, kernel: .portable)
                }
                #expect(c.map(\.bitPattern) == s.map(\.bitPattern), "ios n=\(n)")
                #expect((0..<n).allSatisfy { c[$0] == Float(input[$0]) / 32767 })
                #expect(c[n] == 7, "wrote past the end")
            }
        }
    }

    @Test func stereoMean() {
        let input = Self.floats(2 * 3000, seed: 9)
        atEveryLevel { _ in runStereoMean(input) }
    }

    func runStereoMean(_ input: [Float]) {
        for frames in Self.lengths where 2 * frames <= input.count {
            input.withUnsafeBufferPointer { b in
                var c = [Float](repeating: 7, count: frames + 1), s = c
                c.withUnsafeMutableBufferPointer { ChannelMixer.stereoMean(b.baseAddress!, $0.baseAddress!, frames) }
                s.withUnsafeMutableBufferPointer {
                    ChannelMixer.stereoMean(b.baseAddress!, $0.baseAddress!, frames, kernel: .portable)
                }
                #expect(c.map(\.bitPattern) == s.map(\.bitPattern), "frames=\(frames)")
                #expect(c[frames] == 7)
            }
        }
    }

    @Test func theKernelsAreUsedWhereTheCPUHasThem() {
        // A CPU whose resampler kernels run AVX2 has what the PCM kernels need (AVX2 alone).
        if VectorKernel.bestDescription.contains("AVX2") { #expect(PCMKernels.vectorized && PCMKernels.cpuLevel >= 1) }
    }
}
