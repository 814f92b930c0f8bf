import AudioPipelineAdapters
import AudioPipelineCore

/// Whole-file loading for the jobs that need a signal in memory (VAD detection and tuning): any file,
/// any channel count, mixed to mono through the same `FormatConverter` every job uses.
public enum AudioLoader {
    /// The file as mono Float32, at its own rate or converted to `rate` with `resampler`.
    public static func mono(
        path: String, rate: Int? = nil, resampler: ResamplerChoice = .default
    ) throws(AudioPipelineError) -> (samples: [Float], rate: Int) {
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
        return (samples, conversion.outputFormat.sampleRate.hz)
    }

    /// A far-end reference on the microphone's timeline: mono at `rate` (converted with `resampler`
    /// when its rate differs), padded with silence or cut to `length`. Returns a warning when the
    /// length had to change.
    public static func reference(
        path: String, rate: Int, length: Int, resampler: ResamplerChoice = .default
    ) throws(AudioPipelineError) -> (samples: [Float], warning: String?) {
        var (r, _) = try mono(path: path, rate: rate, resampler: resampler)
        var warning: String?
        if r.count != length {
            warning =
                "\(path): reference has \(r.count) samples, the microphone \(length); "
                + (r.count < length ? "padded with silence" : "cut")
            if r.count < length {
                r += [Float](repeating: 0, count: length - r.count)
            } else {
                r.removeLast(r.count - length)
            }
        }
        return (r, warning)
    }
}
