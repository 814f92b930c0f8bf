import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// 48 kHz stereo capture (0.5 s): a tone per channel and some noise.
private func capture(frames: Int = 24_000, channels: Int = 2) -> [Float] {
    var rng = TestRNG(seed: 21)
    return (0..<(frames * channels)).map { k in
        Float(0.4 * sin(Double(k / channels) * (0.05 + 0.02 * Double(k % channels))))
            + Float.random(in: -0.01...0.01, using: &rng)
    }
}

/// Messages as a client builds them by hand: resample → quantise (the same stages FormatConverter
/// chains) → Chunker → WireProfile.frame, the whole capture at once.
private func handWiredMessages(
    _ profile: WireProfile, _ x: [Float], channels: Int, chunkMs: Double, last: Chunker<Int16>.LastChunk,
    pick: Int? = nil
) throws -> [[UInt8]] {
    var mono = x
    if channels > 1 {
        var mixer = try ChannelMixer(channels: channels, mode: pick.map { .channel($0) } ?? .mean)
        mono = mixer.processAll(x)
    }
    let rate = try SampleRate(profile.clientRate)
    var resampler = try PolyphaseResampler(format: try ResamplingFormat(from: try SampleRate(48_000), to: rate))
    let floats = resampler.processAll(mono)
    var toPCM = try Float32ToInt16Converter()
    let pcm = toPCM.processAll(floats)
    var chunker = try Chunker<Int16>(chunkFrames: rate.frames(milliseconds: chunkMs), lastChunk: last)
    var messages: [[UInt8]] = []
    func frame(_ c: Chunker<Int16>.Chunk) {
        var m = [UInt8](repeating: 0, count: profile.messageLength(pcmBytes: c.samples.count * 2))
        let n = m.withUnsafeMutableBytes { profile.frame(UnsafeRawBufferPointer(c.samples), into: $0) }
        messages.append(Array(m[0..<n]))
    }
    pcm.withUnsafeBufferPointer { chunker.push($0, frame) }
    chunker.finish(frame)
    return messages
}

@Suite struct CapturePathTests {
    @Test(arguments: [WireProfile.BuiltIn.openaiRealtime, .geminiLive, .deepgram])
    func sendsWhatTheHandWiredChainSendsInAnyBlockSizes(_ which: WireProfile.BuiltIn) throws {
        let profile = try WireProfile.builtIn(which)
        let x = capture()
        for last in Chunker<Int16>.LastChunk.allCases {
            let expected = try handWiredMessages(profile, x, channels: 2, chunkMs: 20, last: last)
            var rng = TestRNG(seed: 8)
            for maxBlock in [1, 7, 480, 5000] {
                let device = try StreamFormat(sampleRate: try SampleRate(48_000), channels: 2)
                let mic = try CapturePath(
                    profile: profile, configuration: .init(device: device, lastChunk: last, blockFrames: 512))
                var message = [UInt8](repeating: 0, count: mic.maximumMessageLength)
                var got: [[UInt8]] = []
                var starts: [Int] = []
                let blocks = randomBlocks(total: x.count / 2, maxBlock: maxBlock, rng: &rng)
                message.withUnsafeMutableBytes { buffer in
                    var offset = 0
                    for b in blocks {
                        x[(offset * 2)..<((offset + b) * 2)].withUnsafeBufferPointer { block in
                            mic.process(block, into: buffer) { m in
                                #expect(m.opcode == (profile.isBinary ? .binary : .text))
                                got.append(Array(m.bytes))
                                starts.append(m.startFrame)
                            }
                        }
                        offset += b
                    }
                    mic.finish(into: buffer) {
                        got.append(Array($0.bytes))
                        starts.append($0.startFrame)
                    }
                }
                #expect(got == expected, "\(which) \(last) blocks ≤ \(maxBlock): \(got.count) vs \(expected.count)")
                #expect(starts == (0..<starts.count).map { $0 * mic.chunkFrames })
            }
        }
    }

    @Test func takesInt16DeviceAudioAndPicksAChannel() throws {
        let profile = try WireProfile.builtIn(.geminiLive)
        let x = capture()
        let shorts = x.map { Int16(($0 * 32768).rounded()) }
        let widened = shorts.map { Float($0) / 32768 }
        let expected = try handWiredMessages(profile, widened, channels: 2, chunkMs: 40, last: .pad, pick: 1)
        let device = try StreamFormat(sampleRate: try SampleRate(48_000), channels: 2)
        let mic = try CapturePath(
            profile: profile,
            configuration: .init(device: device, channels: .pick(1), chunkMilliseconds: 40, lastChunk: .pad))
        var got: [[UInt8]] = []
        var message = [UInt8](repeating: 0, count: mic.maximumMessageLength)
        message.withUnsafeMutableBytes { buffer in
            shorts.withUnsafeBufferPointer { mic.process($0, into: buffer) { got.append(Array($0.bytes)) } }
            mic.finish(into: buffer) { got.append(Array($0.bytes)) }
        }
        #expect(got == expected)
        // A typed error from `send` comes through typed.
        struct Full: Error {}
        mic.reset()
        #expect(throws: Full.self) {
            try message.withUnsafeMutableBytes { buffer in
                try shorts.withUnsafeBufferPointer { (b) throws(Full) in
                    try mic.process(b, into: buffer) { _ throws(Full) in throw Full() }
                }
            }
        }
    }

    @Test func refusesAStereoResultAndATooShortChunk() throws {
        let stereo = try StreamFormat(sampleRate: try SampleRate(48_000), channels: 2)
        let profile = try WireProfile.builtIn(.openaiRealtime)
        #expect(throws: AudioPipelineError.self) {
            _ = try CapturePath(profile: profile, configuration: .init(device: stereo, channels: .keep))
        }
        #expect(throws: AudioPipelineError.self) {
            _ = try CapturePath(profile: profile, configuration: .init(device: stereo, chunkMilliseconds: 0.01))
        }
    }
}

