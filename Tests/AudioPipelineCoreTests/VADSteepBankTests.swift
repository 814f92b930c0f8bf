import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// A 0.5-amplitude tone at `hz`, one second.
private func tone(_ hz: Double, sampleRate: Int) -> [Float] {
    (0..<sampleRate).map { Float(0.5 * sin(2 * Double.pi * hz * Double($0) / Double(sampleRate))) }
}

/// dB relative to a 0.5-amplitude sine's power (0.125).
private func relative(_ p: SIMD8<Double>) -> SIMD8<Double> { SIMD8((0..<8).map { 10 * log10(p[$0] / 0.125) }) }

private func relative(_ p: SIMD4<Double>) -> SIMD4<Double> { SIMD4((0..<4).map { 10 * log10(p[$0] / 0.125) }) }

/// The steep band powers (relative dB) of a tone at `hz` as the microphone, from a frame well after
/// the filters settled; the reference a tone at `referenceHz` (silence: nil).
private func tonePowers(_ hz: Double, sampleRate: Int, referenceHz: Double? = nil) -> (
    mic: SIMD8<Double>, reference: SIMD8<Double>
) {
    let x = tone(hz, sampleRate: sampleRate)
    let r = referenceHz.map { tone($0, sampleRate: sampleRate) } ?? [Float](repeating: 0, count: sampleRate)
    var analyzer = VADBandPairAnalyzer(sampleRate: sampleRate, frameLength: sampleRate / 100)
    var frames: [(SIMD8<Double>, SIMD8<Double>)] = []
    x.withUnsafeBufferPointer { m in
        r.withUnsafeBufferPointer { f in analyzer.process(mic: m, reference: f) { frames.append(($0.bands, $1)) } }
    }
    return (relative(frames[80].0), relative(frames[80].1))
}

/// The one-pole band powers (relative dB) of a tone at `hz`.
private func onePolePowers(_ hz: Double, sampleRate: Int) -> SIMD4<Double> {
    var analyzer = VADBandAnalyzer(sampleRate: sampleRate, frameLength: sampleRate / 100)
    var frames: [SIMD4<Double>] = []
    tone(hz, sampleRate: sampleRate).withUnsafeBufferPointer {
        analyzer.process($0) { frames.append($0.bands.lowHalf) }
    }
    return relative(frames[80])
}

