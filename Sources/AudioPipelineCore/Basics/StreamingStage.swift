/// What one call of a streaming stage did: how much input it took and how much output it wrote.
///
/// Units are stated by each stage: element-wise stages (sample conversion) count samples; stages
/// that work on interleaved frames (downmix, resampling) count frames.
public struct ProcessResult: Hashable, Sendable {
    public var consumed: Int
    public var produced: Int
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
    associatedtype Input
    associatedtype Output

    mutating func process(_ input: UnsafeBufferPointer<Input>, into output: UnsafeMutableBufferPointer<Output>)
        -> ProcessResult
    mutating func finish(into output: UnsafeMutableBufferPointer<Output>) -> Int
    mutating func reset()
    func maxOutputCount(forInput count: Int) -> Int
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
