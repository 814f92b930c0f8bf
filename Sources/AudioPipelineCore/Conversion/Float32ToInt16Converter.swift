/// Converts Float32 samples to 16-bit PCM. Element-wise: `consumed`/`produced` count samples, so it
/// works on interleaved data of any channel count. Latency 0.
///
/// Statistics since init or `reset()`: `clippedCount` counts input samples outside [-1, 1]
/// (including ±Inf; exactly ±1.0 is full scale, not clipping); `nanCount` counts NaNs.
public struct Float32ToInt16Converter: StreamingStage, Sendable {
    /// How samples are quantised: the PCM convention and the dither.
    public struct Configuration: Sendable, Hashable {
        /// `.standard` (× 32768, rounded, saturated) or `.ios` (the common iOS client code).
        public var compatibility: PCMCompatibility
        /// Noise added before rounding (`.tpdf`), or none.
        public var dither: Dither
        /// Standard conventions and no dither unless given.
        public init(compatibility: PCMCompatibility = .standard, dither: Dither = .none) {
            self.compatibility = compatibility
            self.dither = dither
        }
    }

    /// The convention and dither this converter was made with.
    public let configuration: Configuration
    /// Input samples outside [−1, 1] (saturated) since init or `reset()`.
    public private(set) var clippedCount = 0
    /// NaN input samples (written as 0; with `.ios`, as 32767) since init or `reset()`.
    public private(set) var nanCount = 0
    private var noise: TPDFNoise

    /// - Throws: `invalidConfiguration` for dither in `ios` mode (the iOS code has none, and the mode
    ///   exists to reproduce it exactly).
    public init(_ configuration: Configuration = .init()) throws(AudioPipelineError) {
        if configuration.compatibility == .ios, configuration.dither != .none {
            throw AudioPipelineError(
                .invalidConfiguration,
                "dither cannot be combined with the ios compatibility mode (it truncates, without dither)")
        }
        self.configuration = configuration
        if case .tpdf(let seed) = configuration.dither {
            noise = TPDFNoise(seed: seed)
        } else {
            noise = TPDFNoise(seed: 0)
        }
    }

    /// 0: sample for sample.
    public var latency: Int { 0 }
    /// One output sample per input sample.
    public func maxOutputCount(forInput count: Int) -> Int { count }
    /// Nothing to flush: writes 0.
    public mutating func finish(into output: UnsafeMutableBufferPointer<Int16>) -> Int { 0 }

    /// Zeroes the counts and restarts the dither's noise from its seed.
    public mutating func reset() {
        clippedCount = 0
        nanCount = 0
        if case .tpdf(let seed) = configuration.dither { noise = TPDFNoise(seed: seed) }
    }

    /// Converts `min(input.count, output.count)` samples.
    public mutating func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>
    ) -> ProcessResult {
        let n = Swift.min(input.count, output.count)
        guard n > 0, let src = input.baseAddress, let dst = output.baseAddress else {
            return ProcessResult(consumed: 0, produced: 0)
        }
        let counts: (clipped: Int, nan: Int)
        switch (configuration.compatibility, configuration.dither) {
        case (.standard, .none): counts = PCMKernels.floatToInt16Standard(src, dst, n)
        case (.standard, .tpdf): counts = PCMKernels.floatToInt16Dithered(src, dst, n, &noise)
        case (.ios, _): counts = PCMKernels.floatToInt16IOS(src, dst, n)
        }
        clippedCount &+= counts.clipped
        nanCount &+= counts.nan
        return ProcessResult(consumed: n, produced: n)
    }
}
