// Band frames of a microphone that hears an agent's echo, built without audio: for tests of the
// decider's reference path that need exact quarter-frame powers (how a frame's energy lies in time),
// which filtered audio blurs.

import AudioPipelineCore
import Foundation

/// An agent's band levels (`VADBandPairAnalyzer`'s eight bands, speech-shaped: syllables of
/// 80–250 ms at levels within 8 dB, with gaps of 30–150 ms until `quietFrom`) and the microphone's
/// frames: its echo 60 ms later and 10 dB down over −99 dBFS of noise per band, each frame's energy
/// spread evenly over its quarters. `add` puts a sound over the echo.
public struct EchoBandFrames {
    /// The reference's band powers, one per frame.
    public private(set) var reference: [SIMD8<Double>] = []
    /// The microphone's frames.
    public private(set) var mic: [VADBandFrame] = []

    /// `count` frames of 10 ms; no gap starts at or after frame `quietFrom` (the agent talks on).
    public init(count: Int, quietFrom: Int, seed: UInt64) {
        var rng = TestRNG(seed: seed)
        let shape = SIMD8<Double>(-26, -24, -24, -27, -30, -34, -40, -46)
        var levels: [SIMD8<Double>] = []
        while levels.count < count {
            let level = Double.random(in: -8...0, using: &rng)
            for _ in 0..<Int.random(in: 8...25, using: &rng) { levels.append(shape + level) }
            if levels.count < quietFrom {
                for _ in 0..<Int.random(in: 3...15, using: &rng) { levels.append(SIMD8(repeating: -140)) }
            }
        }
        levels.removeLast(levels.count - count)
        reference = levels.map(Self.powers)
        let noise = SIMD8<Double>(repeating: pow(10, -9.9))
        mic = (0..<count).map { k in
            VADBandFrame(bands: k < 6 ? noise : noise + Self.powers(levels[k - 6] - 10))
        }
    }

    /// Adds a sound `excessDb` over what `bands` hold at frame `k` (the echo and the noise; by
    /// default the two highest, 3–5 kHz and over 5 kHz: a sound only above 1 kHz, which
    /// `VADDecider.voiceUnder1k` holds a frame more; from band 3, 600–1000 Hz, it stands out under 1
    /// kHz as a voice does), its energy spread over the frame's quarters as `spread` says (fractions
    /// of it per quarter, summing to 1; evenly, a voice, by default).
    public mutating func add(
        at k: Int, excessDb: Double, spread: SIMD4<Double> = SIMD4(repeating: 0.25), bands: ClosedRange<Int> = 6...7
    ) {
        let frame = mic[k]
        var extra = SIMD8<Double>()
        for b in bands { extra[b] = frame.bands[b] * pow(10, excessDb / 10) }
        // A quarter's power is a mean square over a quarter of the frame: the frame's share × 4 (the
        // quarters hold what lies above 300 Hz).
        var above300 = 0.0
        for b in 2..<8 { above300 += extra[b] }
        let quarters = frame.quarters + SIMD4<Float>(spread * 4 * above300)
        mic[k] = VADBandFrame(bands: frame.bands + extra, quarters: quarters)
    }

    /// Adds a sound of `levelDb` dBFS in each of `bands` (of the eight) at frame `k`, its energy
    /// above 300 Hz (bands 2–7) spread evenly over the frame's quarters.
    public mutating func add(at k: Int, levelDb: Double, bands: ClosedRange<Int>) {
        let frame = mic[k]
        var extra = SIMD8<Double>()
        for b in bands { extra[b] = pow(10, levelDb / 10) }
        var above300 = 0.0
        for b in 2..<8 { above300 += extra[b] }
        let quarters = frame.quarters + SIMD4<Float>(repeating: Float(above300))
        mic[k] = VADBandFrame(bands: frame.bands + extra, quarters: quarters)
    }

    /// A decider's decisions over the microphone's frames with their reference, by `configuration`,
    /// and what each was made of.
    public func decided(
        by configuration: VADConfiguration = VADConfiguration()
    ) throws -> [(frame: VADDecider.Frame, detail: VADDecider.Detail)] {
        var decider = try VADDecider(configuration: configuration)
        var detail = VADDecider.Detail()
        return zip(mic, reference).map { mic, reference in
            let frame = decider.process(mic: mic, reference: reference, detail: &detail)
            return (frame, detail)
        }
    }

    /// Band powers of band levels, dB.
    static func powers(_ levels: SIMD8<Double>) -> SIMD8<Double> {
        var p = SIMD8<Double>()
        for b in 0..<8 { p[b] = pow(10, levels[b] / 10) }
        return p
    }
}
