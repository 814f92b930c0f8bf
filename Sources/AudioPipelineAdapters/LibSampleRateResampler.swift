import AudioPipelineCore
import CSampleRate

/// libsamplerate (Secret Rabbit Code) behind the toolkit's `Resampler` contract, through
/// `src_process` with `SRC_DATA` and `end_of_input`.
///
/// libsamplerate is delay-compensated already; this wrapper adds the exact length rule
/// (`ResamplingFormat.totalOutputFrames`). Measured: SINC converters stop short of it at end of
/// input, while ZERO_ORDER_HOLD and LINEAR emit a frame past it when upsampling. So the wrapper
/// never delivers more than the rule allows for the input seen so far — a frame computed early is
/// held back (a few frames of storage allocated at init) and delivered with the next call — and at
/// `finish` it drains the converter and trims, or pads with zeros, to the exact length.
///
/// Workaround: libsamplerate's LINEAR converter reads `channels` floats *before* the input buffer
/// when the first call after `src_new`/`src_reset` brings exactly one frame (upstream issues #208
/// and #234; measured here as a wrong first output frame with 2 channels). So with LINEAR a lone
/// first frame is kept aside and passed together with the next one. `latency` is measured at init by running a
/// scratch converter of the same kind over silence — libsamplerate has no API for it.
public final class LibSampleRateResampler: Resampler {
    /// libsamplerate's converters, by the names the CLI uses.
    public enum Converter: String, Sendable, CaseIterable {
        /// `SRC_SINC_BEST_QUALITY`.
        case sincBest = "src-best"
        /// `SRC_SINC_MEDIUM_QUALITY`.
        case sincMedium = "src-medium"
        /// `SRC_SINC_FASTEST`.
        case sincFastest = "src-fastest"
        /// `SRC_ZERO_ORDER_HOLD`.
        case zeroOrderHold = "src-zoh"
        /// `SRC_LINEAR`.
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
    /// The libsamplerate converter in use.
    public let converter: Converter
    public let latency: Int
    public var name: String { converter.rawValue }

    private var state: OpaquePointer
    private var inputFrames = 0
    private var outputFrames = 0
    private var drained = false
    private var emptyInput: Float = 0
    /// Frames libsamplerate produced ahead of the length rule, in order, interleaved.
    private let pending: UnsafeMutablePointer<Float>
    private let pendingCapacity: Int
    private var pendingCount = 0
    /// LINEAR only: a lone first frame held until a second arrives (see the type's note).
    private let firstFrame: UnsafeMutablePointer<Float>
    private var firstFrameHeld = false

    /// - Throws: `invalidConfiguration` when libsamplerate refuses the ratio (it serves 1/256…256).
    public init(format: ResamplingFormat, converter: Converter = .sincBest) throws(AudioPipelineError) {
        guard format.ratio >= 1.0 / 256, format.ratio <= 256 else {
            throw AudioPipelineError(
                .invalidConfiguration, "libsamplerate cannot convert \(format): the ratio must be within 1/256…256")
        }
        self.format = format
        self.converter = converter
        state = try Self.makeState(converter, channels: format.channels)
        latency = try Self.measureLatency(format: format, converter: converter)
        pendingCapacity = 4 * (Int(format.ratio.rounded(.up)) + 1) + 16
        pending = .allocate(capacity: pendingCapacity * format.channels)
        firstFrame = .allocate(capacity: 2 * format.channels)
    }

    deinit {
        src_delete(state)
        pending.deallocate()
        firstFrame.deallocate()
    }

    private static func makeState(_ converter: Converter, channels: Int) throws(AudioPipelineError) -> OpaquePointer {
        var err: Int32 = 0
        guard let s = src_new(converter.code, Int32(channels), &err) else {
            throw AudioPipelineError(.invalidConfiguration, "libsamplerate: \(String(cString: src_strerror(err)))")
        }
        return s
    }