@Suite struct VADSteepBankTests {
    /// A tone in the middle of a band passes there but for its edges' 1 dB (fourth-order
    /// Butterworth edges 0.37 octave away), its neighbours hold 8 dB less or under and the bands
    /// further out 20 dB less or under; the one-pole splits leave a band below a 550 Hz tone 6–7 dB
    /// under it — what blurs an echo's level per band.
    @Test(arguments: [16_000, 48_000])
    func aToneStaysInItsBand(sampleRate: Int) {
        let steep = tonePowers(2324, sampleRate: sampleRate).mic
        #expect(abs(steep[5]) < 1.5, "\(steep)")
        for b in [4, 6] { #expect(steep[b] < -8, "band \(b): \(steep)") }
        for b in [0, 1, 2, 3, 7] { #expect(steep[b] < -20, "band \(b): \(steep)") }
        let onePole = onePolePowers(550, sampleRate: sampleRate)
        #expect(onePole[0] > -12, "one-pole band 0: \(onePole)")
    }

    /// At a split both bands get half the tone (−3 dB: a Butterworth's edge, there for high- and
    /// low-pass alike; the band's other edge and, below 150 Hz, the 80 Hz high-pass take under
    /// 0.4 dB more): the cutoffs sit where the splits are.
    @Test(arguments: [16_000, 24_000, 48_000])
    func aToneAtASplitHalvesBetweenItsTwoBands(sampleRate: Int) {
        for (lower, split) in VADBandPairAnalyzer.splitsHz.enumerated() {
            let p = tonePowers(split, sampleRate: sampleRate).mic
            #expect(abs(p[lower] + 3.01) < 0.5, "\(split) Hz: \(p)")
            #expect(abs(p[lower + 1] + 3.01) < 0.5, "\(split) Hz: \(p)")
        }
    }

    /// At a rate too low for a split (4 kHz: 1800 Hz and up are past 0.45 × the rate) the bands
    /// above it hold silence and the one below takes the rest; nothing is NaN.
    @Test func aSplitPastNyquistLeavesItsBandSilent() {
        let p = tonePowers(1500, sampleRate: 4000).mic
        #expect(abs(p[4]) < 0.5, "\(p)")
        for b in 5..<8 { #expect(p[b] < -100, "\(p)") }
    }

    /// A NaN sample loses its frame only: the filters start clean in the next.
    @Test func aNonFiniteSampleLosesOneFrame() {
        var x = (0..<16_000).map { Float(0.1 * sin(2 * Double.pi * 700 * Double($0) / 16_000)) }
        x[4005] = .nan
        var analyzer = VADBandPairAnalyzer(sampleRate: 16_000, frameLength: 160)
        var frames: [SIMD8<Double>] = []
        x.withUnsafeBufferPointer { m in analyzer.process(mic: m, reference: m) { frames.append($0.bands + $1) } }
        #expect(frames.count == 100)
        #expect(!frames[25].sum().isFinite)
        #expect(frames[27...].allSatisfy { $0.sum().isFinite && $0[3] > 1e-4 })
    }

    /// `isFinite` (asked every frame, answered by lanes when no value is near overflow) is whether
    /// the plain sum of the state is finite: for states set directly — values just under and over
    /// the lanes' limit (`Float.greatestFiniteMagnitude / 128`), finite ones whose sum overflows,
    /// large ones that cancel, infinite and NaN ones — and for states that signals from silence to
    /// 3e38 leave.
    @Test func theStateIsFiniteExactlyWhenItsSumIs() {
        func plainSum(_ state: [Float]) -> Float {
            var sum: Float = 0
            for v in state { sum += v }
            return sum
        }
        var bank = VADSteepBank(sampleRate: 16_000)
        let n = bank.state.count
        let limit = Float.greatestFiniteMagnitude / 128
        var states: [[Float]] = [
            [Float](repeating: 0, count: n),
            [Float](repeating: limit.nextDown, count: n),  // the largest that the lanes answer: finite
            [Float](repeating: limit, count: n),  // over it; the sum is the largest float, finite
            [Float](repeating: 3e37, count: n),  // each finite, the sum infinite
            (0..<n).map { $0 % 2 == 0 ? 3e38 : -3e38 },  // each finite and large, the sum 0
        ]
        for bad: Float in [.infinity, -.infinity, .nan] {
            var s = [Float](repeating: 1, count: n)
            s[77] = bad
            states.append(s)
        }
        for s in states {
            bank.state = s
            #expect(bank.isFinite == plainSum(s).isFinite, "\(s[0]), \(s[1]), \(s[77])")
        }
        #expect(states.map { plainSum($0).isFinite } == [true, true, true, false, true, false, false, false])
        for amplitude: Float in [0, 1e-3, 1, 1e30, 1e36, 1e37, 1e38, 3e38, .infinity, .nan] {
            var signal = VADSteepBank(sampleRate: 16_000)
            var rng = TestRNG(seed: 12)
            let x = (0..<1600).map { _ in amplitude * Float.random(in: -1...1, using: &rng) }
            let quiet = [Float](repeating: 0.01, count: 160)
            for frame in 0..<10 {
                x.withUnsafeBufferPointer { m in
                    quiet.withUnsafeBufferPointer { r in
                        _ = signal.run(m.baseAddress! + frame * 160, r.baseAddress!, 160, quarterLength: 40)
                    }
                }
                #expect(signal.isFinite == plainSum(signal.state).isFinite, "amplitude \(amplitude), frame \(frame)")
            }
        }
    }

    /// The reference goes through the same filters as the microphone, and neither depends on the
    /// other: a tone as the reference gives the bands it gives as the microphone, bit for bit, and
    /// the microphone's bands are the same beside a silent reference or a loud one.
    @Test func theReferenceHasTheMicrophonesBandsAndNeitherTouchesTheOther() {
        let a = tonePowers(700, sampleRate: 24_000, referenceHz: 700)
        #expect(a.mic == a.reference)
        let b = tonePowers(700, sampleRate: 24_000, referenceHz: 2500)
        #expect(b.mic == a.mic)
        #expect(tonePowers(700, sampleRate: 24_000).mic == a.mic)
    }

    /// Frames do not depend on how the two streams are cut into blocks (equal blocks of any size,
    /// one sample at a time included), the last partial frame included.
    @Test(arguments: [16_000, 44_100])
    func framesDoNotDependOnBlockSizes(sampleRate: Int) {
        var rng = TestRNG(seed: 3)
        let n = sampleRate / 2 + 77
        let mic = (0..<n).map { _ in Float.random(in: -0.3...0.3, using: &rng) }
        let far = (0..<n).map { _ in Float.random(in: -0.1...0.1, using: &rng) }
        func run(_ blocks: [Int]) -> [VADBandFrame] {
            var analyzer = VADBandPairAnalyzer(sampleRate: sampleRate, frameLength: sampleRate / 100)
            var out: [VADBandFrame] = []
            var offset = 0
            mic.withUnsafeBufferPointer { m in
                far.withUnsafeBufferPointer { f in
                    for b in blocks {
                        analyzer.process(
                            mic: UnsafeBufferPointer(rebasing: m[offset..<offset + b]),
                            reference: UnsafeBufferPointer(rebasing: f[offset..<offset + b])
                        ) {
                            out.append($0); out.append(VADBandFrame(bands: $1, quarters: SIMD4()))
                        }
                        offset += b
                    }
                }
            }
            analyzer.finish {
                out.append($0); out.append(VADBandFrame(bands: $1, quarters: SIMD4()))
            }
            return out
        }
        let whole = run([n])
        #expect(whole.count == 2 * (n / (sampleRate / 100) + 1))
        #expect(firstDifference(run(randomBlocks(total: n, maxBlock: 97, rng: &rng)), whole) == nil)
        #expect(firstDifference(run([Int](repeating: 1, count: n)), whole) == nil)
    }
}
