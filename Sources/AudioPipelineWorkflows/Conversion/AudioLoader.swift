import AudioPipelineAdapters
import AudioPipelineCore

/// Whole-file loading for the jobs that need a signal in memory (VAD detection and tuning): any file,
/// any channel count, mixed to mono.
public enum AudioLoader {
    /// The file as mono Float32 at its own rate.
    public static func mono(path: String) throws(AudioPipelineError) -> (samples: [Float], rate: Int) {
        let reader = try AudioFileReader(path: path)
        let channels = reader.format.channels
        var interleaved: [Float] = []
        var block = [Float](repeating: 0, count: 8192 * channels)
        while true {
            let got = try block.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in
                try reader.read(into: p)
            }
            if got == 0 { break }
            interleaved.append(contentsOf: block[0..<(got * channels)])
        }
        if channels == 1 { return (interleaved, reader.format.sampleRate.hz) }
        var mixer = try ChannelMixer(channels: channels)
        return (mixer.processAll(interleaved), reader.format.sampleRate.hz)
    }

    /// A far-end reference on the microphone's timeline: mono at `rate` (converted with `resampler`
    /// when its rate differs), padded with silence or cut to `length`. Returns a warning when the
    /// length had to change.
    public static func reference(
        path: String, rate: Int, length: Int, resampler: ResamplerChoice = .default
    ) throws(AudioPipelineError) -> (samples: [Float], warning: String?) {
        let (samples, refRate) = try mono(path: path)
        var r = samples
        if refRate != rate {
            var converter = try resampler.make(
                try ResamplingFormat(from: try SampleRate(refRate), to: try SampleRate(rate)))
            r = converter.processAll(r)
        }
        var warning: String?
        if r.count != length {
            warning =
                "\(path): reference has \(r.count) samples, the microphone \(length); "
                + "\(r.count < length ? "padded with silence" : "cut")"
            if r.count < length {
                r += [Float](repeating: 0, count: length - r.count)
            } else {
                r.removeLast(r.count - length)
            }
        }
        return (r, warning)
    }
}
