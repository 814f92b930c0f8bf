/// How Float32 and 16-bit PCM map onto each other.
///
/// - `standard` (default): Float32→Int16 multiplies by 32768, rounds to nearest (ties to even),
///   saturates to [-32768, 32767]; NaN becomes 0, ±Inf becomes ±full scale. Int16→Float32 divides by
///   32768 (an exact power of two), so PCM16 → Float32 → PCM16 is the identity. This matches
///   libsndfile's normalised conversions and sox.
/// - `ios`: reproduces, bit for bit, what the common iOS client code does
///   (`Int16(max(-1, min(1, x)) * Float(Int16.max))` on capture and `Float(x) / Float(Int16.max)` on
///   playback): clamp with Swift's `min`/`max` (so NaN becomes +1.0 → 32767), multiply by 32767,
///   truncate toward zero (so −1.0 → −32767, never −32768); playback divides by 32767 (so −32768 →
///   −1.0000305). Use it to reproduce byte for byte what an app sends.
public enum PCMCompatibility: String, Sendable, Hashable, CaseIterable {
    /// × 32768 with rounding and saturation; ÷ 32768 back (libsndfile's and sox's convention).
    case standard
    /// What the common iOS client code does: clamp, × 32767, truncate; ÷ 32767 back.
    case ios
}

/// Dither added before Float32→Int16 quantisation.
public enum Dither: Sendable, Hashable {
    /// No dither: plain rounding (deterministic, the default).
    case none
    /// Triangular-PDF dither of ±1 LSB peak (two uniform variables added and centred, in steps of
    /// 1/256 LSB), from a deterministic counter-based generator: the noise of a sample depends only on
    /// `seed` and the sample's position, so runs are repeatable and chunk-invariant.
    case tpdf(seed: UInt64)
}
