import AudioPipelineCore
import CSampleRate

/// libsamplerate (Secret Rabbit Code) behind the toolkit's `Resampler` contract, through
/// `src_process` with `SRC_DATA` and `end_of_input`.
///
/// libsamplerate is delay-compensated already; this wrapper adds the exact end-of-stream length
/// (`ResamplingFormat.totalOutputFrames`): at `finish` it drains the converter and trims (or, if it
/// stops a frame short, pads with zeros) to that length. `latency` is measured at init by running a
/// scratch converter of the same kind over silence — libsamplerate has no API for it.
public final class LibSampleRateResampler: Resampler {
    public enum Converter: String, Sendable, CaseIterable {
        case sincBest = "src-best"
        case sincMedium = "src-medium"
        case sincFastest = "src-fastest"
        case zeroOrderHold = "src-zoh"
        case linear = "src-linear"

        var code: Int32 {
            switch self {
            case .sincBest: return Int32(SRC_SINC_BEST_QUALITY)
            case .sincMedium: return Int32(SRC_SINC_MEDIUM_QUALITY)
            case .sincFastest: return Int32(SRC_SINC_FASTEST)
            case .zeroOrderHold: return Int32(SRC_ZERO_ORDER_HOLD)
            case .linear: return Int32(SRC_LINEAR)
            }
        }
    }

    public let format: ResamplingFormat
    public let converter: Converter
    public let latency: Int
    public var name: String { converter.rawValue }

    private var state: OpaquePointer
    private var inputFrames = 0
    private var outputFrames = 0
    private var drained = false
    private var emptyInput: Float = 0

    /// - Throws: `invalidConfiguration` when libsamplerate refuses the ratio (it serves 1/256…256).
    public init(format: ResamplingFormat, converter: Converter = .sincBest) throws(AudioPipelineError) {
        guard format.ratio >= 1.0 / 256, format.ratio <= 256 else {
            throw AudioPipelineError(.invalidConfiguration, "libsamplerate cannot convert \(format): the ratio must be within 1/256…256")
        }
        self.format = format
        self.converter = converter
        state = try Self.makeState(converter, channels: format.channels)
        latency = try Self.measureLatency(format: format, converter: converter)
    }

    deinit { src_delete(state) }

    private static func makeState(_ converter: Converter, channels: Int) throws(AudioPipelineError) -> OpaquePointer {
        var err: Int32 = 0
        guard let s = src_new(converter.code, Int32(channels), &err) else {
            throw AudioPipelineError(.invalidConfiguration, "libsamplerate: \(String(cString: src_strerror(err)))")
        }
        return s
    }

    /// Output frames held back while streaming: feed silence, compare what came out with what the
    /// length rule says is due.
    private static func measureLatency(format: ResamplingFormat, converter: Converter) throws(AudioPipelineError) -> Int {
        let probe = try makeState(converter, channels: 1)
        defer { src_delete(probe) }
        let inFrames = Swift.max(4096, format.inputRate.hz / 4)
        var input = [Float](repeating: 0, count: inFrames)
        var output = [Float](repeating: 0, count: Int(Double(inFrames) * format.ratio) + 64)
        var produced = 0
        input.withUnsafeMutableBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in
                var data = SRC_DATA()
                data.data_in = UnsafePointer(i.baseAddress)
                data.data_out = o.baseAddress
                data.input_frames = inFrames
                data.output_frames = o.count
                data.src_ratio = format.ratio
                data.end_of_input = 0
                _ = src_process(probe, &data)
                produced = data.output_frames_gen
            }
        }
        return Swift.max(0, format.totalOutputFrames(forInputFrames: inFrames) - produced)
    }

    public func maxOutputCount(forInput frames: Int) -> Int {
        Int((Double(frames) * format.ratio).rounded(.up)) + latency + 2
    }

    /// `consumed`/`produced` in frames.
    public func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> ProcessResult {
        let ch = format.channels
        var data = SRC_DATA()
        data.data_in = input.baseAddress
        data.input_frames = input.count / ch
        data.data_out = output.baseAddress
        data.output_frames = output.count / ch
        data.src_ratio = format.ratio
        data.end_of_input = 0
        guard data.input_frames > 0, data.output_frames > 0 else { return ProcessResult(consumed: 0, produced: 0) }
        let rc = src_process(state, &data)
        precondition(rc == 0, "libsamplerate: \(String(cString: src_strerror(rc)))")  // only on API misuse
        inputFrames += data.input_frames_used
        outputFrames += data.output_frames_gen
        return ProcessResult(consumed: data.input_frames_used, produced: data.output_frames_gen)
    }

    /// Writes the remaining frames, up to the exact total. Call until it returns 0.
    public func finish(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        let ch = format.channels
        let remaining = format.totalOutputFrames(forInputFrames: inputFrames) - outputFrames
        let cap = Swift.min(remaining, output.count / ch)
        guard cap > 0, let out = output.baseAddress else { return 0 }
        var got = 0
        if !drained {
            withUnsafePointer(to: &emptyInput) { empty in
                var data = SRC_DATA()
                data.data_in = empty
                data.input_frames = 0
                data.data_out = out
                data.output_frames = cap
                data.src_ratio = format.ratio
                data.end_of_input = 1
                let rc = src_process(state, &data)
                precondition(rc == 0, "libsamplerate: \(String(cString: src_strerror(rc)))")
                got = data.output_frames_gen
            }
            if got == 0 { drained = true }
        }
        if got == 0 {
            // libsamplerate stopped short of the length rule: pad with silence.
            (out).initialize(repeating: 0, count: cap * ch)
            got = cap
        }
        outputFrames += got
        return got
    }

    public func reset() {
        src_reset(state)
        inputFrames = 0
        outputFrames = 0
        drained = false
    }
}
