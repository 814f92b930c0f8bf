/// A streaming sample-rate converter (see `StreamingStage` for the contract).
///
/// - Buffers are interleaved `Float`; `consumed` and `produced` count **frames**, not samples, and
///   `maxOutputCount(forInput:)` takes and returns frames.
/// - Output is **delay-compensated**, as in libsamplerate and soxr: output frame *k* is the signal at
///   time *k / outputRate*, aligned with the input. The price is `latency`: while streaming, output
///   lags input by that many output frames, which `finish` releases.
/// - After `finish` has returned 0, the total output is exactly
///   `format.totalOutputFrames(forInputFrames:)` of the total input.
public protocol Resampler: StreamingStage where Input == Float, Output == Float {
    /// The rates and channel count converted between.
    var format: ResamplingFormat { get }
    /// A short name for reports (`native-high`, `src-best` …).
    var name: String { get }
}

extension Resampler {
    public var inputStride: Int { format.channels }
    public var outputStride: Int { format.channels }
}

@inlinable
func gcd(_ a: Int, _ b: Int) -> Int {
    var (x, y) = (abs(a), abs(b))
    while y != 0 { (x, y) = (y, x % y) }
    return x
}
