import CVectorKernels
import RealModule

/// The band analysis with steep filters (`VADBandPairAnalyzer`'s): the four bands of `VADBandAnalyzer` (below 300 Hz,
/// 300–1000, 1000–3000, above 3000 Hz) cut by fourth-order Butterworth high- and low-passes
/// (24 dB per octave) instead of one-pole splits (6 dB per octave). What the detector uses when it
/// has a far-end reference: the echo model predicts each band of the microphone from the same band
/// of the reference, and one-pole bands leak so much of their neighbours that a change of the
/// reference's spectrum inside a band moves the echo's level there by several dB (a loudspeaker
/// cuts below 300 Hz; whether the agent's voice sits at 120 or 280 Hz then changes the first
/// band's echo gain by 6 dB). Measured with `scripts/vad-band-study.py` (generated barge-in items,
/// gains learnt per item): of the 10 ms frames where the user talks over the agent, the share
/// scoring above what 99.5 % of echo-only frames score rose from 0.57 to 0.73 on seeds 101–104 (where
/// the choice was made), 0.56 to 0.71 on 601–604 and 0.53 to 0.69 on 901–904, drawn after it
/// (docs/design/vad-experiments.md).
///
/// Each band is a cascade of four biquads (transposed direct form II, Float; a band with fewer
/// sections has pass-through ones): below 300 Hz a second-order high-pass at 80 Hz (rumble and DC,
/// as the one-pole analysis) and a fourth-order low-pass; the middle bands a fourth-order high-pass
/// and low-pass; above 3000 Hz a fourth-order high-pass. The microphone's four bands and the
/// reference's run side by side in eight lanes, one sample at a time, in C (`cvk_steep_bands`:
/// AVX2 with fused multiply-adds where the CPU has them — Swift on the SSE2 baseline took 3.7 µs
/// per 10 ms frame pair at 16 kHz, over the VAD's 2 µs budget).
struct VADSteepBank: Sendable {
    static let sectionCount = 4
    static let lanes = 8
    /// Q of the two sections of a fourth-order Butterworth filter (its pole pairs), and of a
    /// second-order one.
    static let fourthOrderQ = (0.541_196_100_146_197, 1.306_562_964_876_376_7)
    static let secondOrderQ = 0.707_106_781_186_547_5
    /// Whether the AVX2 kernel runs (the portable one gives the same bits, slower).
    static let vector: Bool = {
        #if arch(x86_64)
            return cvk_fir_level() >= 1
        #else
            return false
        #endif
    }()

    /// Per section five rows of eight lanes: b0, b1, b2, −a1, −a2 (lanes 4–7 repeat 0–3).
    private let coefficients: [Float]
    /// Per section two rows of eight lanes: s1, s2.
    private var state: [Float]

    /// The filters for audio at `sampleRate` Hz. A split at or above 0.45 × the rate (at 4–6 kHz
    /// rates) leaves the band above it empty and the one below it unfiltered there.
    init(sampleRate: Int) {
        let fs = Double(sampleRate)
        let splits = VADBandAnalyzer.splitsHz
        let q = Self.fourthOrderQ
        // Per band, its sections in order: (high-pass?, cutoff, Q); the rest pass through.
        let plan: [[(high: Bool, hz: Double, q: Double)]] = [
            [(true, 80, Self.secondOrderQ), (false, splits[0], q.0), (false, splits[0], q.1)],
            [(true, splits[0], q.0), (true, splits[0], q.1), (false, splits[1], q.0), (false, splits[1], q.1)],
            [(true, splits[1], q.0), (true, splits[1], q.1), (false, splits[2], q.0), (false, splits[2], q.1)],
            [(true, splits[2], q.0), (true, splits[2], q.1)],
        ]
        var c = [Float](repeating: 0, count: Self.sectionCount * 5 * Self.lanes)
        for band in 0..<4 {
            for section in 0..<Self.sectionCount {
                var row: (b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) = (1, 0, 0, 0, 0)
                if section < plan[band].count {
                    let s = plan[band][section]
                    row = Self.coefficients(high: s.high, hz: s.hz, q: s.q, sampleRate: fs)
                }
                let values = [row.b0, row.b1, row.b2, -row.a1, -row.a2]
                for (j, v) in values.enumerated() {
                    for lane in [band, band + 4] { c[(section * 5 + j) * Self.lanes + lane] = Float(v) }
                }
            }
        }
        coefficients = c
        state = [Float](repeating: 0, count: Self.sectionCount * 2 * Self.lanes)
    }

    /// A Butterworth section (the bilinear transform with the cutoff prewarped, as a digital
    /// Butterworth design places it), normalised by a0. A cutoff at or above 0.45 × the rate: a
    /// low-pass passes everything, a high-pass nothing.
    static func coefficients(high: Bool, hz: Double, q: Double, sampleRate fs: Double)
        -> (b0: Double, b1: Double, b2: Double, a1: Double, a2: Double)
    {
        guard hz < 0.45 * fs else { return high ? (0, 0, 0, 0, 0) : (1, 0, 0, 0, 0) }
        let w = 2 * Double.pi * hz / fs
        let cosW = Double.cos(w)
        let alpha = Double.sin(w) / (2 * q)
        let a0 = 1 + alpha
        let b = high ? (1 + cosW) / 2 : (1 - cosW) / 2
        let b1 = high ? -(1 + cosW) : 1 - cosW
        return (b / a0, b1 / a0, b / a0, -2 * cosW / a0, (1 - alpha) / a0)
    }

    /// Forgets the signals: every section's state to zero.
    mutating func reset() {
        for i in state.indices { state[i] = 0 }
    }

    /// Whether the state is finite (a NaN or infinite sample poisons it for good: the caller resets).
    var isFinite: Bool {
        var sum: Float = 0
        for v in state { sum += v }
        return sum.isFinite
    }

    /// `n` samples of the microphone (`x0`) and the reference (`x1`): the sums of squares per band
    /// (lanes 0–3 the microphone's, 4–7 the reference's) and the microphone's power above 300 Hz
    /// summed per quarter (`quarterLength` samples each, the last to `n`).
    mutating func run(_ x0: UnsafePointer<Float>, _ x1: UnsafePointer<Float>, _ n: Int, quarterLength: Int)
        -> (energy: SIMD8<Float>, quarters: SIMD4<Float>)
    {
        var energy = SIMD8<Float>()
        var quarters = SIMD4<Float>()
        coefficients.withUnsafeBufferPointer { c in
            state.withUnsafeMutableBufferPointer { s in
                withUnsafeMutableBytes(of: &energy) { e in
                    withUnsafeMutableBytes(of: &quarters) { q in
                        let ep = e.baseAddress!.assumingMemoryBound(to: Float.self)
                        let qp = q.baseAddress!.assumingMemoryBound(to: Float.self)
                        #if arch(x86_64)
                            if Self.vector {
                                cvk_steep_bands_avx2(c.baseAddress!, s.baseAddress!, x0, x1, n, quarterLength, ep, qp)
                                return
                            }
                        #endif
                        cvk_steep_bands(c.baseAddress!, s.baseAddress!, x0, x1, n, quarterLength, ep, qp)
                    }
                }
            }
        }
        return (energy, quarters)
    }
}
