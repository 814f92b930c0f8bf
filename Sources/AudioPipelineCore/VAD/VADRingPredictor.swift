import CVectorKernels
import RealModule

/// How much of a frame's sound above about 1 kHz its own samples 2 ms earlier predict: the band
/// analysis' ring measure (`VADBandFrame.ring`, `VADRingCorrelations.gain`), which tells a clink's
/// ring from a voice.
///
/// A struck glass or dish rings with two to four partials that last 50–400 ms. A sum of four
/// decaying sinusoids is predicted exactly by eight samples taken any time earlier, so a ring's
/// frame is predicted from its samples `lag` (2 ms) before; a voice above 1 kHz is many harmonics
/// (a fundamental of 100–250 Hz puts 20–60 of them between 1 and 8 kHz) and a fricative is noise,
/// and neither is predicted from 2 ms before by eight taps. Measured offline over the first 20 ms
/// of labelled onsets that stand out above 1 kHz (docs/design/vad-experiments.md, "A clink's ring
/// predicted from 2 ms before", 2026-12-03): nine in ten of the dev items' and of real/'s under
/// 1.2 and 1.4 dB; clinks 1.7 dB at the 10th percentile, 5.0 at the median.
///
/// The measure: the frame's samples through a third difference (18 dB an octave: 250 Hz, where a
/// voice's strong low harmonics lie, 54 dB under 4 kHz, 1 kHz 18 dB), the eight-tap predictor of
/// each from the samples `lag`…`lag + 7` before (the normal equations of the frame's
/// autocorrelation, Toeplitz, solved by Levinson's recursion), and the gain: the frame's power over
/// what the predictor leaves, dB. Over noise the predictor's power is measured over the noise floor
/// (a minimum follower of the frame's power, rising 5 dB a second): the noise is unpredictable, so
/// a ring 6 dB over white noise still predicts itself. Cost: the filter for every frame, and 16
/// products a sample (two 8-lane vectors) only for a frame whose correlations are asked for; a
/// biquad high-pass measured as well but its recursion cost about 1 µs per 20 ms frame. In the
/// benchmark suite (20 ms frames): the band analysis with every frame's sums 413 → 782 ns,
/// `EnergyVAD` without a reference 707 → 933 ns when it summed every frame out of speech that stood
/// out above 1 kHz; it now sums, and solves the 8-step recursion (`VADRingCorrelations.gain`), only
/// for a frame that would open speech otherwise (`VADDecider.rings`), and with a reference the
/// filter alone costs about 6 % of a frame (docs/design/vad-experiments.md, "A clink's ring over
/// the echo").
/// No allocation (the history and the filtered frame live in a buffer allocated at `init`). A
/// frame's correlations depend on the 43 samples before it and not on how the stream was cut into
/// blocks.
public struct VADRingPredictor: Sendable {
    /// How far back the prediction reaches, seconds (2 ms: shorter than any voice's pitch period).
    static let lagSeconds = 0.002
    /// Taps of the predictor (two per partial: four partials).
    static let taps = 8
    /// The noise floor's rise, dB a second (`floor`).
    static let floorRiseDBPerSecond = 5.0

    let lag: Int
    let floorRise: Float
    /// The filtered samples: `history` from the frames before, then the current frame's.
    private var filtered: [Float]
    private let history: Int
    /// The last three input samples (the third difference's memory), oldest first.
    private var previous = SIMD4<Float>()
    /// The floor of the filtered frame's mean power: the lowest since, rising `floorRise` a frame.
    private var floor = Float.infinity
    /// Samples of the current frame in `filtered` after the history (0: none yet).
    private var count = 0

    /// A predictor for frames of `frameLength` samples at `sampleRate`; all memory allocated here.
    public init(sampleRate: Int, frameLength: Int) {
        lag = max(1, Int((Double(sampleRate) * Self.lagSeconds).rounded()))
        history = lag + Self.taps
        let frameSeconds = Double(frameLength) / Double(sampleRate)
        floorRise = Float(Double.exp10(Self.floorRiseDBPerSecond * frameSeconds / 10))
        filtered = [Float](repeating: 0, count: history + max(1, frameLength))
    }

    /// Forgets the stream.
    public mutating func reset() {
        for i in filtered.indices { filtered[i] = 0 }
        previous = SIMD4()
        floor = .infinity
        count = 0
    }

