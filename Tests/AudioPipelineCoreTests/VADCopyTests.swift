import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// A detector is a value: a copy runs on from the state it was copied in, whatever the original
/// does after (its buffers, copied on write, are its own at its first change).
@Suite struct VADCopyTests {
    /// A voice-like tone in syllables on the microphone over the echo of a talking reference, 50 ms
    /// late and 10 dB down, and noise; `seed` varies the noise and the voice's pitch.
    static func signals(seconds: Double, seed: UInt64) -> (mic: [Float], reference: [Float]) {
        var rng = TestRNG(seed: seed)
        let n = Int(seconds * 16_000)
        let pitch = Double.random(in: 120...220, using: &rng)
        var reference = [Float](repeating: 0, count: n)
        var mic = [Float](repeating: 0, count: n)
        for k in 0..<n {
            let t = Double(k) / 16_000
            let syllable: Double = max(0, sin(2 * Double.pi * 3.1 * t))
            let phase: Double = 2 * Double.pi * 180 * t + 2 * sin(2 * Double.pi * 4 * t)
            reference[k] = Float(0.2 * syllable * sin(phase))
            let talking = t.truncatingRemainder(dividingBy: 2) > 1.2
            let voice: Double = talking ? 0.1 * sin(2 * Double.pi * pitch * t) : 0
            let echo: Double = k >= 800 ? 0.3 * Double(reference[k - 800]) : 0
            let noise: Double = 0.002 * Double.random(in: -1...1, using: &rng)
            mic[k] = Float(voice + echo + noise)
        }
        return (mic, reference)
    }

    static func run(_ vad: inout EnergyVAD, _ s: (mic: [Float], reference: [Float])) -> [VADDecider.Frame] {
        var frames: [VADDecider.Frame] = []
        var out = [VADDecider.Frame](
            repeating: VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false), count: 4)
        for start in stride(from: 0, to: s.mic.count - 159, by: 160) {
            let r = s.mic.withUnsafeBufferPointer { m in
                s.reference.withUnsafeBufferPointer { f in
                    out.withUnsafeMutableBufferPointer { o in
                        vad.process(
                            UnsafeBufferPointer(rebasing: m[start..<(start + 160)]),
                            reference: UnsafeBufferPointer(rebasing: f[start..<(start + 160)]), into: o)
                    }
                }
            }
            frames += out[0..<r.produced]
        }
        return frames
    }

    /// The first frame where `a` and `b` differ (nil: none; a shorter one differs where it ends).
    static func firstDifference(_ a: [VADDecider.Frame], _ b: [VADDecider.Frame]) -> Int? {
        for k in 0..<min(a.count, b.count) where a[k] != b[k] { return k }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    /// Two copies taken after 4 s run on, frame by frame in turn, the one over the same audio as a
    /// detector never copied, the other (and the original) over other audio: the first decides as
    /// the uncopied one, frame for frame, and so does a copy taken after the others have run.
    @Test func aCopiedDetectorRunsOnItsOwn() throws {
        let start = Self.signals(seconds: 4, seed: 1)
        let next = Self.signals(seconds: 4, seed: 2)
        let other = Self.signals(seconds: 4, seed: 3)
        var uncopied = try EnergyVAD(sampleRate: 16_000, configuration: VADConfiguration())
        _ = Self.run(&uncopied, start)
        let expected = Self.run(&uncopied, next)
        var original = try EnergyVAD(sampleRate: 16_000, configuration: VADConfiguration())
        _ = Self.run(&original, start)
        var copy = original
        var otherCopy = original
        let late = original
        var got: [VADDecider.Frame] = []
        for second in 0..<4 {
            let part = { (s: (mic: [Float], reference: [Float])) in
                (
                    Array(s.mic[(second * 16_000)..<((second + 1) * 16_000)]),
                    Array(s.reference[(second * 16_000)..<((second + 1) * 16_000)])
                )
            }
            _ = Self.run(&original, part(other))
            got += Self.run(&copy, part(next))
            _ = Self.run(&otherCopy, part(other))
        }
        #expect(got.count == expected.count)
        #expect(Self.firstDifference(got, expected) == nil)
        #expect(got.contains { $0.speech } && got.contains { !$0.speech })
        var lateCopy = late
        #expect(Self.firstDifference(Self.run(&lateCopy, next), expected) == nil)
    }
}
