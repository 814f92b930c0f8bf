import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// The ring rule with a far-end reference (`VADDecider.ringMarginOverEcho`, VADDecider+Ring.swift):
/// a clink over the agent's echo opens no speech, a bright voice over it is heard, and `EnergyVAD`,
/// which sums a frame's ring correlations only where the decider reads them, decides as the
/// analysis that sums them for every frame (what `vad detect` and `vad tune` run).
@Suite struct VADRingEchoTests {
    static let rate = VADRingTests.rate

    /// An agent's voice: harmonics 1–24 of 130 Hz (falling 6 dB an octave), a 4 Hz vibrato of
    /// ±4 %, in syllables of 250 ms every 330 ms, at `dbfs` RMS while on.
    static func agent(_ n: Int, dbfs: Double) -> [Float] {
        var x = [Float](repeating: 0, count: n)
        var phase = 0.0
        let norm = (1...24).reduce(0.0) { $0 + 1 / Double($1 * $1) }
        let gain = pow(10, dbfs / 20) * (2 / norm).squareRoot()
        for k in 0..<n where k % (rate * 33 / 100) < rate / 4 {
            let t = Double(k) / Double(rate)
            phase += 2 * .pi * 130 * (1 + 0.04 * sin(2 * .pi * 4 * t)) / Double(rate)
            var s = 0.0
            for h in 1...24 { s += sin(Double(h) * phase + Double(h)) / Double(h) }
            x[k] = Float(gain * s)
        }
        return x
    }

    /// The microphone: the agent's echo 60 ms later and 10 dB down, white noise at −60 dBFS, and
    /// `near` (the user's sound); and the reference.
    static func session(near: [Float]) -> (mic: [Float], reference: [Float]) {
        let n = near.count
        let reference = agent(n, dbfs: -26)
        let floor = VADRingTests.noise(n, dbfs: -60, seed: 81)
        let delay = rate * 6 / 100
        var mic = [Float](repeating: 0, count: n)
        for k in 0..<n {
            let echo: Float = k >= delay ? 0.316 * reference[k - delay] : 0
            mic[k] = echo + floor[k] + near[k]
        }
        return (mic, reference)
    }

    /// The decisions and details of the analysis that sums every frame's correlations.
    static func eager(mic: [Float], reference: [Float]) throws -> [(speech: Bool, detail: VADDecider.Detail)] {
        var analyzer = VADBandPairAnalyzer(sampleRate: rate, frameLength: 160)
        var decider = try VADDecider(configuration: VADConfiguration())
        var detail = VADDecider.Detail()
        var out: [(speech: Bool, detail: VADDecider.Detail)] = []
        mic.withUnsafeBufferPointer { m in
            reference.withUnsafeBufferPointer { r in
                analyzer.process(mic: m, reference: r) { frame, far in
                    let f = decider.process(mic: frame, reference: far, detail: &detail)
                    out.append((f.speech, detail))
                }
            }
        }
        return out
    }

    /// `EnergyVAD`'s decisions, fed in blocks of `block` samples.
    static func lazy(mic: [Float], reference: [Float], block: Int) throws -> [Bool] {
        var vad = try EnergyVAD(sampleRate: rate, configuration: VADConfiguration())
        var out = [VADDecider.Frame](
            repeating: VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false), count: 4)
        var speech: [Bool] = []
        var offset = 0
        while offset < mic.count {
            let end = min(mic.count, offset + block)
            let r = mic.withUnsafeBufferPointer { m in
                reference.withUnsafeBufferPointer { f in
                    out.withUnsafeMutableBufferPointer {
                        vad.process(
                            UnsafeBufferPointer(rebasing: m[offset..<end]),
                            reference: UnsafeBufferPointer(rebasing: f[offset..<end]), into: $0)
                    }
                }
            }
            speech += out[0..<r.produced].map(\.speech)
            offset += r.consumed
        }
        return speech
    }

    /// Beating clinks over the agent's echo open no speech (the rule waited on them), where the
    /// echo alone opens none either; a bright voice at the clinks' level over the same echo is heard
    /// within 30 ms of each syllable's start.
    @Test func aRingOverTheEchoOpensNoSpeech() throws {
        let n = Self.rate * 6
        let silent = Self.session(near: [Float](repeating: 0, count: n))
        #expect(try Self.eager(mic: silent.mic, reference: silent.reference).allSatisfy { !$0.speech })
        let clink = VADRingTests.clinks(
            n, start: Self.rate, period: Self.rate * 7 / 10, peakDbfs: -20, hz: [3000, 3060, 4700])
        let clinks = Self.session(near: clink)
        let decided = try Self.eager(mic: clinks.mic, reference: clinks.reference)
        #expect(decided.allSatisfy { !$0.speech }, "a clink opened speech")
        #expect(decided.contains { $0.detail.ringWaited }, "no frame waited on a ring")
        let voice = Self.session(near: VADRingTests.brightVoice(n, start: Self.rate, dbfs: -26))
        let voiced = try Self.eager(mic: voice.mic, reference: voice.reference)
        for syllable in stride(from: 100, to: 590, by: 40) {
            #expect(voiced[syllable..<(syllable + 3)].contains { $0.speech }, "syllable at frame \(syllable) late")
        }
        #expect(!voiced.contains { $0.detail.ringWaited }, "the voice waited on a ring")
    }

    /// `EnergyVAD` with a reference sums the correlations only where the decider reads them; its
    /// decisions are the eager analysis', frame for frame, in blocks of any size.
    @Test func theDetectorDecidesAsIfEveryFrameHadItsCorrelations() throws {
        let n = Self.rate * 6
        let clink = VADRingTests.clinks(
            n, start: Self.rate, period: Self.rate * 9 / 10, peakDbfs: -22, hz: [2500, 2540, 5100])
        let voice = VADRingTests.brightVoice(n, start: Self.rate * 3 / 2, dbfs: -28)
        let near = (0..<n).map { clink[$0] + voice[$0] }
        let s = Self.session(near: near)
        let always = try Self.eager(mic: s.mic, reference: s.reference).map(\.speech)
        #expect(always.contains(true) && always.contains(false))
        #expect(try Self.eager(mic: s.mic, reference: s.reference).contains { $0.detail.ringWaited })
        for block in [160, 257] {
            #expect(try Self.lazy(mic: s.mic, reference: s.reference, block: block) == always, "blocks of \(block)")
        }
    }
}
