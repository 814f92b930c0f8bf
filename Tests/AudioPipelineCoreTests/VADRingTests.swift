import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// The ring measure (`VADRingPredictor`, `VADRingCorrelations.gain`) and the rule that reads it
/// without a reference (`VADDecider.ringGainMinimum`): a clink's few lasting partials predict
/// themselves from 2 ms before; a voice's many harmonics and a fricative's noise do not.
@Suite struct VADRingTests {
    static let rate = 16_000

    /// White noise at `dbfs` RMS.
    static func noise(_ n: Int, dbfs: Double, seed: UInt64) -> [Float] {
        var rng = TestRNG(seed: seed)
        let a = Float(pow(10, dbfs / 20) * 3.0.squareRoot())
        return (0..<n).map { _ in Float.random(in: -a...a, using: &rng) }
    }

    /// Clinks every `period` samples from `start`: partials at `hz` (the first two 60 Hz apart
    /// beat), decaying with a time constant of 80 ms, peaking at `peakDbfs`.
    static func clinks(_ n: Int, start: Int, period: Int, peakDbfs: Double, hz: [Double]) -> [Float] {
        var x = [Float](repeating: 0, count: n)
        let peak = pow(10, peakDbfs / 20) / Double(hz.count)
        var at = start
        while at < n {
            for k in 0..<min(rate / 2, n - at) {
                let t = Double(k) / Double(rate)
                var partials = 0.0
                for (i, f) in hz.enumerated() { partials += sin(2 * .pi * f * t + Double(i)) }
                x[at + k] += Float(peak * exp(-t / 0.08) * partials)
            }
            at += period
        }
        return x
    }

    /// A bright voice: 30 harmonics of 180 Hz from the seventh (1.26–6.5 kHz), a 5 Hz vibrato of
    /// ±3 %, in syllables of 200 ms every 400 ms from `start`, at `dbfs` RMS while on.
    static func brightVoice(_ n: Int, start: Int, dbfs: Double) -> [Float] {
        var x = [Float](repeating: 0, count: n)
        var phase = 0.0
        let gain = pow(10, dbfs / 20) * (2.0 / 30).squareRoot()
        for k in start..<n where (k - start) % (rate * 2 / 5) < rate / 5 {
            let t = Double(k) / Double(rate)
            phase += 2 * .pi * 180 * (1 + 0.03 * sin(2 * .pi * 5 * t)) / Double(rate)
            var s = 0.0
            for h in 7..<37 { s += sin(Double(h) * phase + Double(h * h)) }
            x[k] = Float(gain * s)
        }
        return x
    }

