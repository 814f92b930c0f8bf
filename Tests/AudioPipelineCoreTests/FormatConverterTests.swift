import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// Interleaved samples of either type, compared bit for bit (NaN included).
enum FormatSamples: Equatable {
    case float([Float])
    case int16([Int16])

    static func == (a: FormatSamples, b: FormatSamples) -> Bool {
        switch (a, b) {
        case (.float(let x), .float(let y)): return x.map(\.bitPattern) == y.map(\.bitPattern)
        case (.int16(let x), .int16(let y)): return x == y
        default: return false
        }
    }

    var count: Int {
        switch self {
        case .float(let x): return x.count
        case .int16(let x): return x.count
        }
    }
}

struct FormatCase: CustomTestStringConvertible, Sendable {
    var name: String
    var inRate: Int
    var inChannels: Int
    var int16In: Bool
    var outRate: Int
    /// FileConverter's options: output channels and the picked channel.
    var channels: Int?
    var channel: Int?
    var compatibility = PCMCompatibility.standard
    var dither = Dither.none
    var int16Out: Bool
    var testDescription: String { name }

    var plan: FormatConverter.ChannelPlan {
        let outCh = channels ?? (channel != nil ? 1 : inChannels)
        if let channel { return .pick(channel) }
        if outCh == 1 && inChannels > 1 { return .downmix }
        if outCh > inChannels { return .duplicate(outCh) }
        return .keep
    }

    /// 0.6 s of two tones and noise per channel; a run beyond full scale and (float) a NaN frame.
    func input() -> FormatSamples {
        var rng = TestRNG(seed: 11)
        let frames = inRate * 6 / 10
        var x = [Float](repeating: 0, count: frames * inChannels)
        for f in 0..<frames {
            for c in 0..<inChannels {
                let t = Double(f) / Double(inRate)
                x[f * inChannels + c] =
                    Float(0.5 * sin(2 * .pi * (440 + 110 * Double(c)) * t) + 0.3 * sin(2 * .pi * 3100 * t))
                    + Float.random(in: -0.05...0.05, using: &rng)
            }
        }
        for k in (2000 * inChannels)..<(2200 * inChannels) { x[k] *= 3 }  // beyond full scale
        if !int16In { for c in 0..<inChannels { x[(frames / 2) * inChannels + c] = .nan } }
        return int16In ? .int16(x.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }) : .float(x)
    }
}

private let cases: [FormatCase] = [
    FormatCase(
        name: "48k stereo float → 16k mono PCM16", inRate: 48_000, inChannels: 2, int16In: false, outRate: 16_000,
        channels: 1, int16Out: true),
    FormatCase(
        name: "24k mono float → 48k float", inRate: 24_000, inChannels: 1, int16In: false, outRate: 48_000,
        int16Out: false),
    FormatCase(
        name: "24k mono PCM16 → 48k stereo PCM16 (duplicate)", inRate: 24_000, inChannels: 1, int16In: true,
        outRate: 48_000, channels: 2, int16Out: true),
    FormatCase(
        name: "48k stereo float, channel 1 → 16k PCM16", inRate: 48_000, inChannels: 2, int16In: false,
        outRate: 16_000, channel: 1, int16Out: true),
    FormatCase(
        name: "24k PCM16 → 16k PCM16, ios", inRate: 24_000, inChannels: 1, int16In: true, outRate: 16_000,
        compatibility: .ios, int16Out: true),
    FormatCase(
        name: "48k stereo float → 16k mono PCM16, ios", inRate: 48_000, inChannels: 2, int16In: false,
        outRate: 16_000, channels: 1, compatibility: .ios, int16Out: true),
    FormatCase(
        name: "48k stereo float → 24k mono PCM16, TPDF seed 7", inRate: 48_000, inChannels: 2, int16In: false,
        outRate: 24_000, channels: 1, dither: .tpdf(seed: 7), int16Out: true),
    FormatCase(
        name: "16k stereo PCM16 → mono PCM16, no resampling", inRate: 16_000, inChannels: 2, int16In: true,
        outRate: 16_000, channels: 1, int16Out: true),
    FormatCase(
        name: "44.1k stereo float → 16k stereo float", inRate: 44_100, inChannels: 2, int16In: false,
        outRate: 16_000, int16Out: false),
    FormatCase(
        name: "48k stereo PCM16 → 48k float, ios", inRate: 48_000, inChannels: 2, int16In: true, outRate: 48_000,
        compatibility: .ios, int16Out: false),
]

