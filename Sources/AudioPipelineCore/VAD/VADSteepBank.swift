import CVectorKernels
import RealModule

/// The band analysis with steep filters (`VADBandPairAnalyzer`'s): eight bands (split at
/// `VADBandPairAnalyzer.splitsHz`: 150, 300, 600, 1000, 1800, 3000 and 5000 Hz) cut by fourth-order
/// Butterworth high- and low-passes (24 dB per octave), where `VADBandAnalyzer` cuts four with
/// one-pole splits (6 dB per octave). What the detector uses when it has a far-end reference: the
/// echo model predicts each band of the microphone from the same band of the reference, and a band
/// that holds much of its neighbours, or is wide, moves with the reference's spectrum inside it (a
/// loudspeaker cuts below 300 Hz; whether the agent's voice sits at 120 or 280 Hz then changes the
/// first band's echo gain by 6 dB). Measured with `scripts/vad-band-study.py` (generated barge-in
/// items, gains learnt per item): of the 10 ms frames where the user talks over the agent, the
/// share scoring above what 99.5 % of echo-only frames score is 0.57 with four one-pole bands, 0.73
/// with four steep ones and 0.86 with eight on seeds 101–104 (where the choice was made); 0.56,
/// 0.71, 0.82 on 601–604 and 0.53, 0.69, 0.79 on 901–904, drawn after it
/// (docs/design/vad-experiments.md).
///
/// Each band is a cascade of four biquads (transposed direct form II, Float; a band with fewer
/// sections has pass-through ones): the lowest a second-order high-pass at 80 Hz (rumble and DC,
/// as the one-pole analysis) and a fourth-order low-pass; the middle ones a fourth-order high-pass
/// and low-pass; the highest a fourth-order high-pass. The microphone's eight bands and the
/// reference's run side by side in sixteen lanes, one sample at a time, in C (`cvk_steep_bands`:
/// AVX2 with fused multiply-adds where the CPU has them, the two signals as two independent chains,
/// and the same code with AVX-512VL's 32 registers where it has those: the state then stays in
/// registers, 0.84 → 0.46 µs per 10 ms frame pair on an EPYC — Swift on the SSE2 baseline took
/// 3.7 µs for four bands, over the VAD's 2 µs budget; on Intel cores with AVX-512 both signals in
/// one 512-bit register, 0.86–1.08 → 0.69–0.78 µs on a Xeon). Every kernel gives the same bits, and each
/// runs with subnormals flushed to zero (when a signal stops its state decays through them: 32 µs
/// per 10 ms frame on an Intel Xeon before, `Subnormals`).
struct VADSteepBank: Sendable {
    static let sectionCount = 4
    static let bands = 8
    static let lanes = 16
    /// Coefficient rows per section (see `coefficients`).
    static let rows = 3
    /// Q of the two sections of a fourth-order Butterworth filter (its pole pairs), and of a
    /// second-order one.
    static let fourthOrderQ = (0.541_196_100_146_197, 1.306_562_964_876_376_7)
    static let secondOrderQ = 0.707_106_781_186_547_5
    /// The first band whose power counts in a frame's quarters (the bands above 300 Hz, as
    /// `VADBandAnalyzer`'s quarters).
    static let quarterFrom = 2
    /// Which kernel runs (`cvk_steep_preferred_level`): 3 AVX-512 with both signals in one 512-bit
    /// register, 2 AVX-512VL, 1 AVX2 + FMA, 0 the portable one (the same bits from each).
    static let level = Int(cvk_steep_preferred_level())

    /// Per section three rows of eight bands, each section normalised by its b0: b1/b0, −a1, −a2
    /// (the two signals share them). b1/b0 is −2 in sections 0 and 1 (high-passes) and +2 in 2
    /// and 3 (low-passes), in every band: a section that filters nothing has the same numerator over
    /// the same double pole (−a1 = −b1/b0, −a2 = −1), which from zero state passes the signal
    /// unchanged and keeps its state at zero exactly (the kernel then runs one chain of operations
    /// for every lane, without a mask).
    private let coefficients: [Float]
    /// Per band, the square of its sections' b0 product: what the energies are scaled by (0 for a
    /// band above the rate's reach).
    private let scale: [Float]
    /// Per section two rows of sixteen lanes: s1, s2. (Internal, not private: tests set it.)
    var state: [Float]

