import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// The room between loudspeaker and microphone, streaming at the device rate: the echo of what the
/// loudspeaker plays (delay, gain, a small loudspeaker's band-limited response or a measured
/// impulse response) and the microphone's noise floor. Buffers are allocated at init; `echo` and
/// `addNoise` allocate nothing and give the same output for any block sizes.
struct SessionRoom {
    private var delay: [Float]
    private var delayAt = 0
    private let gain: Float
    private var speaker: [Biquad]
    /// The measured impulse response, convolved by FFT (its block latency taken from the delay).
    private let convolver: FFTWConvolver?
    private var scratch: [Float]
    private var noise: SplitMix64
    private let noiseScale: Float

    init(settings e: EchoSettings, rate: Int, impulseResponse: [Float]?, noiseDbfs: Double?, seed: UInt64) {
        convolver = e.enabled ? impulseResponse.flatMap { $0.isEmpty ? nil : FFTWConvolver(impulseResponse: $0) } : nil
        let d = e.enabled ? Int((e.delayMs * Double(rate) / 1000).rounded()) : 0
        delay = [Float](repeating: 0, count: max(0, d - (convolver?.latency ?? 0)) + 1)
        scratch = [Float](repeating: 0, count: convolver == nil ? 0 : 4096)
        gain = e.enabled ? Float(pow(10, e.gainDb / 20)) : 0
        if e.enabled && e.smallSpeaker && impulseResponse == nil {
            let r = Double(rate)
            speaker = [
                .highPass(300, rate: r), .highPass(300, rate: r), .peak(1_000, gainDb: 5, q: 1.4, rate: r),
                .lowPass(min(5_000, 0.45 * r), rate: r),
            ]
        } else {
            speaker = []
        }
        noise = SplitMix64(seed: seed ^ 0x6E6F_6973_6500)
        // Uniform noise on (−a, a) has RMS a/√3.
        noiseScale = noiseDbfs.map { Float(pow(10, $0 / 20) * 3.0.squareRoot()) } ?? 0
    }

    /// The echo of `played` (loudspeaker samples) into `out`, same count.
    mutating func echo(_ played: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        guard gain != 0 else {
            out.update(repeating: 0)
            return
        }
        for i in 0..<played.count {
            delay[delayAt] = played[i]
            delayAt = delayAt + 1 == delay.count ? 0 : delayAt + 1
            var y = delay[delayAt] * gain  // the oldest: `delay.count - 1` samples ago
            for k in speaker.indices { y = speaker[k].process(y) }
            out[i] = y
        }
        guard let convolver else { return }
        var done = 0
        while done < played.count {
            let n = min(scratch.count, played.count - done)
            scratch.withUnsafeMutableBufferPointer { s in
                convolver.process(UnsafeBufferPointer(rebasing: out[done..<(done + n)]), into: s)
                for i in 0..<n { out[done + i] = s[i] }
            }
            done += n
        }
    }

    /// Adds the noise floor to `mic`.
    mutating func addNoise(_ mic: UnsafeMutableBufferPointer<Float>) {
        guard noiseScale > 0 else { return }
        for i in mic.indices {
            let u = Float(noise.next() >> 40) * (1 / Float(1 << 23)) - 1  // uniform on [−1, 1)
            mic[i] += noiseScale * u
        }
    }

}

/// A second-order IIR section (the Audio EQ Cookbook's designs), transposed direct form II.
struct Biquad {
    private let b0, b1, b2, a1, a2: Float
    private var s1: Float = 0, s2: Float = 0

    private init(_ b: (Double, Double, Double), _ a: (Double, Double, Double)) {
        b0 = Float(b.0 / a.0); b1 = Float(b.1 / a.0); b2 = Float(b.2 / a.0)
        a1 = Float(a.1 / a.0); a2 = Float(a.2 / a.0)
    }

    static func highPass(_ f: Double, rate: Double, q: Double = 0.7071) -> Biquad {
        let w = 2 * Double.pi * f / rate, alpha = sin(w) / (2 * q), c = cos(w)
        return Biquad(((1 + c) / 2, -(1 + c), (1 + c) / 2), (1 + alpha, -2 * c, 1 - alpha))
    }

    static func lowPass(_ f: Double, rate: Double, q: Double = 0.7071) -> Biquad {
        let w = 2 * Double.pi * f / rate, alpha = sin(w) / (2 * q), c = cos(w)
        return Biquad(((1 - c) / 2, 1 - c, (1 - c) / 2), (1 + alpha, -2 * c, 1 - alpha))
    }

    static func peak(_ f: Double, gainDb: Double, q: Double, rate: Double) -> Biquad {
        let w = 2 * Double.pi * f / rate, alpha = sin(w) / (2 * q), c = cos(w), a = pow(10, gainDb / 40)
        return Biquad((1 + alpha * a, -2 * c, 1 - alpha * a), (1 + alpha / a, -2 * c, 1 - alpha / a))
    }

    @inline(__always)
    mutating func process(_ x: Float) -> Float {
        let y = b0 * x + s1
        s1 = b1 * x - a1 * y + s2
        s2 = b2 * x - a2 * y
        return y
    }
}
