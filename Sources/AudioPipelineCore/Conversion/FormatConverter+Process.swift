// The four input/output pairs and `finish`, all through one pipeline (`run`, `drain`): the closures
// that load the input and store the output are inlined into each overload, so each is a straight
// specialised loop.

extension FormatConverter {
    /// Converts `Float` frames into `Int16` frames (quantised: compatibility, dither, counts).
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>
    ) -> ProcessResult {
        run(
            input.count / inChannels, output.count / outChannels, direct: nil,
            load: { frame, _ in input.baseAddress! + frame * inChannels },
            store: { samples, frames, at in quantise(samples, frames, into: output.baseAddress! + at * outChannels) })
    }

    /// Converts `Int16` frames (widened with the compatibility) into `Int16` frames.
    public func process(
        _ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>
    ) -> ProcessResult {
        run(
            input.count / inChannels, output.count / outChannels, direct: nil,
            load: { frame, count in widen(input, frame, count) },
            store: { samples, frames, at in quantise(samples, frames, into: output.baseAddress! + at * outChannels) })
    }

    /// Converts `Float` frames into `Float` frames.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
        run(
            input.count / inChannels, output.count / outChannels, direct: directTarget(output),
            load: { frame, _ in input.baseAddress! + frame * inChannels },
            store: { samples, frames, at in copy(samples, frames, into: output.baseAddress! + at * outChannels) })
    }

    /// Converts `Int16` frames (widened with the compatibility) into `Float` frames.
    public func process(
        _ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
        run(
            input.count / inChannels, output.count / outChannels, direct: directTarget(output),
            load: { frame, count in widen(input, frame, count) },
            store: { samples, frames, at in copy(samples, frames, into: output.baseAddress! + at * outChannels) })
    }

    /// Ends the stream: writes what the resampler still holds, as `Int16` frames; returns the frames
    /// written. Call until it returns 0 (one call does when `output` holds
    /// `maxOutputCount(forInput: 0)` frames); then `reset()` before a new stream.
    public func finish(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        drain(output.count / outChannels, direct: nil) { samples, frames, at in
            quantise(samples, frames, into: output.baseAddress! + at * outChannels)
        }
    }

    /// As `finish(into:)` for `Float` output.
    public func finish(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        drain(output.count / outChannels, direct: directTarget(output)) { samples, frames, at in
            copy(samples, frames, into: output.baseAddress! + at * outChannels)
        }
    }

    // MARK: - The pipeline

    /// Where the resampler may write `Float` output straight into the caller's buffer (no
    /// duplication follows it): saves a copy on the playback side.
    @inline(__always)
    private func directTarget(_ output: UnsafeMutableBufferPointer<Float>) -> UnsafeMutablePointer<Float>? {
        outChannels == stageChannels ? output.baseAddress : nil
    }

    /// `count` frames of `Int16` input from frame `frame`, widened into the `widened` buffer.
    @inline(__always)
    private func widen(_ input: UnsafeBufferPointer<Int16>, _ frame: Int, _ count: Int) -> UnsafePointer<Float> {
        let src = UnsafeBufferPointer(start: input.baseAddress! + frame * inChannels, count: count * inChannels)
        _ = widener.process(src, into: UnsafeMutableBufferPointer(start: widened, count: count * inChannels))
        return UnsafePointer(widened)
    }

    @inline(__always)
    private func quantise(_ samples: UnsafePointer<Float>, _ frames: Int, into output: UnsafeMutablePointer<Int16>) {
        let n = frames * outChannels
        _ = quantiser.process(
            UnsafeBufferPointer(start: samples, count: n), into: UnsafeMutableBufferPointer(start: output, count: n))
    }

    @inline(__always)
    private func copy(_ samples: UnsafePointer<Float>, _ frames: Int, into output: UnsafeMutablePointer<Float>) {
        output.update(from: samples, count: frames * outChannels)
    }

    /// Converts up to `inFrames` input frames into at most `outCap` output frames, a block at a
    /// time: `load(frame, count)` gives `count` input frames from `frame` as interleaved `Float`,
    /// `store(samples, frames, at)` writes output frames at output frame `at`. With `direct`, the
    /// resampler writes into the output itself (its frames are not stored again).
    @inline(__always)
    private func run(
        _ inFrames: Int, _ outCap: Int, direct: UnsafeMutablePointer<Float>?,
        load: (_ frame: Int, _ count: Int) -> UnsafePointer<Float>,
        store: (_ samples: UnsafePointer<Float>, _ frames: Int, _ at: Int) -> Void
    ) -> ProcessResult {
        var consumed = 0, produced = 0
        while consumed < inFrames && produced < outCap {
            let take = Swift.min(block, inFrames - consumed)
            let src = mix(load(consumed, take), take)
            guard resamples else {
                let n = Swift.min(take, outCap - produced)
                emit(src, n, at: produced, store)
                consumed += n
                produced += n
                continue
            }
            // Room for at most a block's output in the own buffer: one step takes the whole block.
            let room = direct != nil ? outCap - produced : Swift.min(resamplerCapacity, outCap - produced)
            let target = direct.map { $0 + produced * stageChannels } ?? resampled
            let r = resampler!.process(
                UnsafeBufferPointer(start: src, count: take * stageChannels),
                into: UnsafeMutableBufferPointer(start: target, count: room * stageChannels))
            if direct == nil { emit(resampled, r.produced, at: produced, store) }
            consumed += r.consumed
            produced += r.produced
            if r.consumed == 0 && r.produced == 0 { break }  // defensive: never loop forever
        }
        return ProcessResult(consumed: consumed, produced: produced)
    }

    /// One `finish` step of the resampler into at most `outCap` output frames.
    @inline(__always)
    private func drain(
        _ outCap: Int, direct: UnsafeMutablePointer<Float>?,
        store: (_ samples: UnsafePointer<Float>, _ frames: Int, _ at: Int) -> Void
    ) -> Int {
        guard resamples, outCap > 0 else { return 0 }
        let room = direct != nil ? outCap : Swift.min(resamplerCapacity, outCap)
        let target = UnsafeMutableBufferPointer(start: direct ?? resampled, count: room * stageChannels)
        let n = resampler!.finish(into: target)
        if direct == nil { emit(resampled, n, at: 0, store) }
        return n
    }

    /// The channel plan's mixing step: `count` input frames → stage frames.
    @inline(__always)
    private func mix(_ src: UnsafePointer<Float>, _ count: Int) -> UnsafePointer<Float> {
        guard mixer != nil else { return src }
        _ = mixer!.process(
            UnsafeBufferPointer(start: src, count: count * inChannels),
            into: UnsafeMutableBufferPointer(start: mixed, count: count))
        return UnsafePointer(mixed)
    }

    /// The channel plan's duplication step (mono → N), then `store`.
    @inline(__always)
    private func emit(
        _ src: UnsafePointer<Float>, _ frames: Int, at: Int, _ store: (UnsafePointer<Float>, Int, Int) -> Void
    ) {
        guard frames > 0 else { return }
        guard outChannels > stageChannels else { return store(src, frames, at) }
        for f in 0..<frames {
            for c in 0..<outChannels { duplicated[f * outChannels + c] = src[f] }
        }
        store(duplicated, frames, at)
    }
}
