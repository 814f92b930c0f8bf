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
    case standard
    case ios
}

/// Dither added before Float32→Int16 quantisation.
public enum Dither: Sendable, Hashable {
    /// No dither: plain rounding (deterministic, the default).
    case none
    /// Triangular-PDF dither of ±1 LSB peak (the difference of two uniform variables), from a
    /// deterministic generator seeded with `seed`, so runs are repeatable and chunk-invariant.
    case tpdf(seed: UInt64)
}

/// Converts Float32 samples to 16-bit PCM. Element-wise: `consumed`/`produced` count samples, so it
/// works on interleaved data of any channel count. Latency 0.
///
/// Statistics since init or `reset()`: `clippedCount` counts input samples outside [-1, 1]
/// (including ±Inf; exactly ±1.0 is full scale, not clipping); `nanCount` counts NaNs.
public struct Float32ToInt16Converter: StreamingStage, Sendable {
    public struct Configuration: Sendable, Hashable {
        public var compatibility: PCMCompatibility
        public var dither: Dither
        public init(compatibility: PCMCompatibility = .standard, dither: Dither = .none) {
            self.compatibility = compatibility
            self.dither = dither
        }
    }

    public let configuration: Configuration
    public private(set) var clippedCount = 0
    public private(set) var nanCount = 0
    private var rng: SplitMix64

    /// - Throws: `invalidConfiguration` for dither in `ios` mode (the iOS code has none, and the mode
    ///   exists to reproduce it exactly).
    public init(_ configuration: Configuration = .init()) throws(AudioPipelineError) {
        if configuration.compatibility == .ios, configuration.dither != .none {
            throw AudioPipelineError(
                .invalidConfiguration, "dither cannot be combined with the ios compatibility mode (it truncates, without dither)")
        }
        self.configuration = configuration
        if case .tpdf(let seed) = configuration.dither { rng = SplitMix64(seed: seed) } else { rng = SplitMix64(seed: 0) }
    }

    public var latency: Int { 0 }
    public func maxOutputCount(forInput count: Int) -> Int { count }
    public mutating func finish(into output: UnsafeMutableBufferPointer<Int16>) -> Int { 0 }

    public mutating func reset() {
        clippedCount = 0
        nanCount = 0
        if case .tpdf(let seed) = configuration.dither { rng = SplitMix64(seed: seed) }
    }

    /// Converts `min(input.count, output.count)` samples.
    public mutating func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>)
        -> ProcessResult
    {
        let n = Swift.min(input.count, output.count)
        guard n > 0, let src = input.baseAddress, let dst = output.baseAddress else {
            return ProcessResult(consumed: 0, produced: 0)
        }
        let counts: (clipped: Int, nan: Int)
        switch (configuration.compatibility, configuration.dither) {
        case (.standard, .none): counts = PCMKernels.floatToInt16Standard(src, dst, n)
        case (.standard, .tpdf): counts = PCMKernels.floatToInt16Dithered(src, dst, n, &rng)
        case (.ios, _): counts = PCMKernels.floatToInt16IOS(src, dst, n)
        }
        clippedCount &+= counts.clipped
        nanCount &+= counts.nan
        return ProcessResult(consumed: n, produced: n)
    }
}

/// Converts 16-bit PCM to Float32: ÷32768 (`standard`) or ÷32767 (`ios`). Element-wise, stateless,
/// latency 0.
public struct Int16ToFloat32Converter: StreamingStage, Sendable {
    public let compatibility: PCMCompatibility

    public init(compatibility: PCMCompatibility = .standard) { self.compatibility = compatibility }

    public var latency: Int { 0 }
    public func maxOutputCount(forInput count: Int) -> Int { count }
    public mutating func finish(into output: UnsafeMutableBufferPointer<Float>) -> Int { 0 }
    public mutating func reset() {}

    public mutating func process(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Float>)
        -> ProcessResult
    {
        let n = Swift.min(input.count, output.count)
        guard n > 0, let src = input.baseAddress, let dst = output.baseAddress else {
            return ProcessResult(consumed: 0, produced: 0)
        }
        switch compatibility {
        case .standard: PCMKernels.int16ToFloatStandard(src, dst, n)
        case .ios: PCMKernels.int16ToFloatIOS(src, dst, n)
        }
        return ProcessResult(consumed: n, produced: n)
    }
}

/// SplitMix64: a tiny, fast, well-distributed generator (Steele, Lea & Flood 2014). Deterministic
/// and seedable, which dither needs for repeatable output; not for cryptography.
struct SplitMix64: Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    @inline(__always) mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
