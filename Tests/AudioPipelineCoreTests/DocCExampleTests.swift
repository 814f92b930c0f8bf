import AudioPipelineCore
import Foundation
import Testing

/// The code of the DocC article `VADWithAReference` (Sources/AudioPipelineCore/AudioPipelineCore.docc):
/// each region between `// docc-begin:` and `// docc-end` is one of the article's code listings, word
/// for word (`DocCArticleTests` in AudioPipelineWorkflowsTests checks that), so the article's code
/// compiles and does what the article says.
@Suite struct VADWithAReferenceArticle {
    /// The landing page's example: Float32 microphone samples to PCM16, into a buffer the caller owns.
    @Test func theLandingPageConverts() throws {
        let micFloats: [Float] = [0, 0.5, -1, 1.5]
        var pcm = [Int16](repeating: 0, count: micFloats.count)
        // docc-begin: landing-convert
        var toPCM = try Float32ToInt16Converter(.init(compatibility: .standard, dither: .none))
        micFloats.withUnsafeBufferPointer { source in
            pcm.withUnsafeMutableBufferPointer { destination in
                _ = toPCM.process(source, into: destination)
            }
        }
        // docc-end
        #expect(pcm == [0, 16384, -32768, 32767])
        #expect(toPCM.clippedCount == 1)
    }

    static let rate = 16_000

    /// A voiced signal (harmonics of `f0`, a 4 Hz syllable envelope) from `start` to `end` seconds in a
    /// track of `seconds`, at `level` peak.
    static func voice(f0: Double, level: Float, start: Double, end: Double, seconds: Double) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { k in
            let t = Double(k) / Double(rate)
            guard t >= start && t < end else { return 0 }
            var v = 0.0
            for h in 1...6 { v += sin(2 * Double.pi * f0 * Double(h) * t) / Double(h) }
            return Float(v * (0.6 + 0.4 * sin(2 * Double.pi * 4 * t))) * level
        }
    }

    /// The agent talks 0.5–7.5 s; its echo reaches the microphone 120 ms later, 6 dB down; the user
    /// talks over it at 4–5.5 s. Speech is found only in the user's second and a half.
    @Test func theEchoIsNotSpeechTheUserIs() throws {
        let agent = Self.voice(f0: 190, level: 0.3, start: 0.5, end: 7.5, seconds: 8)
        let user = Self.voice(f0: 120, level: 0.3, start: 4, end: 5.5, seconds: 8)
        let delay = Self.rate * 120 / 1000
        let microphone = (0..<agent.count).map { k in (k >= delay ? agent[k - delay] * 0.5 : 0) + user[k] }
        let speakerOutput = agent
        // docc-begin: vad-setup
        var configuration = VADConfiguration()
        configuration.hangoverMilliseconds = 150
        var vad = try EnergyVAD(sampleRate: 16_000, configuration: configuration)

        // Allocated once, before the first audio callback: 20 ms of decisions at most.
        let blockLength = 320
        var decisions = [VADDecider.Frame](
            repeating: VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false),
            count: vad.maxOutputCount(forInput: blockLength))
        // docc-end
        var speechFrames: [Int] = []
        func bargeIn(atFrame frame: Int) { speechFrames.append(frame) }
        var frameIndex = 0
        var start = 0
        while start + blockLength <= microphone.count {
            let mic = microphone[start..<(start + blockLength)]
            let played = speakerOutput[start..<(start + blockLength)]
            // docc-begin: vad-process
            // Each 20 ms: the microphone block and the block handed to the loudspeaker at the same time.
            let result = mic.withUnsafeBufferPointer { micSamples in
                played.withUnsafeBufferPointer { referenceSamples in
                    decisions.withUnsafeMutableBufferPointer { output in
                        vad.process(micSamples, reference: referenceSamples, into: output)
                    }
                }
            }
            for k in 0..<result.produced where decisions[k].speech {
                // The user is talking over the agent: stop playback, send the API's interrupt.
                bargeIn(atFrame: frameIndex + k)
            }
            // docc-end
            frameIndex += result.produced
            start += blockLength
        }
        // 10 ms frames: the user talks in frames 400..<550; nothing in the agent's echo alone.
        #expect(!speechFrames.isEmpty, "the user's speech is found")
        #expect(
            speechFrames.allSatisfy { $0 >= 400 && $0 < 550 + 20 }, "speech only in the user's turn: \(speechFrames)")
        let onset = try #require(speechFrames.first)
        #expect(onset - 400 <= 20, "found \(10 * (onset - 400)) ms after the user's onset")
    }
}
