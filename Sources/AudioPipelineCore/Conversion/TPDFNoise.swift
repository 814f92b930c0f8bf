/// Triangular (TPDF) dither noise of ±1 LSB, counter-based: the noise of sample `k` is a function of the
/// seed and `k` alone (the vector loops step counters along, to the same values), so it never depends on
/// how the stream is chunked and no state but the position carries from one chunk to the next.
///
/// Samples 2j and 2j + 1 take the low and the high 16 bits of the word `mix(c_j)`, where
/// `c_j = key + j·W + j(j − 1)/2·V` (mod 2^32, `key` from the seed) and `mix` is a xorshift, a multiply
/// and a xorshift. A 16-bit half's two bytes, summed, are triangular on 0…510; `(sum − 255) / 256` is the
/// noise, triangular on (−1, 1) LSB in steps of 1/256 LSB (mean 0, variance 1/6 LSB² less 1/6·2^-16), made
/// by bit pattern without an integer → float conversion: the float with bits `0x4700_0000 | sum` is
/// `32768 + sum / 256`, and subtracting `32768 + 255 / 256` is exact.
///
/// Why this shape: the previous eight xorshift32 lanes had a serial chain of about six cycles per draw,
/// 12× the cost of plain conversion. A counter has no chain, so a vector of words is as wide as the
/// registers (16 with AVX-512); one 32-bit word per two samples halves the hashing; and the quadratic
/// term in `c_j` removes the fixed-lag correlations a plain Weyl counter (`key + j·W`) leaves after a
/// single multiply (about 0.002 at some lags over 2^28 samples; with it, correlations at lags 1–64 stay
/// within sampling noise over 2^27 samples), and keeps two seeds' streams from being shifted copies of
/// each other. What a single multiply does leave: the two samples of one word are slightly dependent,
/// visible in their joint histogram only over some 10^8 samples (a second multiply round removes that
/// too, but costs 2.3× plain conversion). Measured per 20 ms chunk at
/// 48 kHz (p50, AVX-512): 1.6–1.8× plain conversion (65–69 against 38–43 ns), was 11–12× (454–457 ns).
/// The noise repeats after 2^34 samples (about 99 hours at 48 kHz). `CVectorKernels/pcm.c` computes it
/// with AVX2 and AVX-512, bit for bit.
struct TPDFNoise: Sendable {
    static let weyl: UInt32 = 0x9E37_79B9
    static let curve: UInt32 = 0x6A09_E667
    static let multiplier: UInt32 = 0x2C1B_3C6D
    /// `32768 + 255 / 256`: the bit-pattern float of a sum of 255, i.e. noise 0.
    static let centre: Float = 32768.996_093_75

    /// Selects the stream (from the seed).
    let key: UInt32
    /// The index of the next sample.
    private(set) var position: UInt64 = 0

    /// The stream of `seed`, from sample `position` (tests start late in it, where the counters wrap).
    init(seed: UInt64, position: UInt64 = 0) {
        var g = SplitMix64(seed: seed)
        key = UInt32(truncatingIfNeeded: g.next() >> 32)
        self.position = position
    }

    /// `c_j`, with j(j − 1)/2 taken mod 2^64 (halving the even factor first), then mod 2^32.
    @inline(__always)
    static func counter(_ j: UInt64, key: UInt32) -> UInt32 {
        let t = j & 1 == 0 ? (j >> 1) &* (j &- 1) : j &* ((j &- 1) >> 1)
        return key &+ UInt32(truncatingIfNeeded: j) &* weyl &+ UInt32(truncatingIfNeeded: t) &* curve
    }

    @inline(__always)
    static func mix(_ c: UInt32) -> UInt32 {
        let h = (c ^ (c >> 16)) &* multiplier
        return h ^ (h >> 15)
    }

    @inline(__always)
    static func mix(_ c: SIMD8<UInt32>) -> SIMD8<UInt32> {
        let h = (c ^ (c &>> 16)) &* multiplier
        return h ^ (h &>> 15)
    }

    /// The noise of sample `k` of the stream `key`, in LSB of the 16-bit output.
    @inline(__always)
    static func noise(_ k: UInt64, key: UInt32) -> Float {
        let word = mix(counter(k >> 1, key: key))
        let half = k & 1 == 0 ? word & 0xFFFF : word >> 16
        return Float(bitPattern: 0x4700_0000 | ((half & 0xFF) + (half >> 8))) - centre
    }

    /// The noise of the next sample.
    @inline(__always)
    mutating func next() -> Float {
        defer { position &+= 1 }
        return Self.noise(position, key: key)
    }

    /// Skips `count` samples (a C kernel made their noise).
    mutating func advance(_ count: Int) { position &+= UInt64(count) }

    /// Eight words' counters from the current position (which must be even), for `Lanes.draw`.
    func lanes() -> Lanes {
        precondition(position & 1 == 0, "TPDFNoise: lanes start on a pair of samples")
        let j = position >> 1
        let offset = SIMD8<UInt32>(0, 1, 2, 3, 4, 5, 6, 7), triangle = SIMD8<UInt32>(0, 0, 1, 3, 6, 10, 15, 21)
        // c_{j+o} = c_j + o·(W + j·V) + o(o − 1)/2·V; a step of 8 pairs adds 8·a + 8·o·V + 28·V, and
        // that grows by 64·V a step.
        let a = Self.weyl &+ UInt32(truncatingIfNeeded: j) &* Self.curve
        let counters = Self.counter(j, key: key) &+ offset &* a &+ triangle &* Self.curve
        let step = (8 &* a &+ 28 &* Self.curve) &+ offset &* (8 &* Self.curve)
        return Lanes(counters: counters, step: step)
    }

    /// Eight consecutive words, sixteen samples' noise a draw.
    struct Lanes {
        var counters: SIMD8<UInt32>
        var step: SIMD8<UInt32>

        /// The noise of the next sixteen samples, in order.
        @inline(__always)
        mutating func draw() -> (SIMD8<Float>, SIMD8<Float>) {
            let h = TPDFNoise.mix(counters)
            counters &+= step
            step &+= SIMD8(repeating: 64 &* TPDFNoise.curve)
            // Each half's two bytes summed (in 16-bit lanes), then interleaved: sample 2l is lane l's low
            // half, 2l + 1 its high half (element-wise, which the compiler turns into two unpacks; a
            // widening SIMD init was left as a call in the package's release build).
            let halves = unsafeBitCast(h, to: SIMD16<UInt16>.self)
            let sums = unsafeBitCast((halves & 0xFF) &+ (halves &>> 8), to: SIMD8<UInt32>.self)
            let low = sums & 0xFFFF, high = sums &>> 16
            let exponent = SIMD8<UInt32>(repeating: 0x4700_0000), centre = SIMD8<Float>(repeating: TPDFNoise.centre)
            let first = SIMD8(low[0], high[0], low[1], high[1], low[2], high[2], low[3], high[3]) | exponent
            let second = SIMD8(low[4], high[4], low[5], high[5], low[6], high[6], low[7], high[7]) | exponent
            let a = unsafeBitCast(first, to: SIMD8<Float>.self), b = unsafeBitCast(second, to: SIMD8<Float>.self)
            return (a - centre, b - centre)
        }
    }
}