    /// The filters for audio at `sampleRate` Hz. A split at or above 0.45 × the rate (5000 Hz at
    /// rates up to 11 kHz, 3000 at 4–6 kHz) leaves the band above it empty and the one below it
    /// unfiltered there.
    init(sampleRate: Int) {
        let fs = Double(sampleRate)
        var c = [Float](repeating: 0, count: Self.sectionCount * Self.rows * Self.bands)
        var gains = [Float](repeating: 1, count: Self.bands)
        for band in 0..<Self.bands {
            let plan = Self.plan(band: band)
            var gain = 1.0
            for section in 0..<Self.sectionCount {
                // A pass-through: (1 ∓ z⁻¹)² / (1 ∓ z⁻¹)², the sign of the section's slot.
                let twice: Float = section < 2 ? -2 : 2
                var values: [Float] = [twice, -twice, -1]
                if let s = plan[section] {
                    let row = Self.coefficients(high: s.high, hz: s.hz, q: s.q, sampleRate: fs)
                    // A high-pass at or above 0.45 × the rate passes nothing: the band is empty (its
                    // sections pass through, its energies are scaled by 0).
                    if row.b0 == 0 {
                        gain = 0
                    } else if row.b2 != 0 {
                        // (A low-pass at or above 0.45 × the rate passes everything: it stays a
                        // pass-through.) b1/b0 is ∓2 for a Butterworth section, exactly.
                        gain *= row.b0
                        values = [twice, Float(-row.a1), Float(-row.a2)]
                    }
                }
                for (j, v) in values.enumerated() { c[(section * Self.rows + j) * Self.bands + band] = v }
            }
            gains[band] = Float(gain * gain)
        }
        scale = gains
        coefficients = c
        state = [Float](repeating: 0, count: Self.sectionCount * 2 * Self.lanes)
    }

    /// A band's sections in order: (high-pass?, cutoff, Q); nil passes through. High-passes in
    /// sections 0 and 1, low-passes in 2 and 3 (the kernel's contract).
    static func plan(band: Int) -> [(high: Bool, hz: Double, q: Double)?] {
        let splits = VADBandPairAnalyzer.splitsHz
        let q = fourthOrderQ
        var plan: [(high: Bool, hz: Double, q: Double)?] = [nil, nil, nil, nil]
        if band == 0 {
            plan[0] = (true, 80, secondOrderQ)
        } else {
            plan[0] = (true, splits[band - 1], q.0)
            plan[1] = (true, splits[band - 1], q.1)
        }
        if band < bands - 1 {
            plan[2] = (false, splits[band], q.0)
            plan[3] = (false, splits[band], q.1)
        }
        return plan
    }

