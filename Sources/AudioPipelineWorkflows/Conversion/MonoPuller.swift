import AudioPipelineAdapters
import AudioPipelineCore

/// A file as mono Float32 at a chosen rate, pulled block by block: the same conversion as
/// `AudioLoader.mono(path:rate:resampler:)` (one `FileConversion`, so the same samples), for a job
/// that reads a second file in step with the first (a far-end reference beside its microphone).
/// Constant memory: one input block and its converted output.
final class MonoPuller {
    let conversion: FileConversion
    private var pcm: [Int16], float: [Float]
    private var pending = 0, pendingStart = 0  // input frames read but not yet converted
    private var output: [Float]
    private var outputStart = 0, outputCount = 0
    private var inputEnded = false, finished = false
    /// Samples handed out so far.
    private(set) var pulled = 0

    init(path: String, rate: Int, resampler: ResamplerChoice) throws(AudioPipelineError) {
        conversion = try AudioLoader.monoConversion(path: path, rate: rate, resampler: resampler)
        let reader = conversion.reader, block = conversion.converter.configuration.blockFrames
        let isPCM16 = reader.description.isPCM16
        pcm = [Int16](repeating: 0, count: isPCM16 ? block * reader.format.channels : 0)
        float = [Float](repeating: 0, count: isPCM16 ? 0 : block * reader.format.channels)
        output = [Float](
            repeating: 0,
            count: max(
                conversion.converter.maxOutputCount(forInput: block), conversion.converter.maxOutputCount(forInput: 0),
                1))
    }

    /// Fills `destination` from the start with the next samples; returns how many (fewer only at
    /// the end of the file, 0 after it).
    func pull(into destination: UnsafeMutableBufferPointer<Float>) throws(AudioPipelineError) -> Int {
        var filled = 0
        while filled < destination.count {
            if outputCount > 0 {
                let n = min(outputCount, destination.count - filled)
                for k in 0..<n { destination[filled + k] = output[outputStart + k] }
                (filled, outputStart, outputCount) = (filled + n, outputStart + n, outputCount - n)
            } else if try !convertMore() {
                break
            }
        }
        pulled += filled
        return filled
    }

    /// Converts the next piece into `output`; false at the end.
    private func convertMore() throws(AudioPipelineError) -> Bool {
        let c = conversion.converter, reader = conversion.reader, stride = reader.format.channels
        outputStart = 0
        if pending == 0 && !inputEnded {
            pending =
                reader.description.isPCM16
                ? try pcm.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in try reader.read(into: p) }
                : try float.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in try reader.read(into: p)
                }
            pendingStart = 0
            if pending == 0 { inputEnded = true }
        }
        if pending > 0 {
            let range = pendingStart * stride..<(pendingStart + pending) * stride
            let r =
                reader.description.isPCM16
                ? pcm.withUnsafeBufferPointer { p in
                    output.withUnsafeMutableBufferPointer {
                        c.process(UnsafeBufferPointer(rebasing: p[range]), into: $0)
                    }
                }
                : float.withUnsafeBufferPointer { p in
                    output.withUnsafeMutableBufferPointer {
                        c.process(UnsafeBufferPointer(rebasing: p[range]), into: $0)
                    }
                }
            (pending, pendingStart, outputCount) = (pending - r.consumed, pendingStart + r.consumed, r.produced)
            if r.consumed == 0 && r.produced == 0 { pending = 0 }  // as `FileConversion.run`: no progress, next block
            return true
        }
        guard !finished else { return false }
        outputCount = output.withUnsafeMutableBufferPointer { c.finish(into: $0) }
        if outputCount == 0 { finished = true }
        return outputCount > 0
    }
}
