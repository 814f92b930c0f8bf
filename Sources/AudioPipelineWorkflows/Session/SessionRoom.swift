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
    /// The impulse response (reversed) and the recent delayed samples, twice over so that the
    /// newest `ir.count` are contiguous.
    private let ir: [Float]
    private var history: [Float]
    private var historyAt = 0
    private var noise: SplitMix64
    private let noiseScale: Float

    init(settings e: EchoSettings, rate: Int, impulseResponse: [Float]?, noiseDbfs: Double?, seed: UInt64) {
        let d = e.enabled ? Int((e.delayMs * Double(rate) / 1000).rounded()) : 0
        delay = [Float](repeating: 0, count: d + 1)
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
        ir = (impulseResponse ?? []).reversed()
        history = [Float](repeating: 0, count: 2 * max(1, ir.count))
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
            out[i] = ir.isEmpty ? y : convolve(y)
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

    /// One output sample of the impulse response over the delayed echo (direct form).
    private mutating func convolve(_ x: Float) -> Float {
        let n = ir.count
        history[historyAt] = x
        history[historyAt + n] = x
        historyAt = historyAt + 1 == n ? 0 : historyAt + 1
        var sum: Float = 0
        ir.withUnsafeBufferPointer { h in
            history.withUnsafeBufferPointer { x in
                let base = x.baseAddress! + historyAt
                for k in 0..<n { sum += h[k] * base[k] }
            }
        }
        return sum
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
