/// Converts 16-bit PCM to Float32: ÷32768 (`standard`) or ÷32767 (`ios`). Element-wise, stateless,
/// latency 0.
public struct Int16ToFloat32Converter: StreamingStage, Sendable {
    /// `.standard` (÷ 32768) or `.ios` (÷ 32767, as the common iOS client code).
    public let compatibility: PCMCompatibility

    /// A widener with the given convention (standard unless given).
    public init(compatibility: PCMCompatibility = .standard) { self.compatibility = compatibility }

    /// 0: sample for sample.
    public var latency: Int { 0 }
    /// One output sample per input sample.
    public func maxOutputCount(forInput count: Int) -> Int { count }
    /// Nothing to flush: writes 0.
    public mutating func finish(into output: UnsafeMutableBufferPointer<Float>) -> Int { 0 }
    /// Stateless: nothing to forget.
    public mutating func reset() {}

    /// Widens `min(input.count, output.count)` samples; allocates nothing.
    public mutating func process(
        _ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
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