/// OpenAI deltas of the given sample counts, with a ramp of values; one escaped (full-parse path).
private func serverMessages(_ sizes: [Int]) -> [String] {
    var k = 0
    return sizes.enumerated().map { (i, n) in
        let pcm = (0..<n).map { _ -> Int16 in
            k += 1
            return Int16(truncatingIfNeeded: Int(9000 * sin(Double(k) * 0.031)))
        }
        var b64 = pcm.withUnsafeBytes { Data($0) }.base64EncodedString()
        if i == 3 { b64 = b64.replacingOccurrences(of: "/", with: "\\/") }
        return #"{"type":"response.output_audio.delta","response_id":"r1","delta":""# + b64 + #""}"#
    }
}

@Suite struct PlaybackPathTests {
    /// The same device audio as decode → Float → JitterBuffer → resampler wired by hand.
    @Test func playsWhatTheHandWiredChainPlays() throws {
        let profile = try WireProfile.builtIn(.openaiRealtime)
        var sizes = [Int](repeating: 480, count: 60)
        sizes[3] = 470  // and escaped: the full parse
        sizes[10] = 960
        sizes[20] = 30_000  // more than maximumPacketSamples below: the allocating path
        let messages = serverMessages(sizes)
        let device = try StreamFormat(sampleRate: try SampleRate(48_000), channels: 1)
        let path = try PlaybackPath(profile: profile, device: device, maximumPacketSamples: 24_000)
        let jb = try JitterBuffer(configuration: .init(sampleRate: 24_000, tickMilliseconds: 20))
        var resampler = try PolyphaseResampler(
            format: try ResamplingFormat(from: try SampleRate(24_000), to: try SampleRate(48_000)))
        var got: [Float] = []
        var expected: [Float] = []
        var out = [Float](repeating: 0, count: path.maxOutputCount)
        var tick = [Float](repeating: 0, count: 480)
        var media: Int64 = 0
        for (i, text) in messages.enumerated() {
            let received = Array(text.utf8).withUnsafeBytes { path.receive($0, utterance: 0) }
            #expect(received == .audio(samples: sizes[i], result: .queued), "message \(i)")
            // By hand: the full parse of every message.
            guard case .audio(let b64, _, _) = profile.interpret(try JSON.parse(text), direction: .server) else {
                Issue.record("no audio")
                continue
            }
            let pcm = Data(base64Encoded: b64)!.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            let floats = pcm.map { Float($0) / 32768 }
            floats.withUnsafeBufferPointer { _ = jb.push($0, sequence: Int64(i), utterance: 0, media: media) }
            media += Int64(pcm.count)
            for _ in 0..<2 {
                let n = out.withUnsafeMutableBufferPointer { path.pull(into: $0) }
                got += out[0..<n]
                tick.withUnsafeMutableBufferPointer { jb.pull(into: $0) }
                expected += resampler.processAll(tick, finishing: false)
            }
        }
        let tail = out.withUnsafeMutableBufferPointer { path.finish(into: $0) }
        got += out[0..<tail]
        expected += resampler.processAll([], finishing: true)
        #expect(got.count == expected.count && got.count > 100_000)
        #expect(firstDifference(got, expected) == nil)
        #expect(path.jitterBuffer.statistics == jb.statistics)
    }

    @Test func answersEventsAndInvalidMessages() throws {
        let path = try PlaybackPath(
            profile: try WireProfile.builtIn(.openaiRealtime),
            device: try StreamFormat(sampleRate: try SampleRate(48_000), channels: 2))
        func receive(_ text: String) -> PlaybackPath.Received {
            Array(text.utf8).withUnsafeBytes { path.receive($0, utterance: 1) }
        }
        #expect(receive(#"{"type":"input_audio_buffer.speech_started"}"#) == .event(.interrupted))
        #expect(receive(#"{"type":"response.done"}"#) == .event(.turnComplete))
        if case .invalid(let why) = receive("{") { #expect(why.contains("byte 1")) } else { Issue.record("parsed") }
        if case .invalid = receive(#"{"type":"response.audio.delta","delta":"A\/=="}"#) {
        } else {
            Issue.record("decoded")
        }
        // Stereo device: every tick is duplicated to both channels.
        let text = serverMessages([480])[0]
        #expect(receive(text) == .audio(samples: 480, result: .queued))
        var out = [Float](repeating: 0, count: path.maxOutputCount * 2)
        for _ in 0..<10 {
            let n = out.withUnsafeMutableBufferPointer { path.pull(into: $0) }
            for f in 0..<n { #expect(out[2 * f] == out[2 * f + 1]) }
        }
        #expect(throws: AudioPipelineError.self) {
            _ = try PlaybackPath(
                profile: try WireProfile.builtIn(.openaiRealtime),
                device: try StreamFormat(sampleRate: try SampleRate(48_000), channels: 1),
                jitter: .init(sampleRate: 16_000))
        }
    }
}
