import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// The room between loudspeaker and microphone, streaming at the device rate: the echo of what the
/// loudspeaker plays — its soft clipping, the direct path's delay and gain, a small loudspeaker's
/// band and resonance, the room's reverberant tail (or a measured impulse response instead of the
/// speaker and the tail) — and the microphone's noise floor. Buffers are allocated at init; `echo`
/// and `addNoise` allocate nothing and give the same output for any block sizes.
struct SessionRoom {
    private var delay: [Float]
    private var delayAt = 0
    private let gain: Float
    private let drive: Float
    /// The loudspeaker's volume change: from the sample `volumeChangeAt` on, what plays is scaled by
    /// `volumeFactor`; `playedCount` counts the samples played.
    private let volumeChangeAt: Int
    private let volumeFactor: Float
    private var playedCount = 0
    private var speaker: [Biquad]
    /// The measured impulse response or the room's tail, convolved by FFT (its block latency taken
    /// from the delay).
    private let convolver: FFTWConvolver?
    private var scratch: [Float]
    private var noise: SplitMix64
    private let noiseScale: Float

    init(settings e: EchoSettings, rate: Int, impulseResponse: [Float]?, noiseDbfs: Double?, seed: UInt64) {
        let response = impulseResponse.flatMap { $0.isEmpty ? nil : $0 }
        let tail = response == nil && e.rt60Ms > 0 ? Self.tail(e, rate: rate, seed: seed) : nil
        convolver = e.enabled ? (response ?? tail).map { FFTWConvolver(impulseResponse: $0) } : nil
        let d = e.enabled ? Int((e.delayMs * Double(rate) / 1000).rounded()) : 0
        delay = [Float](repeating: 0, count: max(0, d - (convolver?.latency ?? 0)) + 1)
        scratch = [Float](repeating: 0, count: convolver == nil ? 0 : 4096)
        gain = e.enabled ? Float(pow(10, e.gainDb / 20)) : 0
        drive = Float(e.softClip)
        // (validated to 0…86,400 s; held to it here too, so no value reaches `Int` unchecked)
        volumeChangeAt =
            e.volumeChangeS.map { s in
                s.isFinite ? Int((min(max(s, 0), 86_400) * Double(rate)).rounded()) : Int.max
            } ?? Int.max
        volumeFactor = Float(pow(10, e.volumeChangeDb / 20))
        if e.enabled && e.smallSpeaker && response == nil {
            let r = Double(rate)
            let low = min(e.speakerLowPassHz, 0.45 * r)
            speaker = [
                .highPass(e.speakerHighPassHz, rate: r), .highPass(e.speakerHighPassHz, rate: r),
                .peak(min(e.speakerPeakHz, 0.45 * r), gainDb: e.speakerPeakDb, q: 1.4, rate: r),
                .lowPass(low, rate: r),
            ]
        } else {
            speaker = []
        }
        noise = SplitMix64(seed: seed ^ 0x6E6F_6973_6500)
        // Uniform noise on (−a, a) has RMS a/√3.
        noiseScale = noiseDbfs.map { Float(pow(10, $0 / 20) * 3.0.squareRoot()) } ?? 0
    }

    /// The room's impulse response after the direct path: a unit impulse, then from 2 ms on noise
    /// decaying 60 dB over `rt60Ms` whose energy is `drrDb` below the direct path's; 1.2 × RT60
    /// long (2 s at most). The same for a seed.
    static func tail(_ e: EchoSettings, rate: Int, seed: UInt64) -> [Float] {
        let n = max(2, min(2 * rate, Int(1.2 * e.rt60Ms * Double(rate) / 1000)))
        var rng = SplitMix64(seed: seed ^ 0x7461_696C)
        var h = [Float](repeating: 0, count: n)
        let start = rate / 500
        var energy = 0.0
        for k in start..<n {
            // Gaussian-ish: the sum of four uniforms, centred.
            var u = 0.0
            for _ in 0..<4 { u += Double(rng.next() >> 11) / Double(1 << 53) }
            let v = (u - 2) * exp(-6.91 * Double(k) / (e.rt60Ms * Double(rate) / 1000))
            h[k] = Float(v)
            energy += v * v
        }
        let scale = energy > 0 ? (pow(10, -e.drrDb / 10) / energy).squareRoot() : 0
        for k in start..<n { h[k] *= Float(scale) }
        h[0] = 1
        return h
    }

    /// The echo of `played` (loudspeaker samples) into `out`, same count.
    mutating func echo(_ played: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        guard gain != 0 else {
            out.update(repeating: 0)
            return
        }
        for i in 0..<played.count {
            let x = playedCount >= volumeChangeAt ? played[i] * volumeFactor : played[i]
            playedCount += 1
            delay[delayAt] = drive > 0 ? Float(tanh(Double(drive * x))) / drive : x
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
