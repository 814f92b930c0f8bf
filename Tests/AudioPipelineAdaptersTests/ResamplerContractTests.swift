import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

/// The streaming contract, run against every backend (native presets and every libsamplerate
/// converter).
@Suite struct ResamplerContract {
    static let ratios: [(Int, Int)] = [
        (48000, 16000), (16000, 24000), (24000, 48000), (44100, 16000), (8000, 48000), (48000, 8000),
    ]

    static func signal(_ n: Int, channels: Int = 1) -> [Float] {
        (0..<n * channels).map { i in Float(sin(Double(i / channels) * 0.031 + Double(i % channels))) * 0.5 }
    }

    @Test(arguments: ratios, ResamplerChoice.allCases)
    func totalLengthFollowsTheRule(ratio: (Int, Int), choice: ResamplerChoice) throws {
        let format = try ResamplingFormat(from: SampleRate(ratio.0), to: SampleRate(ratio.1))
        for n in [0, 1, 2, 3, 17, 441, 1000, 4801] {
            var stage = try choice.make(format)
            let out = stage.processAll(Self.signal(n))
            #expect(out.count == format.totalOutputFrames(forInputFrames: n), "n = \(n)")
        }
    }

    @Test(arguments: ratios, ResamplerChoice.allCases)
    func chunkedInputGivesTheSameOutput(ratio: (Int, Int), choice: ResamplerChoice) throws {
        let format = try ResamplingFormat(from: SampleRate(ratio.0), to: SampleRate(ratio.1), channels: 2)
        let frames = 20_000
        let xs = Self.signal(frames, channels: 2)
        var whole = try choice.make(format)
        let reference = whole.processAll(xs)
        var chunked = try choice.make(format)
        var g = SystemRandomNumberGenerator()
        var out: [Float] = []
        var offset = 0
        var buf = [Float](repeating: 0, count: 2 * 30_000)
        while offset < frames {
            let size = min(Bool.random(using: &g) ? 1 : Int.random(in: 1...4096, using: &g), frames - offset)
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
        if choice.rawValue.hasPrefix("native") {
            #expect(out == reference, "the native resampler is bit-identical")
        } else {
            // libsamplerate keeps its fractional position in double precision across calls, so block
            // boundaries can move the last bits: documented tolerance 1e-5 (−100 dB).
            let worst = zip(out, reference).map { abs($0 - $1) }.max() ?? 0
            #expect(worst < 1e-5)
        }
    }

    @Test(arguments: ResamplerChoice.allCases)
    func resetStartsANewStream(choice: ResamplerChoice) throws {
        var stage = try choice.make(ResamplingFormat(from: SampleRate(48000), to: SampleRate(16000)))
        let a = stage.processAll(Self.signal(5000))
        stage.reset()
        #expect(stage.processAll(Self.signal(5000)) == a)
    }

    /// Both backends are delay-compensated: an impulse at 0.1 s peaks at 0.1 s.
    @Test(arguments: [ResamplerChoice.nativeHigh, .nativeFast, .srcBest, .srcMedium])
    func isDelayCompensated(choice: ResamplerChoice) throws {
        var stage = try choice.make(ResamplingFormat(from: SampleRate(48000), to: SampleRate(16000)))
        #expect(stage.latency > 0)
        var xs = [Float](repeating: 0, count: 9600)
        xs[4800] = 1
        let out = stage.processAll(xs)
        #expect(out.indices.max { abs(out[$0]) < abs(out[$1]) }! == 1600)
    }

    /// libsamplerate's LINEAR reads before the input on a 1-frame first call (upstream #208/#234);
    /// the wrapper must hide that: a lone first frame gives the same output as one call.
    @Test(arguments: [1, 2, 6])
    func linearSurvivesALoneFirstFrame(channels: Int) throws {
        let f = try ResamplingFormat(from: SampleRate(44100), to: SampleRate(16000), channels: channels)
        let xs = Self.signal(3000, channels: channels)
        var whole = try ResamplerChoice.srcLinear.make(f)
        let reference = whole.processAll(xs)
        var split = try ResamplerChoice.srcLinear.make(f)
        var out: [Float] = []
        var buf = [Float](repeating: 0, count: 4000 * channels)
        var offset = 0
        for size in [1, 1, 2998] {
            var done = 0
            while done < size {
                let r = xs[(offset + done) * channels..<(offset + size) * channels].withUnsafeBufferPointer { i in
                    buf.withUnsafeMutableBufferPointer { split.process(i, into: $0) }
                }
                out += buf[0..<r.produced * channels]
                done += r.consumed
            }
            offset += size
        }
        out += split.processAll([])
        #expect(out.count == reference.count)
        #expect(zip(out, reference).allSatisfy { abs($0 - $1) < 1e-5 })
        var one = try ResamplerChoice.srcLinear.make(f)
        #expect(one.processAll(Array(xs[0..<channels])).count == channels * f.totalOutputFrames(forInputFrames: 1))
    }

    @Test func refusesRatiosTheyCannotServe() throws {
        let f = try ResamplingFormat(from: SampleRate(768_000), to: SampleRate(1000))
        #expect(throws: AudioPipelineError.self) { _ = try ResamplerChoice.srcBest.make(f) }
        let g = try ResamplingFormat(from: SampleRate(768_000), to: SampleRate(767_999))
        #expect(throws: AudioPipelineError.self) { _ = try ResamplerChoice.nativeHigh.make(g) }
    }
}