/// The chain as FileConverter.convert wires it by hand (Sources/AudioPipelineAdapters/FileConverter.swift):
/// 4096-frame blocks, widen → mix → resample → duplicate → quantise, then the resampler's finish.
private func handWired(
    _ c: FormatCase, _ input: FormatSamples,
    resampler make: FormatConverter.ResamplerFactory = FormatConverter.polyphase()
) throws -> (FormatSamples, clipped: Int, nan: Int) {
    let inCh = c.inChannels
    let outCh = c.channels ?? (c.channel != nil ? 1 : inCh)
    var mixer =
        (outCh == 1 && inCh > 1) ? try ChannelMixer(channels: inCh, mode: c.channel.map { .channel($0) } ?? .mean) : nil
    let stageCh = mixer != nil ? 1 : inCh
    var resampler: (any Resampler)? =
        c.outRate == c.inRate
        ? nil
        : try make(
            try ResamplingFormat(from: try SampleRate(c.inRate), to: try SampleRate(c.outRate), channels: stageCh))
    var toFloat = Int16ToFloat32Converter(compatibility: c.compatibility)
    var toPCM = try Float32ToInt16Converter(.init(compatibility: c.compatibility, dither: c.dither))
    var floats: [Float] = []
    var shorts: [Int16] = []
    func emit(_ samples: ArraySlice<Float>) {
        var out: [Float] = []
        if outCh > stageCh {
            for s in samples { for _ in 0..<outCh { out.append(s) } }
        } else {
            out = Array(samples)
        }
        if c.int16Out {
            var pcm = [Int16](repeating: 0, count: out.count)
            _ = out.withUnsafeBufferPointer { o in pcm.withUnsafeMutableBufferPointer { toPCM.process(o, into: $0) } }
            shorts += pcm
        } else {
            floats += out
        }
    }
    let frames = input.count / inCh
    var f = 0
    while f < frames {
        let got = min(4096, frames - f)
        var block: [Float]
        switch input {
        case .float(let x): block = Array(x[(f * inCh)..<((f + got) * inCh)])
        case .int16(let x):
            block = [Float](repeating: 0, count: got * inCh)
            let src = Array(x[(f * inCh)..<((f + got) * inCh)])
            _ = src.withUnsafeBufferPointer { s in block.withUnsafeMutableBufferPointer { toFloat.process(s, into: $0) }
            }
        }
        if mixer != nil { block = mixer!.processAll(block) }
        if resampler != nil { emit(resampler!.processAll(block, finishing: false)[...]) } else { emit(block[...]) }
        f += got
    }
    if resampler != nil { emit(resampler!.processAll([], finishing: true)[...]) }
    return (c.int16Out ? .int16(shorts) : .float(floats), toPCM.clippedCount, toPCM.nanCount)
}

