import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

private func sine(_ n: Int, channels: Int = 1, step: Double = 0.031) -> [Float] {
    (0..<n * channels).map { i in Float(sinApprox(Double(i / channels) * step + Double(i % channels))) * 0.5 }
}

private func format(_ a: Int, _ b: Int, channels: Int = 1) throws -> ResamplingFormat {
    try ResamplingFormat(from: SampleRate(a), to: SampleRate(b), channels: channels)
}

@Suite struct PolyphaseResamplerTests {
    static let ratios: [(Int, Int)] = [
        (48000, 16000), (16000, 24000), (24000, 48000), (44100, 16000), (8000, 48000), (48000, 8000),
    ]
    /// Ratios with many phases both ways (L = 160, M = 147; L = 441, M = 80), where throughput mode
    /// holds whole blocks of 1280 and 3528 outputs back.
    static let manyPhases: [(Int, Int)] = [(44100, 48000), (8000, 44100)]

    @Test(arguments: ratios, PolyphaseResampler.Preset.allCases)
    func totalLengthFollowsTheRule(ratio: (Int, Int), preset: PolyphaseResampler.Preset) throws {
        let f = try format(ratio.0, ratio.1)
        let r = try PolyphaseResampler(format: f, preset: preset)
        for n in [0, 1, 2, 3, 17, 441, 1000, 4801] {
            r.reset()
            var stage: any Resampler = r
            #expect(stage.processAll(sine(n)).count == f.totalOutputFrames(forInputFrames: n), "n = \(n)")
        }
    }

    static let kernelModes: [(Int, PolyphaseResampler.Mode)] = [
        (0, .streaming), (1, .streaming), (2, .streaming), (1, .throughput), (2, .throughput),
    ]

    /// Random input block sizes (1…4096, with runs of 1) and random output room: bit-identical to
    /// one call in streaming mode, with every kernel (level 0 Swift, 1 the 8-lane C, 2 the 16-lane C
    /// where the CPU has it; a level above the CPU's runs the widest it has) and in both modes
    /// (throughput mode holds outputs back and computes them phase by phase, the same sums).
    @Test(arguments: ratios + manyPhases, kernelModes)
    func outputIsBitIdenticalWhateverTheChunking(ratio: (Int, Int), kernel: (Int, PolyphaseResampler.Mode)) throws {
        for channels in [1, 2] {
            let f = try format(ratio.0, ratio.1, channels: channels)
            let frames = 30_011
            let xs = sine(frames, channels: channels)
            var whole: any Resampler = try PolyphaseResampler(format: f, preset: .high, kernelLevel: kernel.0)
            let reference = whole.processAll(xs)
            let chunked = try PolyphaseResampler(format: f, preset: .high, kernelLevel: kernel.0, mode: kernel.1)
            var rng = TestRNG(seed: UInt64(ratio.0 + ratio.1 + channels))
            var out: [Float] = []
            var offset = 0
            var buf = [Float](repeating: 0, count: 40_000 * channels)
            while offset < frames {
                let size = min(Bool.random(using: &rng) ? 1 : Int.random(in: 1...4096, using: &rng), frames - offset)
                var done = 0
                while done < size {
                    let room = Int.random(in: 1...chunked.maxOutputCount(forInput: size), using: &rng)
                    let r = xs[(offset + done) * channels..<(offset + size) * channels].withUnsafeBufferPointer { i in
                        buf.withUnsafeMutableBufferPointer {
                            chunked.process(i, into: UnsafeMutableBufferPointer(rebasing: $0[0..<room * channels]))
                        }
                    }
                    out += buf[0..<r.produced * channels]
                    done += r.consumed
                }
                offset += size
            }
            while true {
                let n = buf.withUnsafeMutableBufferPointer {
                    chunked.finish(into: UnsafeMutableBufferPointer(rebasing: $0[0..<7 * channels]))
                }
                if n == 0 { break }
                out += buf[0..<n * channels]
            }
            #expect(firstDifference(out, reference) == nil, "\(channels) ch")
        }
    }

    @Test func theVectorKernelsRunWhereTheCPUHasThem() throws {
        // On this project's x86-64 machines (AVX2 + FMA) the tests here must exercise the C kernels.
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            info.contains("AuthenticAMD") || info.contains("GenuineIntel")
        else { return }
        let has = info.contains(" avx2") && info.contains(" fma")
        let wide = has && info.contains(" avx512f")
        #expect(PolyphaseResampler.vectorKernelsAvailable == has)
        let best = try PolyphaseResampler(format: format(48000, 16000))
        #expect(best.isVectorized == has)
        #expect(best.isWide == wide)
        #expect(best.tapsPerPhase % (wide ? 16 : 8) == 0)
        #expect(try PolyphaseResampler(format: format(48000, 16000), kernel: .portable).isVectorized == false)
        #expect(try PolyphaseResampler(format: format(48000, 16000), preset: .high, kernelLevel: 1).isWide == false)
    }

    /// The 16-lane (AVX-512) and 8-lane (AVX2/FMA) kernels and the Swift ones compute the same
    /// filter: equal to float rounding (fused multiply-adds round once, the Swift code twice; the
    /// lane count changes the summation order), on every kind of ratio, 1 and 2 channels.
    @Test(arguments: ratios, PolyphaseResampler.Preset.allCases)
    func allKernelsAgree(ratio: (Int, Int), preset: PolyphaseResampler.Preset) throws {
        for channels in [1, 2] {
            let f = try format(ratio.0, ratio.1, channels: channels)
            let xs = sine(9_001, channels: channels)
            var portable: any Resampler = try PolyphaseResampler(format: f, preset: preset, kernel: .portable)
            let b = portable.processAll(xs)
            for level in [1, 2] {
                var vector: any Resampler = try PolyphaseResampler(format: f, preset: preset, kernelLevel: level)
                let a = vector.processAll(xs)
                #expect(a.count == b.count)
                let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
                #expect(worst < 2e-6, "\(ratio) \(preset) \(channels) ch, level \(level): \(worst)")
            }
        }
    }