    /// The power band `band`'s filters pass at `hz` (|H|² of its sections at `sampleRate`): 0 for a
    /// band above the rate's reach. (`VADEchoModel`'s leakage table.)
    static func power(band: Int, at hz: Double, sampleRate: Int) -> Double {
        let fs = Double(sampleRate)
        let w = 2 * Double.pi * hz / fs
        var power = 1.0
        for section in plan(band: band) {
            guard let section else { continue }
            let c = coefficients(high: section.high, hz: section.hz, q: section.q, sampleRate: fs)
            // |b0 + b1 z⁻¹ + b2 z⁻²|² / |1 + a1 z⁻¹ + a2 z⁻²|² at z = e^{jw}.
            let numberRe = c.b0 + c.b1 * Double.cos(w) + c.b2 * Double.cos(2 * w)
            let numberIm = -(c.b1 * Double.sin(w) + c.b2 * Double.sin(2 * w))
            let denominatorRe = 1 + c.a1 * Double.cos(w) + c.a2 * Double.cos(2 * w)
            let denominatorIm = -(c.a1 * Double.sin(w) + c.a2 * Double.sin(2 * w))
            power *=
                (numberRe * numberRe + numberIm * numberIm)
                / (denominatorRe * denominatorRe + denominatorIm * denominatorIm)
        }
        return power
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

    /// Whether the state is finite (a NaN or infinite sample poisons it for good: the caller resets):
    /// whether the sum of its values is. Asked every frame, so first by lanes: when every value's
    /// magnitude is under `Float.greatestFiniteMagnitude / 128` (their bits, sign cleared, compared as
    /// integers: NaN and infinity lie above), the sum of the 128 cannot overflow and is finite. Only
    /// otherwise the sum itself, in order: a serial chain of 128 float adds, which run every frame
    /// put the analyzer's frame step at 4.9 % of a 10 ms frame with a reference (under 1 % now;
    /// profiles on an Intel Xeon, 2026-11-28).
    var isFinite: Bool {
        let limit = SIMD16<UInt32>(repeating: (Float.greatestFiniteMagnitude / 128).bitPattern)
        let largest = state.withUnsafeBytes { raw in
            var largest = SIMD16<UInt32>()
            for k in 0..<(raw.count / 64) {
                let bits = raw.loadUnaligned(fromByteOffset: k * 64, as: SIMD16<UInt32>.self) & 0x7FFF_FFFF
                largest = largest.replacing(with: bits, where: bits .> largest)
            }
            return largest
        }
        if !any(largest .>= limit) { return true }
        var sum: Float = 0
        for v in state { sum += v }
        return sum.isFinite
    }

    /// `n` samples of the microphone (`x0`) and the reference (`x1`): the sums of squares per band
    /// (the microphone's, then the reference's) and the microphone's power above 300 Hz summed per
    /// quarter (`quarterLength` samples each, the last to `n`).
    mutating func run(_ x0: UnsafePointer<Float>, _ x1: UnsafePointer<Float>, _ n: Int, quarterLength: Int)
        -> (mic: SIMD8<Float>, reference: SIMD8<Float>, quarters: SIMD4<Float>)
    {
        var energy = SIMD16<Float>()
        var quarters = SIMD4<Float>()
        coefficients.withUnsafeBufferPointer { c in
            scale.withUnsafeBufferPointer { g in
                state.withUnsafeMutableBufferPointer { s in
                    withUnsafeMutableBytes(of: &energy) { e in
                        withUnsafeMutableBytes(of: &quarters) { q in
                            let ep = e.baseAddress!.assumingMemoryBound(to: Float.self)
                            let qp = q.baseAddress!.assumingMemoryBound(to: Float.self)
                            let from = Self.quarterFrom
                            #if arch(x86_64)
                                if Self.level == 3 {
                                    cvk_steep_bands_avx512_wide(
                                        c.baseAddress!, g.baseAddress!, s.baseAddress!, x0, x1, n, quarterLength, from,
                                        ep, qp)
                                    return
                                }
                                if Self.level == 2 {
                                    cvk_steep_bands_avx512(
                                        c.baseAddress!, g.baseAddress!, s.baseAddress!, x0, x1, n, quarterLength, from,
                                        ep, qp)
                                    return
                                }
                                if Self.level == 1 {
                                    cvk_steep_bands_avx2(
                                        c.baseAddress!, g.baseAddress!, s.baseAddress!, x0, x1, n, quarterLength, from,
                                        ep, qp)
                                    return
                                }
                            #endif
                            cvk_steep_bands(
                                c.baseAddress!, g.baseAddress!, s.baseAddress!, x0, x1, n, quarterLength, from, ep, qp)
                        }
                    }
                }
            }
        }
        return (energy.lowHalf, energy.highHalf, quarters)
    }
}
