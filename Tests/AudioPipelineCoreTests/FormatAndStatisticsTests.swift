import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

@Suite struct SampleRateValidation {
    @Test(arguments: [0, -1, -48000, 768_001, Int.max])
    func rejectsAbsurdRates(hz: Int) {
        #expect(throws: AudioPipelineError.self) { _ = try SampleRate(hz) }
    }

    @Test(arguments: [1, 8000, 44100, 768_000])
    func acceptsRealRates(hz: Int) throws {
        #expect(try SampleRate(hz).hz == hz)
    }
}

@Suite struct ResamplingFormatTests {
    static let ratios: [(Int, Int, Int, Int)] = [
        (48000, 16000, 1, 3), (16000, 24000, 3, 2), (24000, 48000, 2, 1), (44100, 16000, 160, 441), (8000, 48000, 6, 1),
    ]

    @Test(arguments: ratios)
    func reducesTheRatio(from: Int, to: Int, up: Int, down: Int) throws {
        let f = try ResamplingFormat(from: SampleRate(from), to: SampleRate(to))
        #expect(f.upFactor == up && f.downFactor == down)
    }

    @Test func totalOutputLengthCountsTheOutputInstantsInsideTheInput() throws {
        let f = try ResamplingFormat(from: SampleRate(48000), to: SampleRate(16000))
        #expect(f.totalOutputFrames(forInputFrames: 0) == 0)
        #expect(f.totalOutputFrames(forInputFrames: 1) == 1)  // instant 0 is inside [0, 1/48000)
        #expect(f.totalOutputFrames(forInputFrames: 3) == 1)
        #expect(f.totalOutputFrames(forInputFrames: 4) == 2)
        #expect(f.totalOutputFrames(forInputFrames: 163_640) == 54_547)
        let g = try ResamplingFormat(from: SampleRate(16000), to: SampleRate(24000))
        #expect(g.totalOutputFrames(forInputFrames: 1) == 2)
        #expect(g.totalOutputFrames(forInputFrames: 2) == 3)
        let big = Int.max / 48_000
        #expect(g.totalOutputFrames(forInputFrames: big) == big + (big + 1) / 2)
    }
}

@Suite struct SignalStatisticsTests {
    @Test func fullScaleSineIsMinus3dBRMS() {
        let n = 48_000
        let xs = (0..<n).map { Float(sinApprox(2 * Double.pi * 1000 * Double($0) / 48000)) }
        var s = SignalStatistics(channels: 1)
        xs.withUnsafeBufferPointer { s.accumulate($0) }
        #expect(abs(SignalStatistics.dBFS(s.rms) + 3.0103) < 0.01)
        #expect(abs(SignalStatistics.dBFS(Double(s.peak))) < 0.01)
        #expect(abs(s.dcOffset) < 1e-6)
    }

    @Test func countsClippingAgainstTheEncodingsFullScale() {
        let fs: Float = 32767.0 / 32768
        let xs: [Float] = [0, fs, -1, 0.5, fs, 0.99]
        var s = SignalStatistics(channels: 1, positiveFullScale: fs)
        xs.withUnsafeBufferPointer { s.accumulate($0) }
        #expect(s.clippedSamples == 3)
        var f = SignalStatistics(channels: 1)
        xs.withUnsafeBufferPointer { f.accumulate($0) }
        #expect(f.clippedSamples == 1)  // float: only −1 reaches full scale
    }

    @Test func perChannelDCAndPeakAndSilence() {
        var s = SignalStatistics(channels: 2)
        let xs: [Float] = [0.5, 0, 0.5, 0, -0.25, 0]
        xs.withUnsafeBufferPointer { s.accumulate($0) }
        #expect(s.frames == 3)
        #expect(abs(s.dcOffset(channel: 0) - 0.25) < 1e-9)
        #expect(s.peak(channel: 1) == 0)
        #expect(SignalStatistics.dBFS(s.rms(channel: 1)) == -.infinity)
    }
}

/// sin without Foundation (the core tests stay platform-neutral): a Taylor series after range reduction.
func sinApprox(_ x: Double) -> Double {
    var y = x.truncatingRemainder(dividingBy: 2 * .pi)
    if y > .pi { y -= 2 * .pi } else if y < -.pi { y += 2 * .pi }
    var term = y, sum = 0.0, k = 1.0
    for _ in 0..<15 {
        sum += term
        term *= -y * y / ((k + 1) * (k + 2))
        k += 2
    }
    return sum
}