    /// Takes the next `n` samples of the stream (a whole frame, or the last partial one): filters
    /// them after the frames before and follows the floor. `correlations()` then sums them; it
    /// costs most of the work and is asked for only where the decision reads the gain.
    public mutating func filter(_ x: UnsafePointer<Float>, _ n: Int) {
        let h = history
        let last = count
        let before = previous
        // Input sample `i` of this frame, or (negative `i`) of the three before it.
        func sample(_ i: Int) -> Float { i >= 0 ? x[i] : before[3 + i] }
        let power = filtered.withUnsafeMutableBufferPointer { buffer -> Float in
            let b = buffer.baseAddress!
            // The last `history` filtered samples of the frame before go first, in one copy (which
            // may overlap after a short frame; element by element, an overflow check per index, it
            // was a fifth of this filter's time).
            if last > 0 {
                b.update(from: b + last, count: h)
            }
            let out = b + h
            // y[i] = x[i] − 3 x[i−1] + 3 x[i−2] − x[i−3]; the first three reach into `previous`.
            for i in 0..<min(3, n) {
                out[i] = x[i] - 3 * sample(i - 1) + 3 * sample(i - 2) - sample(i - 3)
            }
            // Eight at a time in C (`cvk_ring_third_difference`: AVX2 where the CPU has it, eight
            // lanes a register where this SSE2 baseline takes two; the same operations in the same
            // order, the same bits), each lane's squares summed there.
            var squares = SIMD8<Float>()
            var i = 3
            if n >= 3 {
                i = withUnsafeMutableBytes(of: &squares) { lanes in
                    cvk_ring_third_difference(x, n, out, lanes.baseAddress!.assumingMemoryBound(to: Float.self))
                }
            }
            let tail = i
            while i < n {
                out[i] = x[i] - 3 * x[i - 1] + 3 * x[i - 2] - x[i - 3]
                i += 1
            }
            var power = squares.sum()
            for k in 0..<min(3, n) { power += out[k] * out[k] }
            for k in tail..<max(tail, n) { power += out[k] * out[k] }
            return power
        }
        previous = SIMD4(sample(n - 3), sample(n - 2), sample(n - 1), 0)
        guard power.isFinite else {
            reset()
            return
        }
        count = n
        floor = min(power / Float(n), max(floor, 1e-12) * floorRise)
    }

    /// `frame` (the band analysis of the frame just filtered) with its correlations.
    @inline(__always)
    func summed(into frame: VADBandFrame) -> VADBandFrame {
        var f = frame
        f.ring = correlations()
        return f
    }

    /// The current frame's correlations (`filter`) that its ring gain is solved from
    /// (`VADRingCorrelations.gain`): none before a frame, or after a non-finite sample (the
    /// history starts again).
    public func correlations() -> VADRingCorrelations {
        let h = history
        let lag = lag
        let n = count
        guard n > 0 else { return VADRingCorrelations() }
        // Lane j of `short` sums y[i]·y[i − (7 − j)]; of `long`, y[i]·y[i − lag − (7 − j)]: in C
        // (`cvk_ring_correlations`, vadlanes.c: AVX2 where the CPU has it, eight lanes a register
        // where this SSE2 baseline takes two; the same operations in the same order, the same bits),
        // two sums each (even and odd i): the sums' dependency chains are half as long. (Summing over
        // every second sample only was tried: it biases the sums of a partial near a quarter of the
        // rate, and noise's chance prediction doubles.)
        var sums = VADRingCorrelations()
        filtered.withUnsafeBufferPointer { buffer in
            withUnsafeMutableBytes(of: &sums.short) { shortLags in
                withUnsafeMutableBytes(of: &sums.long) { longLags in
                    cvk_ring_correlations(
                        buffer.baseAddress!, h, n, lag, shortLags.baseAddress!.assumingMemoryBound(to: Float.self),
                        longLags.baseAddress!.assumingMemoryBound(to: Float.self))
                }
            }
        }
        guard (sums.short.sum() + sums.long.sum()).isFinite else { return VADRingCorrelations() }
        sums.floor = floor * Float(n)
        return sums
    }
}

