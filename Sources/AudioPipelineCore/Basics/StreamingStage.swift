/// What one call of a streaming stage did: how much input it took and how much output it wrote.
///
/// Units are stated by each stage: element-wise stages (sample conversion) count samples; stages
/// that work on interleaved frames (downmix, resampling) count frames.
public struct ProcessResult: Hashable, Sendable {
    /// Units of input the call read (each stage states its unit: samples or frames).
    public var consumed: Int
    /// Units of output the call wrote, from the start of the output buffer.
    public var produced: Int
    /// A result of `consumed` input and `produced` output units.
    public init(consumed: Int, produced: Int) {
        self.consumed = consumed
        self.produced = produced
    }
}

/// The contract every streaming stage follows (see DESIGN.md, "The streaming stage contract").
///
/// - caller-owned buffers: the stage reads `input` and writes into `output`; it never allocates in
///   `process` or `finish`;
/// - `process` returns what it consumed and produced and never silently drops input: when `output`
///   is too small it consumes less, and the caller calls again with the rest;
/// - `consumed`, `produced` and `maxOutputCount(forInput:)` count *units*: a unit is
///   `inputStride` elements of the input buffer and `outputStride` elements of the output buffer
///   (1 for sample-wise stages; the channel count for stages that count interleaved frames);
/// - `maxOutputCount(forInput:)` sizes the output buffer so that one call consumes everything;
/// - `finish(into:)` marks the end of input and writes the exact remaining output; call it until it
///   produces 0 (one call suffices when `output.count >= maxOutputCount(forInput: 0)`);
/// - `reset()` prepares for a new, unrelated stream;
/// - `latency` is in output frames;
/// - output is identical whatever block sizes the input arrives in (tested per stage).
public protocol StreamingStage {
    /// The input element type (`Float`, `Int16`, `UInt8` …).
    associatedtype Input
    /// The output element type.
    associatedtype Output

    /// Reads from `input` and writes into `output`, as much as `output` has room for; allocates nothing.
    /// Returns what it consumed and produced; when `output` is too small it consumes less, and the caller
    /// calls again with the rest.
    mutating func process(_ input: UnsafeBufferPointer<Input>, into output: UnsafeMutableBufferPointer<Output>)
        -> ProcessResult
    /// Marks the end of the input and writes the exact remaining output; call it until it returns 0.
    /// Returns the units written.
    mutating func finish(into output: UnsafeMutableBufferPointer<Output>) -> Int
    /// Forgets the stream: the next `process` starts an unrelated one. Allocates nothing.
    mutating func reset()
    /// The output room (in units) that lets one call consume `count` more units of input whole;
    /// with 0, what `finish` can still write.
    func maxOutputCount(forInput count: Int) -> Int
    /// How far the output lags the input, in output frames (0 for sample-wise stages).
    var latency: Int { get }
    /// Input elements per counted unit (1, or the channel count for frame-wise stages).
    var inputStride: Int { get }
    /// Output elements per counted unit.
    var outputStride: Int { get }
}

extension StreamingStage {
    public var inputStride: Int { 1 }
    public var outputStride: Int { 1 }
}
