import CVectorKernels
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

private func sine(_ n: Int, channels: Int = 1, step: Double = 0.031) -> [Float] {
    (0..<n * channels).map { i in Float(sinApprox(Double(i / channels) * step + Double(i % channels))) * 0.5 }
}

private func format(_ a: Int, _ b: Int, channels: Int = 1) throws -> ResamplingFormat {
    try ResamplingFormat(from: SampleRate(a), to: SampleRate(b), channels: channels)
}

/// The whole-file resampler (`PolyphaseResampler.Mode.multiStage`): a 2:1 half-band stage, then
/// the polyphase one. Its own design, so these are its own properties: exact length, chunk
/// invariance with every kernel, the same output from every kernel.
@Suite struct HalfBandCascadeTests {
    static let ratios: [(Int, Int)] = [(48000, 16000), (44100, 16000), (96000, 16000), (88200, 16000)]

    @Test func appliesToLargeDownsamplingRatiosWithAnEvenInputRate() throws {
        #expect(HalfBandCascadeResampler.applies(to: try format(48000, 16000)))
        #expect(HalfBandCascadeResampler.applies(to: try format(44100, 16000)))
        #expect(HalfBandCascadeResampler.applies(to: try format(96000, 16000)))
        #expect(!HalfBandCascadeResampler.applies(to: try format(48000, 8000)))  // output below 16 kHz
        #expect(!HalfBandCascadeResampler.applies(to: try format(48000, 24000)))
        #expect(!HalfBandCascadeResampler.applies(to: try format(44100, 22050)))
        #expect(!HalfBandCascadeResampler.applies(to: try format(16000, 24000)))
        #expect(!HalfBandCascadeResampler.applies(to: try format(24000, 48000)))
        #expect(!HalfBandCascadeResampler.applies(to: try format(11025, 4000)))  // odd input rate
        #expect(
            try PolyphaseResampler.make(format: try format(48000, 16000), mode: .multiStage) is HalfBandCascadeResampler
        )
        #expect(try PolyphaseResampler.make(format: try format(24000, 48000), mode: .multiStage) is PolyphaseResampler)
        #expect(try PolyphaseResampler.make(format: try format(48000, 16000), mode: .throughput) is PolyphaseResampler)
        #expect(throws: AudioPipelineError.self) { try HalfBandCascadeResampler(format: try format(16000, 24000)) }
    }

    @Test(arguments: ratios, PolyphaseResampler.Preset.allCases)
    func totalLengthFollowsTheRule(ratio: (Int, Int), preset: PolyphaseResampler.Preset) throws {
        let f = try format(ratio.0, ratio.1)
        let r = try HalfBandCascadeResampler(format: f, preset: preset)
        for n in [0, 1, 2, 3, 17, 441, 1000, 4801, 30_001] {
            r.reset()
            var stage: any Resampler = r
            #expect(stage.processAll(sine(n)).count == f.totalOutputFrames(forInputFrames: n), "n = \(n)")
        }
    }

    /// Random input block sizes (1…4096, with runs of 1) and random output room give the output of
    /// one call, bit for bit, with every kernel level (0 the portable C, 1 the 8-lane, 2 the
    /// 16-lane half-band kernel where the CPU has it; the second stage's kernels of that level).
    @Test(arguments: ratios, [0, 1, 2])
    func outputIsBitIdenticalWhateverTheChunking(ratio: (Int, Int), kernel: Int) throws {
        for channels in [1, 2] {
            let f = try format(ratio.0, ratio.1, channels: channels)
            let frames = 30_011
            let xs = sine(frames, channels: channels)
            var whole: any Resampler = try HalfBandCascadeResampler(format: f, preset: .high, kernelLevel: kernel)
            let reference = whole.processAll(xs)
            #expect(reference.count == f.totalOutputFrames(forInputFrames: frames) * channels)
            let chunked = try HalfBandCascadeResampler(format: f, preset: .high, kernelLevel: kernel)
            var rng = TestRNG(seed: UInt64(ratio.0 + ratio.1 + channels + kernel))
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

    /// The three half-band kernels give the same outputs bit for bit (the same chain of operations
    /// per output in every lane and tail), on any count, tap count and output stride.
    @Test func theHalfBandKernelsAgree() {
        var rng = TestRNG(seed: 34)
        let level = PolyphaseResampler.vectorKernelLevel
        for half in [1, 2, 7, 14, 16, 31] {
            for count in [1, 5, 16, 17, 63, 64, 65, 700, 1500] {
                for stride in [1, 2] {
                    let g = (0..<half).map { k in Float.random(in: -0.5...0.5, using: &rng) / Float(k + 1) }
                    let x = (0..<(2 * count + 4 * half + 4)).map { _ in Float.random(in: -1...1, using: &rng) }
                    var outs: [[Float]] = []
                    for kernel in 0...level {
                        var o = [Float](repeating: 0, count: count * stride)
                        x.withUnsafeBufferPointer { xb in
                            let centre = xb.baseAddress! + 2 * half
                            o.withUnsafeMutableBufferPointer { ob in
                                switch kernel {
                                case 2: cvk_halfband_w16(g, half, 0.5, centre, count, ob.baseAddress!, stride)
                                case 1: cvk_halfband_w8(g, half, 0.5, centre, count, ob.baseAddress!, stride)
                                default: cvk_halfband(g, half, 0.5, centre, count, ob.baseAddress!, stride)
                                }
                            }
                        }
                        outs.append(o)
                    }
                    // And the definition, in Double: the sum of the pairs and the centre.
                    for i in 0..<count {
                        var want = 0.5 * Double(x[2 * half + 2 * i])
                        for k in 0..<half {
                            want +=
                                Double(g[k])
                                * (Double(x[2 * half + 2 * i - 2 * k - 1]) + Double(x[2 * half + 2 * i + 2 * k + 1]))
                        }
                        #expect(abs(Double(outs[0][i * stride]) - want) < 1e-5)
                    }
                    for o in outs.dropFirst() {
                        #expect(firstDifference(o, outs[0]) == nil, "half \(half), count \(count)")
                    }
                }
            }
        }
    }

    /// One call takes a whole block when given `maxOutputCount(forInput:)`'s room, and the output
    /// is time-aligned with the single-stage resampler's (a different filter, the same signal).
    @Test(arguments: ratios)
    func oneCallTakesABlockAndTheOutputMatchesTheSingleStage(ratio: (Int, Int)) throws {
        let f = try format(ratio.0, ratio.1)
        let r = try HalfBandCascadeResampler(format: f)
        let xs = sine(65_536, step: 0.02)
        var out = [Float](repeating: 0, count: r.maxOutputCount(forInput: xs.count))
        let res = xs.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { r.process(i, into: $0) } }
        #expect(res.consumed == xs.count)
        var cascade: any Resampler = try HalfBandCascadeResampler(format: f)
        var single: any Resampler = try PolyphaseResampler(format: f)
        let a = cascade.processAll(xs), b = single.processAll(xs)
        #expect(a.count == b.count)
        // Away from the ends, the two designs agree to far below the signal (0.5 full scale).
        var worst: Float = 0
        for k in 200..<(a.count - 200) { worst = max(worst, abs(a[k] - b[k])) }
        #expect(worst < 1e-4, "worst difference \(worst)")
    }

    /// Fed 20 ms chunks, it takes each whole into `maxOutputCount`'s room and its output lags the
    /// input by at most `latency` frames (both stages, the second's 32-cycle blocks included).
    @Test(arguments: ratios)
    func outputLagsByAtMostItsLatency(ratio: (Int, Int)) throws {
        let f = try format(ratio.0, ratio.1)
        let r = try HalfBandCascadeResampler(format: f)
        let chunk = ratio.0 / 50
        let xs = sine(chunk)
        var out = [Float](repeating: 0, count: r.maxOutputCount(forInput: chunk))
        var fed = 0
        var produced = 0
        for _ in 0..<300 {
            let res = xs.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { r.process(i, into: $0) } }
            #expect(res.consumed == chunk)
            fed += res.consumed
            produced += res.produced
            #expect(produced >= f.totalOutputFrames(forInputFrames: fed) - r.latency)
        }
    }

    /// A throughput-mode resampler with two phases (24→16 kHz, the cascade's second stage at
    /// 48→16 kHz) computes phase-major blocks: the streaming output bit for bit, whatever the chunking.
    @Test(arguments: [1, 2])
    func twoPhaseThroughputModeEqualsStreaming(kernel: Int) throws {
        let f = try format(24000, 16000)
        let xs = sine(20_011)
        var streaming: any Resampler = try PolyphaseResampler(format: f, preset: .high, kernelLevel: kernel)
        let reference = streaming.processAll(xs)
        let t = try PolyphaseResampler(format: f, preset: .high, kernelLevel: kernel, mode: .throughput)
        #expect(t.holdBack == (t.isVectorized ? 16 : 0))
        var out: [Float] = []
        var buf = [Float](repeating: 0, count: 8192)
        var offset = 0
        var rng = TestRNG(seed: 7)
        while offset < xs.count {
            let size = min(Int.random(in: 1...3000, using: &rng), xs.count - offset)
            let r = xs[offset..<offset + size].withUnsafeBufferPointer { i in
                buf.withUnsafeMutableBufferPointer { t.process(i, into: $0) }
            }
            out += buf[0..<r.produced]
            offset += r.consumed
        }
        while true {
            let n = buf.withUnsafeMutableBufferPointer { t.finish(into: $0) }
            if n == 0 { break }
            out += buf[0..<n]
        }
        #expect(firstDifference(out, reference) == nil)
    }
}
