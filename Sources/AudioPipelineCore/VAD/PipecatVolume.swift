import RealModule

/// Pipecat's volume measure for its VAD's `min_volume` gate, as a streaming stage: after every
/// analysis window (512 samples at 16 kHz, 256 at 8 kHz) the loudness of the most recent 400 ms
/// (one ITU-R BS.1770 gating block: K-weighting filter started from rest over the block, mean
/// square, −0.691 + 10·log10, absolute gate at −70 LUFS, the result on the 0.1 LU grid of an
/// EBU R 128 histogram, as the `loudness` package pipecat uses reports it), mapped from −110…−10
/// LUFS to 0…1 and clamped; 0 until 400 ms have arrived; then smoothed exponentially with factor
/// 0.2 (`prev + 0.2·(v − prev)`, starting from 0).
///
/// The measure depends on the audio only, not on the VAD's parameters: a sweep computes it once per
/// file. Samples are floats as a 16-bit client sends them (int16 / 32768).
public struct PipecatVolume: Sendable {
    /// The analyser's rate, Hz: 8000 or 16000.
    public let sampleRate: Int
    /// Samples per analysis window.
    public let windowSamples: Int
    /// Samples in the loudness block (⌈0.4 · rate⌉).
    public let blockSamples: Int
    /// Pipecat's `_smoothing_factor`: the weight of each new block's volume in the exponential
    /// smoothing, `prev + 0.2 · (v − prev)`.
    public static let smoothingFactor = 0.2

    private var ring: [Float]
    private var ringStart = 0
    private var total = 0
    private var smoothed = 0.0
    private let filter: (b: SIMD8<Double>, a: SIMD8<Double>)
    /// Energy boundaries of the 1,000 histogram bins (−70…+30 LUFS in 0.1 LU steps) and each bin's
    /// loudness.
    private let boundaries: [Double]
    private let centres: [Double]

    /// - Parameters:
    ///   - sampleRate: the analyser's rate, 8000 or 16000 (pipecat's silero runs at those);
    ///   - windowSamples: the analyser's window (silero: 512 at 16 kHz, 256 at 8 kHz).
    public init(sampleRate: Int, windowSamples: Int) throws(AudioPipelineError) {
        guard sampleRate == 16000 || sampleRate == 8000 else {
            throw AudioPipelineError(
                .invalidConfiguration, "pipecat's VAD runs at 8000 or 16000 Hz, not \(sampleRate) (convert first)")
        }
        guard (1...sampleRate).contains(windowSamples) else {
            throw AudioPipelineError(
                .invalidConfiguration, "a window of \(windowSamples) samples is not 1 sample to 1 s")
        }
        self.sampleRate = sampleRate
        self.windowSamples = windowSamples
        blockSamples = (sampleRate * 2 + 4) / 5  // ⌈0.4 · rate⌉ for these rates
        ring = [Float](repeating: 0, count: blockSamples)
        filter = Self.kWeighting(rate: Double(sampleRate))
        boundaries = (0...1000).map { Self.energy(-70 + Double($0) / 10) }
        centres = (0..<1000).map { i in
            let e = Self.energy(-70 + (Double(i) + 0.5) / 10)
            return 10 * Double.log10(e) - 0.691
        }
    }

    static func energy(_ lufs: Double) -> Double { Double.pow(10, (lufs + 0.691) / 10) }

    /// The K-weighting pre-filter (high shelf then high pass) as one 4th-order filter, designed for
    /// `rate` from the BS.1770 prototype (as libebur128 designs it). Coefficients in lanes 0…4.
    static func kWeighting(rate: Double) -> (b: SIMD8<Double>, a: SIMD8<Double>) {
        var f0 = 1681.974450955533
        let gain = 3.999843853973347
        var q = 0.7071752369554196
        var k = Double.tan(Double.pi * f0 / rate)
        let vh = Double.pow(10, gain / 20)
        let vb = Double.pow(vh, 0.4996667741545416)
        let a0 = 1 + k / q + k * k
        let pb = [(vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0]
        let pa = [1, 2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0]
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = Double.tan(Double.pi * f0 / rate)
        let rb: [Double] = [1, -2, 1]
        let ra = [1, 2 * (k * k - 1) / (1 + k / q + k * k), (1 - k / q + k * k) / (1 + k / q + k * k)]
        var b = SIMD8<Double>()
        var a = SIMD8<Double>()
        for i in 0..<3 {
            for j in 0..<3 {
                b[i + j] += pb[i] * rb[j]
                a[i + j] += pa[i] * ra[j]
            }
        }
        return (b, a)
    }

    /// Takes samples; calls `window` with each completed window's smoothed volume, in order.
    public mutating func process(_ samples: UnsafeBufferPointer<Float>, window: (Double) -> Void) {
        for x in samples {
            ring[ringStart] = x
            ringStart = ringStart + 1 == blockSamples ? 0 : ringStart + 1
            total += 1
            if total % windowSamples == 0 {
                let v = total >= blockSamples ? blockVolume() : 0
                smoothed += Self.smoothingFactor * (v - smoothed)
                window(smoothed)
            }
        }
    }

    /// The 0…1 volume of the block in the ring (oldest sample at `ringStart`).
    private func blockVolume() -> Double {
        var v1 = 0.0
        var v2 = 0.0
        var v3 = 0.0
        var v4 = 0.0
        var sum = 0.0
        let (b, a) = filter
        ring.withUnsafeBufferPointer { r in
            for n in 0..<blockSamples {
                var i = ringStart + n
                if i >= blockSamples { i -= blockSamples }
                // Direct form II, as the reference measure filters.
                let v0 = Double(r[i]) - a[1] * v1 - a[2] * v2 - a[3] * v3 - a[4] * v4
                let y = b[0] * v0 + b[1] * v1 + b[2] * v2 + b[3] * v3 + b[4] * v4
                v4 = v3
                v3 = v2
                v2 = v1
                v1 = v0
                sum += y * y
            }
        }
        let e = sum / Double(blockSamples)
        guard e >= boundaries[0] else { return 0 }  // below the absolute gate: −inf LUFS
        var lo = 0
        var hi = 1000
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if e >= boundaries[mid] { lo = mid } else { hi = mid }
        }
        return min(1, max(0, (centres[lo] + 110) / 100))
    }

    /// Forgets the stream (a new recording).
    public mutating func reset() {
        for i in ring.indices { ring[i] = 0 }
        ringStart = 0
        total = 0
        smoothed = 0
    }
}
