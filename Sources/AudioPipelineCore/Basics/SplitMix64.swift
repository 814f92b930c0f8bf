/// SplitMix64: a tiny, fast, well-distributed generator (Steele, Lea & Flood 2014). Deterministic
/// and seedable, which dither needs for repeatable output; not for cryptography. (The standard
/// library has no seeded generator; swift-argument-parser's `Examples/roll` carries the same one.)
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// A generator whose sequence is fixed by `seed` (the same seed, the same numbers, on every platform).
    public init(seed: UInt64) { state = seed }
    @inline(__always) public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
