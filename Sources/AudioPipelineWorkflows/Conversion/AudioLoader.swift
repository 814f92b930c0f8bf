import AudioPipelineAdapters
import AudioPipelineCore

/// Mono audio for the VAD jobs and the session simulator: any file, any channel count, mixed to mono
/// through the same `FormatConverter` every job uses — block by block (`monoBlocks`, constant memory;
/// `MonoPuller` for a second file read in step, or the simulator's tracks as its session plays) or
/// whole (`mono`, `reference`) where a job needs the whole signal (the simulator's impulse response;
/// `vad tune` on a file of undeclared length).
public enum AudioLoader {
    /// The file as mono Float32, at its own rate or converted to `rate` with `resampler`; and what
    /// the file lacked (truncated, NaN or infinite samples: `InputCheck`), as warnings.
    public static func mono(
        path: String, rate: Int? = nil, resampler: ResamplerChoice = .default
    ) throws(AudioPipelineError) -> (samples: [Float], rate: Int, warnings: [String]) {
        let conversion = try monoConversion(path: path, rate: rate, resampler: resampler)
        let reader = conversion.reader
        var samples: [Float] = []
        samples.reserveCapacity(reader.description.frames ?? 0)
        _ = try conversion.run(progress: { _ in }) { (block) throws(AudioPipelineError) in
            if case .float32(let b) = block { samples.append(contentsOf: b) }
        }
        let warnings = try InputCheck.all(reader, strict: false)
        return (samples, conversion.outputFormat.sampleRate.hz, warnings)
    }

    /// The file as mono Float32 at its own rate, block by block, in constant memory: `prepare` gets
    /// the rate before the first block, `body` each block. Returns the samples and `mono`'s warnings.
    public static func monoBlocks(
        path: String, prepare: (Int) throws(AudioPipelineError) -> Void,
        _ body: (UnsafeBufferPointer<Float>) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) -> (samples: Int, warnings: [String]) {
        let conversion = try monoConversion(path: path)
        let reader = conversion.reader
        try prepare(conversion.outputFormat.sampleRate.hz)
        let frames = try conversion.run(progress: { _ in }) { (block) throws(AudioPipelineError) in
            if case .float32(let b) = block { try body(b) }
        }
        let warnings = try InputCheck.all(reader, strict: false)
        return (frames.out, warnings)
    }

    /// The file as mono Float32 at `rate` (nil: its own), block by block, in constant memory: the
    /// same samples as `mono(path:rate:resampler:)`; `prepare` gets the rate before the first block,
    /// `body` each block. Returns the samples, the rate and `mono`'s warnings.
    public static func monoBlocks(
        path: String, rate: Int?, resampler: ResamplerChoice = .default,
        prepare: (Int) throws(AudioPipelineError) -> Void,
        _ body: (UnsafeBufferPointer<Float>) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) -> (samples: Int, rate: Int, warnings: [String]) {
        let conversion = try monoConversion(path: path, rate: rate, resampler: resampler)
        let outRate = conversion.outputFormat.sampleRate.hz
        try prepare(outRate)
        let frames = try conversion.run(progress: { _ in }) { (block) throws(AudioPipelineError) in
            if case .float32(let b) = block { try body(b) }
        }
        let warnings = try InputCheck.all(conversion.reader, strict: false)
        return (frames.out, outRate, warnings)
    }

    /// A far-end reference on the microphone's timeline: mono at `rate` (converted with `resampler`
    /// when its rate differs), padded with silence or cut to `length`. Returns a warning when the
    /// length had to change (and `mono`'s).
    public static func reference(
        path: String, rate: Int, length: Int, resampler: ResamplerChoice = .default
    ) throws(AudioPipelineError) -> (samples: [Float], warnings: [String]) {
        var (r, _, warnings) = try mono(path: path, rate: rate, resampler: resampler)
        if let w = lengthWarning(path: path, reference: r.count, microphone: length) {
            warnings.append(w)
            if r.count < length {
                r += [Float](repeating: 0, count: length - r.count)
            } else {
                r.removeLast(r.count - length)
            }
        }
        return (r, warnings)
    }

    /// The warning of a reference whose length differs from its microphone's (nil when equal).
    static func lengthWarning(path: String, reference: Int, microphone: Int) -> String? {
        guard reference != microphone else { return nil }
        return "\(path): reference has \(reference) samples, the microphone \(microphone); "
            + (reference < microphone ? "padded with silence" : "cut")
    }

    /// The one conversion every mono read goes through: mono Float32, at the file's rate or `rate`.
    static func monoConversion(path: String, rate: Int? = nil, resampler: ResamplerChoice = .default)
        throws(AudioPipelineError) -> FileConversion
    {
        var o = ConvertOptions()
        o.channels = 1
        o.encoding = .float32
        o.resampler = resampler
        o.resamplerMode = .throughput  // the live path's output, bit for bit (see ConvertOptions)
        o.sampleRate = try rate.map { (r) throws(AudioPipelineError) in try SampleRate(r) }
        return try FileConversion(reader: try AudioFileReader(path: path), options: o)
    }
}