    /// Output frames held back while streaming: feed silence, compare what came out with what the
    /// length rule says is due.
    private static func measureLatency(format: ResamplingFormat, converter: Converter) throws(AudioPipelineError) -> Int
    {
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
    public func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>)
        -> ProcessResult
    {
        let ch = format.channels
        if converter == .linear && inputFrames == 0 && input.count >= ch {
            if !firstFrameHeld {
                guard input.count >= 2 * ch else {
                    // A lone first frame: keep it until the next one arrives.
                    firstFrame.update(from: input.baseAddress!, count: ch)
                    firstFrameHeld = true
                    return ProcessResult(consumed: 1, produced: 0)
                }
            } else {
                // Feed the held frame with the first new one: the first call sees two frames.
                (firstFrame + ch).update(from: input.baseAddress!, count: ch)
                firstFrameHeld = false
                let r = processDirect(UnsafeBufferPointer(start: firstFrame, count: 2 * ch), into: output)
                // It took both, only the held one, or (no output room) neither.
                if r.consumed == 0 { firstFrameHeld = true }
                return ProcessResult(consumed: Swift.max(0, r.consumed - 1), produced: r.produced)
            }
        }
        return processDirect(input, into: output)
    }

    private func processDirect(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>)
        -> ProcessResult
    {
        let ch = format.channels
        let outCap = output.count / ch
        guard outCap > 0, let out = output.baseAddress else { return ProcessResult(consumed: 0, produced: 0) }
        let held = pendingCount
        var used = 0
        var total = Swift.min(held, outCap)
        if held < outCap, input.count >= ch {
            // libsamplerate writes after the held-back frames, which go first.
            var data = SRC_DATA()
            data.data_in = input.baseAddress
            data.input_frames = input.count / ch
            data.data_out = out + held * ch
            data.output_frames = outCap - held
            data.src_ratio = format.ratio
            data.end_of_input = 0
            let rc = src_process(state, &data)
            precondition(rc == 0, "libsamplerate: \(String(cString: src_strerror(rc)))")  // only on API misuse
            used = data.input_frames_used
            total += data.output_frames_gen
        }
        inputFrames += used
        let fromPending = Swift.min(held, outCap)
        out.update(from: pending, count: fromPending * ch)
        shiftPending(by: fromPending)
        // Deliver what the length rule allows; hold back the rest (after anything still pending).
        let allowed = Swift.max(0, format.totalOutputFrames(forInputFrames: inputFrames) - outputFrames)
        let emit = Swift.min(total, allowed)
        let excess = total - emit
        if excess > 0 {
            precondition(
                pendingCount + excess <= pendingCapacity,
                "libsamplerate ran ahead of the length rule by \(excess) frames")
            // Excess frames come after any pending frames that did not fit the output.
            (pending + excess * ch).update(from: pending, count: pendingCount * ch)
            pending.update(from: out + emit * ch, count: excess * ch)
            pendingCount += excess
        }
        outputFrames += emit
        return ProcessResult(consumed: used, produced: emit)
    }

    private func shiftPending(by n: Int) {
        guard n > 0 else { return }
        let ch = format.channels
        pendingCount -= n
        pending.update(from: pending + n * ch, count: pendingCount * ch)
    }

    /// Writes the remaining frames, up to the exact total. Call until it returns 0.
    public func finish(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        let ch = format.channels
        if firstFrameHeld {
            // A one-frame stream (LINEAR): hold its value for the frames the length rule gives.
            let total = format.totalOutputFrames(forInputFrames: 1)
            let n = Swift.min(total - outputFrames, output.count / ch)
            guard n > 0, let out = output.baseAddress else { return 0 }
            for f in 0..<n { (out + f * ch).update(from: firstFrame, count: ch) }
            outputFrames += n
            return n
        }
        let remaining = format.totalOutputFrames(forInputFrames: inputFrames) - outputFrames
        let cap = Swift.min(remaining, output.count / ch)
        guard cap > 0, let out = output.baseAddress else {
            if remaining <= 0 { pendingCount = 0 }  // anything held beyond the rule is dropped
            return 0
        }
        var got = Swift.min(pendingCount, cap)
        out.update(from: pending, count: got * ch)
        shiftPending(by: got)
        if got < cap && !drained {
            withUnsafePointer(to: &emptyInput) { empty in
                var data = SRC_DATA()
                data.data_in = empty
                data.input_frames = 0
                data.data_out = out + got * ch
                data.output_frames = cap - got
                data.src_ratio = format.ratio
                data.end_of_input = 1
                let rc = src_process(state, &data)
                precondition(rc == 0, "libsamplerate: \(String(cString: src_strerror(rc)))")
                if data.output_frames_gen == 0 { drained = true }
                got += data.output_frames_gen
            }
        }
        if got < cap && drained {
            // libsamplerate stopped short of the length rule: pad with silence.
            (out + got * ch).initialize(repeating: 0, count: (cap - got) * ch)
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
        pendingCount = 0
        firstFrameHeld = false
    }
}
