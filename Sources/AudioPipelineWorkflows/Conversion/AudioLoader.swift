import AudioPipelineAdapters
import AudioPipelineCore

/// Mono audio for the VAD jobs and the session simulator: any file, any channel count, mixed to mono
/// through the same `FormatConverter` every job uses — block by block (`monoBlocks`, constant memory;
/// `MonoPuller` for a second file read in step) or whole (`mono`, `reference`) where a job needs the
/// whole signal (`vad detect --explain`, `vad tune` with references, the simulator's tracks).
public enum AudioLoader {
    /// The file as mono Float32, at its own rate or converted to `rate` with `resampler`; and what
    /// the file lacked (truncated, NaN or infinite samples: `InputCheck`), as warnings.
    public static func mono(
        path: String, rate: Int? = nil, resampler: ResamplerChoice = .default
    ) throws(AudioPipelineError) -> (samples: [Float], rate: Int, warnings: [String]) {
        let reader = try AudioFileReader(path: path)
        var o = ConvertOptions()
        o.channels = 1
        o.encoding = .float32
        o.resampler = resampler
        o.sampleRate = try rate.map { (r) throws(AudioPipelineError) in try SampleRate(r) }
        let conversion = try FileConversion(reader: reader, options: o)
        var samples: [Float] = []
        samples.reserveCapacity(reader.description.frames ?? 0)
        _ = try conversion.run(progress: { _ in }) { (block) throws(AudioPipelineError) in
            if case .float32(let b) = block { samples.append(contentsOf: b) }
        }
        let warnings = [
            try InputCheck.truncation(reader, strict: false), try InputCheck.nonFinite(reader, strict: false),
        ].compactMap { $0 }
        return (samples, conversion.outputFormat.sampleRate.hz, warnings)
    }

    /// The file as mono Float32 at its own rate, block by block, in constant memory: `prepare` gets
    /// the rate before the first block, `body` each block. Returns the samples and `mono`'s warnings.
    public static func monoBlocks(
        path: String, prepare: (Int) throws(AudioPipelineError) -> Void,
        _ body: (UnsafeBufferPointer<Float>) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) -> (samples: Int, warnings: [String]) {
        let reader = try AudioFileReader(path: path)
        var o = ConvertOptions()
        o.channels = 1
        o.encoding = .float32
        let conversion = try FileConversion(reader: reader, options: o)
        try prepare(conversion.outputFormat.sampleRate.hz)
        let frames = try conversion.run(progress: { _ in }) { (block) throws(AudioPipelineError) in
            if case .float32(let b) = block { try body(b) }
        }
        let warnings = [
            try InputCheck.truncation(reader, strict: false), try InputCheck.nonFinite(reader, strict: false),
        ].compactMap { $0 }
        return (frames.out, warnings)
    }

    /// A far-end reference on the microphone's timeline: mono at `rate` (converted with `resampler`
    /// when its rate differs), padded with silence or cut to `length`. Returns a warning when the
    /// length had to change (and `mono`'s).
    public static func reference(
        path: String, rate: Int, length: Int, resampler: ResamplerChoice = .default
    ) throws(AudioPipelineError) -> (samples: [Float], warnings: [String]) {
        var (r, _, warnings) = try mono(path: path, rate: rate, resampler: resampler)
        if r.count != length {
            warnings.append(
                "\(path): reference has \(r.count) samples, the microphone \(length); "
                    + (r.count < length ? "padded with silence" : "cut"))
            if r.count < length {
                r += [Float](repeating: 0, count: length - r.count)
            } else {
                r.removeLast(r.count - length)
            }
        }
        return (r, warnings)
    }
}