/// Runs a FormatConverter over `input` in the given input blocks (frames), each call with a random
/// output room of 1…maxOutputCount frames, then finishes with random rooms.
private func streamed(
    _ converter: FormatConverter, _ input: FormatSamples, int16Out: Bool, blocks: [Int], rng: inout TestRNG
) -> FormatSamples {
    let inCh = converter.inputStride
    let outCh = converter.outputStride
    var floats: [Float] = []
    var shorts: [Int16] = []
    func step(
        _ room: Int, _ body: (UnsafeMutableBufferPointer<Float>) -> Int,
        _ body16: (UnsafeMutableBufferPointer<Int16>) -> Int
    ) -> Int {
        if int16Out {
            var out = [Int16](repeating: 0, count: room * outCh)
            let n = out.withUnsafeMutableBufferPointer { body16($0) }
            shorts += out[0..<(n * outCh)]
            return n
        }
        var out = [Float](repeating: 0, count: room * outCh)
        let n = out.withUnsafeMutableBufferPointer { body($0) }
        floats += out[0..<(n * outCh)]
        return n
    }
    var offset = 0
    for b in blocks {
        var done = 0
        while done < b {
            let room = Int.random(in: 1...max(1, converter.maxOutputCount(forInput: b - done)), using: &rng)
            let lo = (offset + done) * inCh
            let hi = (offset + b) * inCh
            var consumed = 0
            _ = step(room) { out in
                switch input {
                case .float(let x):
                    let r = x[lo..<hi].withUnsafeBufferPointer { converter.process($0, into: out) }
                    consumed = r.consumed
                    return r.produced
                case .int16(let x):
                    let r = x[lo..<hi].withUnsafeBufferPointer { converter.process($0, into: out) }
                    consumed = r.consumed
                    return r.produced
                }
            } _: { out in
                switch input {
                case .float(let x):
                    let r = x[lo..<hi].withUnsafeBufferPointer { converter.process($0, into: out) }
                    consumed = r.consumed
                    return r.produced
                case .int16(let x):
                    let r = x[lo..<hi].withUnsafeBufferPointer { converter.process($0, into: out) }
                    consumed = r.consumed
                    return r.produced
                }
            }
            done += consumed
        }
        offset += b
    }
    while true {
        let room = Int.random(in: 1...max(1, converter.maxOutputCount(forInput: 0)), using: &rng)
        if step(room, { converter.finish(into: $0) }, { converter.finish(into: $0) }) == 0 { break }
    }
    return int16Out ? .int16(shorts) : .float(floats)
}

private func converter(_ c: FormatCase, resampler: FormatConverter.ResamplerFactory = FormatConverter.polyphase())
    throws
    -> FormatConverter
{
    let configuration = FormatConverter.Configuration(
        input: try StreamFormat(sampleRate: try SampleRate(c.inRate), channels: c.inChannels),
        outputRate: try SampleRate(c.outRate), channels: c.plan, compatibility: c.compatibility, dither: c.dither,
        blockFrames: 1000)
    return try FormatConverter(configuration, resampler: resampler)
}

