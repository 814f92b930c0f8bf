import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing

@Suite struct LibSampleRateContract {
    static let ratios: [(Int, Int)] = [(48000, 16000), (16000, 24000), (24000, 48000), (44100, 16000), (8000, 48000), (48000, 8000)]

    static func signal(_ n: Int, channels: Int = 1) -> [Float] {
        (0..<n * channels).map { i in Float(sin(Double(i / channels) * 0.031 + Double(i % channels))) * 0.5 }
    }

    @Test(arguments: ratios, LibSampleRateResampler.Converter.allCases)
    func totalLengthFollowsTheRule(ratio: (Int, Int), converter: LibSampleRateResampler.Converter) throws {
        let format = try ResamplingFormat(from: SampleRate(ratio.0), to: SampleRate(ratio.1))
        for n in [0, 1, 2, 3, 17, 441, 1000, 4801] {
            let r = try LibSampleRateResampler(format: format, converter: converter)
            var stage: any Resampler = r
            let out = stage.processAll(Self.signal(n))
            #expect(out.count == format.totalOutputFrames(forInputFrames: n), "n = \(n)")
        }
    }

    @Test(arguments: ratios)
    func chunkedInputGivesTheSameOutput(ratio: (Int, Int)) throws {
        let format = try ResamplingFormat(from: SampleRate(ratio.0), to: SampleRate(ratio.1), channels: 2)
        let xs = Self.signal(20_000, channels: 2)
        var whole: any Resampler = try LibSampleRateResampler(format: format)
        let reference = whole.processAll(xs)
        var chunked = try LibSampleRateResampler(format: format)
        var g = SystemRandomNumberGenerator()
        var out: [Float] = []
        var offset = 0
        var buf = [Float](repeating: 0, count: 2 * 9000)
        while offset < 20_000 {
            let size = min(Bool.random(using: &g) ? 1 : Int.random(in: 1...4096, using: &g), 20_000 - offset)
            var done = 0
            while done < size {
                let r = xs[(offset + done) * 2..<(offset + size) * 2].withUnsafeBufferPointer { i in
                    buf.withUnsafeMutableBufferPointer { chunked.process(i, into: $0) }
                }
                out += buf[0..<r.produced * 2]
                done += r.consumed
            }
            offset += size
        }
        while true {
            let n = buf.withUnsafeMutableBufferPointer { chunked.finish(into: $0) }
            if n == 0 { break }
            out += buf[0..<n * 2]
        }
        #expect(out.count == reference.count)
        // libsamplerate keeps its fractional position in double precision across calls, so block
        // boundaries can move the last bits: documented tolerance 1e-5 (−100 dB).
        let worst = zip(out, reference).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-5)
    }

    @Test func resetStartsANewStream() throws {
        let format = try ResamplingFormat(from: SampleRate(48000), to: SampleRate(16000))
        let r = try LibSampleRateResampler(format: format)
        var stage: any Resampler = r
        let a = stage.processAll(Self.signal(5000))
        stage.reset()
        let b = stage.processAll(Self.signal(5000))
        #expect(a == b)
    }

    @Test func isDelayCompensatedWithAMeasuredLatency() throws {
        let format = try ResamplingFormat(from: SampleRate(48000), to: SampleRate(16000))
        let r = try LibSampleRateResampler(format: format, converter: .sincBest)
        #expect(r.latency > 0 && r.latency < 16 * 12, "SINC_BEST holds back a few ms")
        // An impulse at input frame 4800 (0.1 s) peaks at output frame 1600 (0.1 s): aligned.
        var xs = [Float](repeating: 0, count: 9600)
        xs[4800] = 1
        var stage: any Resampler = r
        let out = stage.processAll(xs)
        let peak = out.indices.max { abs(out[$0]) < abs(out[$1]) }!
        #expect(peak == 1600)
    }

    @Test func refusesRatiosItCannotServe() throws {
        let f = try ResamplingFormat(from: SampleRate(768_000), to: SampleRate(1000))
        #expect(throws: AudioPipelineError.self) { _ = try LibSampleRateResampler(format: f) }
    }
}