/// What a frame's ring gain is solved from (`VADRingPredictor`): its filtered samples'
/// autocorrelation at lags 0…7 and at `lag`…`lag + 7`, and its noise floor's share of the power.
/// Carried by `VADBandFrame.ring` and solved only where the decision reads it
/// (`VADDecider.ringGainMinimum`: without a reference, a frame that stands out above 1 kHz).
public struct VADRingCorrelations: Sendable, Hashable {
    /// Lags 7…0 (lane j: lag 7 − j) of the filtered frame's autocorrelation (sums, not means).
    public var short = SIMD8<Float>()
    /// Lags `lag + 7`…`lag` (lane j: `lag` + 7 − j).
    public var long = SIMD8<Float>()
    /// The noise floor's power over the frame (its mean power times the frame's samples).
    public var floor: Float = 0

    /// No correlations: a gain of 0.
    public init() {}

    /// Correlations as `VADRingPredictor` sums them.
    public init(short: SIMD8<Float>, long: SIMD8<Float>, floor: Float) {
        self.short = short
        self.long = long
        self.floor = floor
    }

    /// The ring gain, dB: how much of the frame's power over its noise floor the eight-tap
    /// predictor from `lag` before explains (the power over the floor over what it leaves); over
    /// the whole power where the floor's share leaves no well-posed problem; 0 for silence or
    /// sound the predictor cannot hold.
    public func gain() -> Float {
        // Lag k first.
        let r = SIMD8<Double>(
            Double(short[7]), Double(short[6]), Double(short[5]), Double(short[4]), Double(short[3]),
            Double(short[2]), Double(short[1]), Double(short[0]))
        let p = SIMD8<Double>(
            Double(long[7]), Double(long[6]), Double(long[5]), Double(long[4]), Double(long[3]),
            Double(long[2]), Double(long[1]), Double(long[0]))
        let r0 = r[0]
        guard r0 > 1e-12 else { return 0 }
        let overFloor = r0 - Double(floor)
        if overFloor > 0.05 * r0, let g = Self.gain(r, p, power: overFloor) { return g }
        return Self.gain(r, p, power: r0) ?? 0
    }

    /// The gain with `power` as the frame's power (the zero-lag autocorrelation): 1 % loading on
    /// the diagonal, 10 % or 100 % where that is not positive definite (the sums over one frame
    /// are not an autocorrelation's, which always is); nil where none is.
    static func gain(_ r: SIMD8<Double>, _ p: SIMD8<Double>, power: Double) -> Float? {
        for attempt in 0..<3 {
            var t = r
            t[0] = power * (attempt == 0 ? 1.01 : attempt == 1 ? 1.1 : 2)
            if let explained = explainedPower(t, p) {
                let left = max(power - explained, 1e-4 * power)
                return Float(10 * Double.log10(power / left))
            }
        }
        return nil
    }

    /// pᵀ T⁻¹ p for the symmetric Toeplitz matrix T of first row `t` (Levinson's recursion: the
    /// forward vector f with T f = e₁, its reverse the backward vector, and the solution x of
    /// T x = p, grown one order at a time); nil where T is not positive definite.
    static func explainedPower(_ t: SIMD8<Double>, _ p: SIMD8<Double>) -> Double? {
        guard t[0] > 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 40) { buffer -> Double? in
            let w = buffer.baseAddress!
            for k in 0..<40 { w[k] = 0 }
            // t, p, f (forward), x (solution), b (scratch) at 0, 8, 16, 24, 32.
            for k in 0..<8 {
                w[k] = t[k]
                w[8 + k] = p[k]
            }
            let f = w + 16
            let x = w + 24
            let b = w + 32
            f[0] = 1 / w[0]
            x[0] = w[8] / w[0]
            for m in 1..<8 {
                var e = 0.0
                var ex = 0.0
                for i in 0..<m {
                    e += w[m - i] * f[i]
                    ex += w[m - i] * x[i]
                }
                let d = 1 - e * e
                guard d > 1e-12 else { return nil }
                // The backward vector of order m + 1 into b; the forward one is its reverse.
                for i in 0...m {
                    let fi = i < m ? f[i] : 0
                    let bi = i >= 1 ? f[m - i] : 0
                    b[i] = (bi - e * fi) / d
                }
                for i in 0...m { f[i] = b[m - i] }
                guard f[0] > 0 else { return nil }
                let step = w[8 + m] - ex
                for i in 0...m { x[i] += step * b[i] }
            }
            var explained = 0.0
            for k in 0..<8 { explained += w[8 + k] * x[k] }
            return explained
        }
    }
}
