import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

@Suite struct ChannelMixerTests {
    @Test func stereoMeanIsHalfTheSum() throws {
        var rng = TestRNG(seed: 1)
        let xs = (0..<2 * 1001).map { _ in Float.random(in: -1...1, using: &rng) }
        var m = try ChannelMixer(channels: 2)
        let out = m.processAll(xs)
        #expect(out.count == 1001)
        for f in 0..<1001 { #expect(out[f] == (xs[2 * f] + xs[2 * f + 1]) * 0.5) }
    }

    @Test(arguments: [1, 3, 6])
    func meanOfNChannels(channels: Int) throws {
        let frames = 37
        let xs = (0..<frames * channels).map { Float($0 % 11) / 10 - 0.5 }
        var m = try ChannelMixer(channels: channels)
        let out = m.processAll(xs)
        for f in 0..<frames {
            let expected = xs[f * channels..<(f + 1) * channels].reduce(0, +) * (1 / Float(channels))
            #expect(abs(out[f] - expected) <= 1e-6)
        }
    }

    @Test func selectsOneChannel() throws {
        let xs: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        var m = try ChannelMixer(channels: 3, mode: .channel(2))
        #expect(m.processAll(xs) == [3, 6, 9])
    }

    @Test func refusesAChannelThatDoesNotExist() {
        #expect(throws: AudioPipelineError.self) { _ = try ChannelMixer(channels: 2, mode: .channel(2)) }
        #expect(throws: AudioPipelineError.self) { _ = try ChannelMixer(channels: 0) }
    }

    @Test func leavesAPartialFrameUnconsumed() throws {
        var m = try ChannelMixer(channels: 2)
        let xs: [Float] = [0.5, 0.5, 0.25]
        var out = [Float](repeating: 0, count: 4)
        let r = xs.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { m.process(i, into: $0) } }
        #expect(r == ProcessResult(consumed: 1, produced: 1))
    }

    @Test(arguments: [1, 2, 17])
    func isChunkInvariant(maxBlock: Int) throws {
        var rng = TestRNG(seed: UInt64(maxBlock))
        let frames = 4099
        let xs = (0..<frames * 2).map { _ in Float.random(in: -1...1, using: &rng) }
        var whole = try ChannelMixer(channels: 2)
        let reference = whole.processAll(xs)
        var chunked = try ChannelMixer(channels: 2)
        let blocks = randomBlocks(total: frames, maxBlock: maxBlock, rng: &rng)
        #expect(firstDifference(runInBlocks(&chunked, xs, blocks: blocks), reference) == nil)
    }
}