    /// Throughput mode, fed 20 ms chunks with the room `maxOutputCount` promises: every call takes
    /// the whole chunk, and the output lags the input by at most `latency` frames (which counts the
    /// held-back block: 8 cycles of 160 outputs at 44.1→16 kHz where the phase-major path runs).
    @Test(arguments: [(44100, 16000), (16000, 24000), (48000, 16000)])
    func throughputModeKeepsItsLatencyBound(ratio: (Int, Int)) throws {
        let f = try format(ratio.0, ratio.1)
        let r = try PolyphaseResampler(format: f, mode: .throughput)
        let streaming = try PolyphaseResampler(format: f)
        if r.isVectorized && f.upFactor > 2 {
            #expect(r.latency == streaming.latency + 8 * f.upFactor)
        } else {
            #expect(r.latency == streaming.latency)
        }
        let chunk = ratio.0 / 50
        let xs = sine(chunk)
        var out = [Float](repeating: 0, count: r.maxOutputCount(forInput: chunk))
        var fed = 0, produced = 0, lagged = false
        for _ in 0..<40 {
            let res = xs.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { r.process(i, into: $0) } }
            #expect(res.consumed == chunk)
            fed += res.consumed
            produced += res.produced
            #expect(produced >= f.totalOutputFrames(forInputFrames: fed) - r.latency)
            lagged = lagged || produced < f.totalOutputFrames(forInputFrames: fed) - streaming.latency
        }
        // Where it holds back, it does lag more than streaming at some point (the test sees the mode).
        #expect(lagged == (r.latency > streaming.latency))
    }

    @Test func maxOutputCountLetsOneCallTakeEverything() throws {
        let r = try PolyphaseResampler(format: format(16000, 48000))
        let xs = sine(960)
        var out = [Float](repeating: 0, count: r.maxOutputCount(forInput: 960))
        let res = xs.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { r.process(i, into: $0) } }
        #expect(res.consumed == 960)
        var tail = [Float](repeating: 0, count: r.maxOutputCount(forInput: 0))
        let n = tail.withUnsafeMutableBufferPointer { r.finish(into: $0) }
        #expect(res.produced + n == 2880)
    }

    @Test func resetStartsANewStream() throws {
        let r = try PolyphaseResampler(format: format(44100, 16000))
        var stage: any Resampler = r
        let a = stage.processAll(sine(5000))
        stage.reset()
        #expect(stage.processAll(sine(5000)) == a)
    }

    /// Delay-compensated: an impulse at t = 0.1 s comes out centred at t = 0.1 s.
    @Test(arguments: [(48000, 16000), (16000, 24000), (24000, 48000), (8000, 48000)])
    func outputIsTimeAligned(ratio: (Int, Int)) throws {
        var xs = [Float](repeating: 0, count: ratio.0 / 5)
        xs[ratio.0 / 10] = 1
        var r: any Resampler = try PolyphaseResampler(format: format(ratio.0, ratio.1))
        let out = r.processAll(xs)
        let peak = out.indices.max { abs(out[$0]) < abs(out[$1]) }!
        #expect(peak == ratio.1 / 10)
    }

    @Test(arguments: PolyphaseResampler.Preset.allCases)
    func passesDCWithUnitGain(preset: PolyphaseResampler.Preset) throws {
        for ratio in Self.ratios {
            var r: any Resampler = try PolyphaseResampler(format: format(ratio.0, ratio.1), preset: preset)
            let out = r.processAll([Float](repeating: 0.5, count: 20_000))
            let middle = out[out.count / 4..<out.count * 3 / 4]
            #expect(middle.allSatisfy { abs($0 - 0.5) < 1e-5 }, "\(ratio)")
        }
    }

    @Test func fastHasLessLatencyThanHigh() throws {
        let f = try format(48000, 16000)
        let high = try PolyphaseResampler(format: f, preset: .high),
            fast = try PolyphaseResampler(format: f, preset: .fast)
        #expect(fast.latency < high.latency)
        #expect(fast.tapsPerPhase < high.tapsPerPhase)
        #expect(Double(high.latency) / 16000 <= 0.003)
    }

    @Test func refusesARatioThatNeedsAnAbsurdFilter() throws {
        #expect(throws: AudioPipelineError.self) { _ = try PolyphaseResampler(format: format(768_000, 767_999)) }
    }
}

@Suite struct KaiserDesignTests {
    @Test func besselI0MatchesKnownValues() {
        #expect(abs(KaiserFilterDesign.besselI0(0) - 1) < 1e-15)
        #expect(abs(KaiserFilterDesign.besselI0(1) - 1.266_065_877_752_008_4) < 1e-12)
        #expect(abs(KaiserFilterDesign.besselI0(10) - 2815.716_628_466_254) / 2815.7 < 1e-12)
    }

    @Test func lowPassIsSymmetricWithTheRequestedGain() {
        let h = KaiserFilterDesign.lowPass(half: 50, cutoff: 0.1, beta: 8, gain: 3)
        #expect(h.count == 101)
        for i in 0..<50 { #expect(abs(h[i] - h[100 - i]) < 1e-15) }
        #expect(abs(h.reduce(0, +) - 3) < 1e-12)
    }
}