    /// The frames of `x` through the band analysis in blocks of `block` samples (0: at once).
    static func frames(_ x: [Float], block: Int = 0) -> [VADBandFrame] {
        var analyzer = VADBandAnalyzer(sampleRate: rate, frameLength: 160)
        var out: [VADBandFrame] = []
        x.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let end = block == 0 ? all.count : min(all.count, offset + block)
                analyzer.process(UnsafeBufferPointer(rebasing: all[offset..<end])) { out.append($0) }
                offset = end
            }
        }
        return out
    }

    /// The measure: a clink's frames after its first predict themselves (gain well over
    /// `ringGainMinimum`), over white noise 40 dB under its peak as in silence; white noise, a
    /// bright voice's frames and a fricative's (the noise's second difference) do not.
    @Test func aClinkPredictsItselfAndAVoiceDoesNot() throws {
        let n = Self.rate * 2
        let clink = Self.clinks(n, start: 8000, period: n, peakDbfs: -20, hz: [3000, 3060, 4700])
        let floor = Self.noise(n, dbfs: -60, seed: 71)
        let clinkFrames = Self.frames(zip(clink, floor).map { $0 + $1 })
        let ringing = clinkFrames[51..<60].map { $0.ring.gain() }
        #expect(ringing.allSatisfy { $0 >= 6 }, "\(ringing)")
        let silent = Self.frames(clink)[51..<60].map { $0.ring.gain() }
        #expect(silent.allSatisfy { $0 >= 6 }, "\(silent)")
        // Noise bursts of 200 ms every 400 ms, 30 dB over a floor of white noise: frames that stand
        // out, as a fricative's do (measured over the floor; frames near it are never read).
        let bursts = Self.noise(n, dbfs: -30, seed: 72).indices.map { ($0 % 6400) < 3200 ? Float(1) : 0 }
        let white = zip(Self.noise(n, dbfs: -30, seed: 72), bursts).map { $0 * $1 }
        let inBursts = (3..<(n / 160)).filter { ($0 * 160) % 6400 < 3200 - 160 }
        let whiteFrames = Self.frames(zip(white, floor).map { $0 + $1 })
        let whiteGains = inBursts.map { whiteFrames[$0].ring.gain() }
        #expect(whiteGains.allSatisfy { $0 < 1 }, "white noise: \(whiteGains.max() ?? 0) dB")
        let voice = Self.frames(zip(Self.brightVoice(n, start: 0, dbfs: -30), floor).map { $0 + $1 })
        // Frames wholly inside a syllable (200 ms on, 200 ms off), past the first.
        let voiced = inBursts.map { voice[$0].ring.gain() }
        #expect(voiced.allSatisfy { $0 < Float(VADDecider.ringGainMinimum) }, "voice: \(voiced.max() ?? 0) dB")
        let hiss = Self.noise(n + 2, dbfs: -30, seed: 73)
        var fricative = [Float](repeating: 0, count: n)
        for k in 0..<n {
            let second: Float = hiss[k + 2] - 2 * hiss[k + 1]
            fricative[k] = second + hiss[k]
        }
        let fricativeFrames = Self.frames(zip(zip(fricative, bursts).map { $0 * $1 }, floor).map { $0 + $1 })
        let fricativeGains = inBursts.map { fricativeFrames[$0].ring.gain() }
        #expect(fricativeGains.allSatisfy { $0 < 1 }, "fricative: \(fricativeGains.max() ?? 0) dB")
    }

    /// The correlations are the stream's, not the blocks': any block sizes give the same frames.
    @Test func theMeasureDoesNotDependOnBlockSizes() throws {
        let n = Self.rate
        let clink = Self.clinks(n, start: 4321, period: 5000, peakDbfs: -20, hz: [2100, 2170, 5300])
        let x = zip(clink, Self.noise(n, dbfs: -55, seed: 74)).map { $0 + $1 }
        let whole = Self.frames(x)
        for block in [1, 7, 160, 333, 1000] {
            #expect(Self.frames(x, block: block) == whole, "blocks of \(block)")
        }
        #expect(whole.contains { $0.ring.gain() > 6 })
    }

    /// Without a reference, beating clinks over noise open no speech (the rule waited on them:
    /// `ringWaited`), where a bright voice at the same level and in the same noise is heard within
    /// 30 ms of each syllable's start.
    @Test func aRingOpensNoSpeechWithoutAReference() throws {
        let n = Self.rate * 6
        let floor = Self.noise(n, dbfs: -60, seed: 75)
        let clink = Self.clinks(n, start: Self.rate, period: Self.rate * 7 / 10, peakDbfs: -20, hz: [3000, 3060, 4700])
        let clinks = try VADKnockTests.decide(Self.frames(zip(clink, floor).map { $0 + $1 }))
        #expect(clinks.allSatisfy { !$0.speech }, "a clink opened speech")
        #expect(clinks.contains { $0.detail.ringWaited }, "no frame waited on a ring")
        let voice = Self.brightVoice(n, start: Self.rate, dbfs: -26)
        let voiced = try VADKnockTests.decide(Self.frames(zip(voice, floor).map { $0 + $1 }))
        for syllable in stride(from: 100, to: 590, by: 40) {
            #expect(voiced[syllable..<(syllable + 3)].contains { $0.speech }, "syllable at frame \(syllable) late")
        }
        #expect(!voiced.contains { $0.detail.ringWaited }, "the voice waited on a ring")
    }

    /// `EnergyVAD` sums a frame's correlations only where the decider reads them (it hands the
    /// decider the predictor: `VADDecider.rings`); its decisions are those of the analysis that sums them for every
    /// frame (what `vad tune` and `vad detect` run), frame for frame, in blocks of any size.
    @Test func theDetectorDecidesAsIfEveryFrameHadItsCorrelations() throws {
        let n = Self.rate * 6
        let floor = Self.noise(n, dbfs: -60, seed: 76)
        let clink = Self.clinks(n, start: Self.rate, period: Self.rate * 9 / 10, peakDbfs: -22, hz: [2500, 2540, 5100])
        let voice = Self.brightVoice(n, start: Self.rate * 3 / 2, dbfs: -28)
        let x = (0..<n).map { floor[$0] + clink[$0] + voice[$0] }
        let always = try VADKnockTests.decide(Self.frames(x)).map(\.speech)
        #expect(always.contains(true) && always.contains(false))
        for block in [160, 257] {
            var vad = try EnergyVAD(sampleRate: Self.rate, configuration: VADConfiguration())
            var out = [VADDecider.Frame](
                repeating: VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false), count: 4)
            var lazy: [Bool] = []
            var offset = 0
            while offset < n {
                let end = min(n, offset + block)
                let r = x.withUnsafeBufferPointer { all in
                    let block = UnsafeBufferPointer(rebasing: all[offset..<end])
                    return out.withUnsafeMutableBufferPointer { vad.process(block, into: $0) }
                }
                lazy += out[0..<r.produced].map(\.speech)
                offset += r.consumed
            }
            #expect(lazy == always, "blocks of \(block)")
        }
    }

    /// The recursion against a direct solution: pᵀT⁻¹p of a well-conditioned Toeplitz matrix, and
    /// nil for one that is not positive definite.
    @Test func theRecursionSolvesTheNormalEquations() throws {
        let t = SIMD8<Double>(4, 1.5, 0.6, -0.2, 0.1, 0.05, -0.03, 0.01)
        let p = SIMD8<Double>(0.9, -0.3, 0.2, 0.4, -0.1, 0.05, 0.3, -0.2)
        // Gauss elimination on the full matrix.
        var a = (0..<8).map { i in (0..<8).map { j in t[abs(i - j)] } + [p[i]] }
        for c in 0..<8 {
            for r in (c + 1)..<8 {
                let f = a[r][c] / a[c][c]
                for k in c...8 { a[r][k] -= f * a[c][k] }
            }
        }
        var x = [Double](repeating: 0, count: 8)
        for r in stride(from: 7, through: 0, by: -1) {
            let s = ((r + 1)..<8).reduce(a[r][8]) { $0 - a[r][$1] * x[$1] }
            x[r] = s / a[r][r]
        }
        let direct = (0..<8).reduce(0.0) { $0 + p[$1] * x[$1] }
        let recursion = try #require(VADRingCorrelations.explainedPower(t, p))
        #expect(abs(recursion - direct) < 1e-9 * abs(direct), "\(recursion) vs \(direct)")
        #expect(VADRingCorrelations.explainedPower(SIMD8(1, 2, 0, 0, 0, 0, 0, 0), p) == nil)
    }
}
