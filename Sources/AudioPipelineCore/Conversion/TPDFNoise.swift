/// Triangular (TPDF) dither noise of ±1 LSB, made eight samples at a time by eight xorshift32
/// generators; sample `k` of a stream takes lane `k % 8` of draw `k / 8`, so the noise of a sample
/// depends only on the seed and its position, never on how the stream is chunked. A lane's two
/// 16-bit halves become two floats in [1, 2) by bit pattern (no integer → float conversion); their
/// difference is triangular on (−1, 1), in steps of 2^-16 LSB (far finer than the 1 LSB it dithers).
///
/// Vectorised instead of one 64-bit generator per sample (the previous SplitMix64 loop, 15× the
/// cost of plain conversion), it keeps dithered conversion near plain conversion's speed.
struct TPDFNoise: Sendable {
    private var a: SIMD8<UInt32>
    /// The current draw, of which `used` lanes are consumed (8: none left).
    private var pending = SIMD8<Float>.zero
    private var used = 8

    init(seed: UInt64) {
        var seeds = SplitMix64(seed: seed)
        // xorshift32 must never hold 0; the seeds' upper halves are zero with probability 2^-32 each.
        func lane() -> UInt32 { UInt32(truncatingIfNeeded: seeds.next() >> 32) | 1 }
        a = SIMD8(lane(), lane(), lane(), lane(), lane(), lane(), lane(), lane())
    }

    /// Eight noise values in (−1, 1), in LSB of the 16-bit output.
    @inline(__always)
    mutating func draw() -> SIMD8<Float> {
        a ^= a &<< 13
        a ^= a &>> 17
        a ^= a &<< 5
        let exponent = SIMD8<UInt32>(repeating: 0x3F80_0000)
        let high = unsafeBitCast(exponent | ((a &>> 16) &<< 7), to: SIMD8<Float>.self)
        let low = unsafeBitCast(exponent | ((a & 0xFFFF) &<< 7), to: SIMD8<Float>.self)
        return high - low
    }

    /// The eight lanes' state for a C kernel that draws as `draw` does (only while `isAligned`).
    mutating func withLanes<R>(_ body: (UnsafeMutablePointer<UInt32>) -> R) -> R {
        precondition(used == 8, "TPDFNoise: lanes taken mid-draw")
        return withUnsafeMutableBytes(of: &a) { body($0.baseAddress!.assumingMemoryBound(to: UInt32.self)) }
    }

    /// Whether the next sample starts a new draw (the vector loop takes whole draws only).
    var isAligned: Bool { used == 8 }

    /// The noise of the next single sample.
    @inline(__always)
    mutating func next() -> Float {
        if used == 8 {
            pending = draw()
            used = 0
        }
        used &+= 1
        return pending[used &- 1]
    }
}
