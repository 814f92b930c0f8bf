import AudioPipelineAdapters
import AudioPipelineCore
import Testing
import _AudioPipelineTestSupport

/// The FFT convolver against the direct sum, whatever the block sizes (the session simulator's
/// echo path through a measured impulse response).
@Suite struct Convolver {
    @Test(arguments: [1, 100, 256, 257, 1000])
    func equalsTheDirectSumLatencyBlocksLate(responseLength: Int) throws {
        var rng = TestRNG(seed: UInt64(responseLength))
        let h = (0..<responseLength).map { _ in Float.random(in: -1...1, using: &rng) / Float(responseLength) }
        let x = (0..<5_000).map { _ in Float.random(in: -1...1, using: &rng) }
        let c = FFTWConvolver(impulseResponse: h, block: 64)
        var y = [Float](repeating: 0, count: x.count)
        var at = 0
        for n in randomBlocks(total: x.count, maxBlock: 300, rng: &rng) {
            x.withUnsafeBufferPointer { xs in
                y.withUnsafeMutableBufferPointer { ys in
                    c.process(
                        UnsafeBufferPointer(rebasing: xs[at..<(at + n)]),
                        into: UnsafeMutableBufferPointer(rebasing: ys[at..<(at + n)]))
                }
            }
            at += n
        }
        var worst: Float = 0
        for n in 0..<x.count {
            var direct: Float = 0
            let m = n - c.latency
            for k in 0..<h.count where m - k >= 0 { direct += h[k] * x[m - k] }
            worst = max(worst, abs(direct - y[n]))
        }
        #expect(worst < 1e-5, "largest difference \(worst)")
    }

    /// After `reset` the convolver gives what a new one gives, mid-block or not.
    @Test func resetEqualsANewConvolver() {
        var rng = TestRNG(seed: 9)
        let h = (0..<300).map { _ in Float.random(in: -1...1, using: &rng) / 300 }
        let x = (0..<2_000).map { _ in Float.random(in: -1...1, using: &rng) }
        func run(_ c: FFTWConvolver, _ n: Int) -> [Float] {
            var y = [Float](repeating: 0, count: n)
            x.withUnsafeBufferPointer { xs in
                y.withUnsafeMutableBufferPointer { c.process(UnsafeBufferPointer(rebasing: xs[0..<n]), into: $0) }
            }
            return y
        }
        let used = FFTWConvolver(impulseResponse: h, block: 64)
        let first = run(used, 1_000 + 17)  // ends mid-block
        used.reset()
        let fresh = run(FFTWConvolver(impulseResponse: h, block: 64), x.count)
        #expect(run(used, x.count) == fresh)
        #expect(first[..<1_000] == fresh[..<1_000])
    }
}