@Suite struct FormatConverterTests {
    /// Sample for sample what the hand-wired chain gives, whatever the input block sizes (1
    /// included) and output rooms; the clipping and NaN counts too.
    @Test(arguments: cases)
    func equalsTheHandWiredChainInAnyBlockSizes(_ c: FormatCase) throws {
        let input = c.input()
        let (expected, clipped, nan) = try handWired(c, input)
        #expect(expected.count > 0)
        var rng = TestRNG(seed: 5)
        let frames = input.count / c.inChannels
        for maxBlock in [1, 37, 960, 5000] {
            let conv = try converter(c)
            let blocks =
                maxBlock == 1
                ? randomBlocks(total: min(frames, 3000), maxBlock: 3, rng: &rng)
                    + randomBlocks(total: frames - min(frames, 3000), maxBlock: 4096, rng: &rng)
                : randomBlocks(total: frames, maxBlock: maxBlock, rng: &rng)
            let got = streamed(conv, input, int16Out: c.int16Out, blocks: blocks, rng: &rng)
            #expect(got == expected, "\(c.name), blocks ≤ \(maxBlock): \(got.count) vs \(expected.count) samples")
            if c.int16Out { #expect(conv.clippedCount == clipped && conv.nanCount == nan) }
            // After reset, the same stream gives the same output (dither restarts from its seed).
            conv.reset()
            #expect(streamed(conv, input, int16Out: c.int16Out, blocks: [frames], rng: &rng) == expected)
        }
        if c.int16Out && !c.int16In { #expect(clipped > 0 && nan > 0) }
    }

    /// The resampler is injected: the portable kernels through the factory give what they give by hand.
    @Test func takesTheResamplerFromTheFactory() throws {
        let c = cases[0]
        let portable = FormatConverter.polyphase(.fast, kernel: .portable)
        let (expected, _, _) = try handWired(c, c.input(), resampler: portable)
        let conv = try converter(c, resampler: portable)
        #expect(conv.resamplerName == "native-fast" && conv.latency > 0)
        var rng = TestRNG(seed: 2)
        #expect(streamed(conv, c.input(), int16Out: true, blocks: [4800, 4800, 19_200], rng: &rng) == expected)
        let same = try converter(cases[7])
        #expect(same.resamplerName == nil && same.latency == 0)
    }

    /// With `maxOutputCount(forInput:)` frames of room, one call consumes the whole input and one
    /// `finish` writes the rest.
    @Test func maxOutputCountIsEnoughForOneCall() throws {
        for c in cases {
            let conv = try converter(c)
            let input = c.input()
            let frames = input.count / c.inChannels
            var rng = TestRNG(seed: 3)
            let before = streamed(conv, input, int16Out: c.int16Out, blocks: [frames], rng: &rng)
            conv.reset()
            var out = [Float](repeating: 0, count: conv.maxOutputCount(forInput: frames) * conv.outputStride)
            var pcm = [Int16](repeating: 0, count: out.count)
            let r: ProcessResult
            switch (input, c.int16Out) {
            case (.float(let x), true):
                r = x.withUnsafeBufferPointer { i in pcm.withUnsafeMutableBufferPointer { conv.process(i, into: $0) } }
            case (.float(let x), false):
                r = x.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { conv.process(i, into: $0) } }
            case (.int16(let x), true):
                r = x.withUnsafeBufferPointer { i in pcm.withUnsafeMutableBufferPointer { conv.process(i, into: $0) } }
            case (.int16(let x), false):
                r = x.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { conv.process(i, into: $0) } }
            }
            #expect(r.consumed == frames, "\(c.name)")
            var tail = [Float](repeating: 0, count: conv.maxOutputCount(forInput: 0) * conv.outputStride)
            var tail16 = [Int16](repeating: 0, count: tail.count)
            let n =
                c.int16Out
                ? tail16.withUnsafeMutableBufferPointer { conv.finish(into: $0) }
                : tail.withUnsafeMutableBufferPointer { conv.finish(into: $0) }
            let again =
                c.int16Out
                ? tail16.withUnsafeMutableBufferPointer { conv.finish(into: $0) }
                : tail.withUnsafeMutableBufferPointer { conv.finish(into: $0) }
            #expect(again == 0)
            let whole: FormatSamples =
                c.int16Out
                ? .int16(Array(pcm[0..<(r.produced * conv.outputStride)]) + tail16[0..<(n * conv.outputStride)])
                : .float(Array(out[0..<(r.produced * conv.outputStride)]) + tail[0..<(n * conv.outputStride)])
            #expect(whole == before, "\(c.name)")
            if let rate = try? SampleRate(c.outRate), c.outRate != c.inRate {
                let format = try ResamplingFormat(from: try SampleRate(c.inRate), to: rate)
                #expect(whole.count == format.totalOutputFrames(forInputFrames: frames) * conv.outputStride)
            }
        }
    }

    @Test func refusesWhatCannotBeDone() throws {
        let stereo = try StreamFormat(sampleRate: try SampleRate(48_000), channels: 2)
        let bad: [FormatConverter.Configuration] = [
            .init(input: stereo, channels: .pick(2)),
            .init(input: stereo, channels: .pick(-1)),
            .init(input: stereo, channels: .duplicate(4)),
            .init(input: try StreamFormat(sampleRate: try SampleRate(48_000), channels: 1), channels: .duplicate(0)),
            .init(input: stereo, compatibility: .ios, dither: .tpdf(seed: 1)),
            .init(input: stereo, blockFrames: 0),
        ]
        for configuration in bad {
            #expect(throws: AudioPipelineError.self, "\(configuration)") { _ = try FormatConverter(configuration) }
        }
        let ok = try FormatConverter(.init(input: stereo, outputRate: try SampleRate(16_000), channels: .pick(1)))
        #expect(ok.outputFormat == (try StreamFormat(sampleRate: try SampleRate(16_000), channels: 1)))
        #expect(ok.inputStride == 2 && ok.outputStride == 1)
    }
}
