import AudioPipelineAdapters
import AudioPipelineCore

/// A file as mono Float32 at a chosen rate, pulled block by block: the same conversion as
/// `AudioLoader.mono(path:rate:resampler:)` (one `FileConversion`, pulled with `next`, so the same
/// samples), for a job that reads a second file in step with the first (a far-end reference beside
/// its microphone) or reads its files as it goes (the session simulator's tracks, `SessionSignal`).
/// Constant memory: the conversion's one input block and its converted output.
final class MonoPuller {
    let conversion: FileConversion
    /// The converted block being handed out (the conversion's buffer, valid until its next call).
    private var block = UnsafeBufferPointer<Float>(start: nil, count: 0)
    private var taken = 0
    /// Samples handed out so far.
    private(set) var pulled = 0

    init(path: String, rate: Int, resampler: ResamplerChoice) throws(AudioPipelineError) {
        conversion = try AudioLoader.monoConversion(path: path, rate: rate, resampler: resampler)
    }

    /// At the file's own rate (as `AudioLoader.mono(path:)`).
    init(path: String) throws(AudioPipelineError) {
        conversion = try AudioLoader.monoConversion(path: path)
    }

    /// Fills `destination` from the start with the next samples; returns how many (fewer only at
    /// the end of the file, 0 after it).
    func pull(into destination: UnsafeMutableBufferPointer<Float>) throws(AudioPipelineError) -> Int {
        var filled = 0
        while filled < destination.count {
            if taken == block.count {
                guard case .float32(let next)? = try conversion.next() else { break }
                (block, taken) = (next, 0)
                continue
            }
            let n = min(block.count - taken, destination.count - filled)
            for k in 0..<n { destination[filled + k] = block[taken + k] }
            (filled, taken) = (filled + n, taken + n)
        }
        pulled += filled
        return filled
    }

    /// As a far-end reference, once its microphone (`microphone` samples) ended: the reference's own
    /// warnings (truncated, NaN samples) and, when the lengths differ, `AudioLoader.reference`'s —
    /// the rest of it is converted to count it, not kept.
    func referenceWarnings(path: String, microphone: Int) throws(AudioPipelineError) -> [String] {
        var rest = block.count - taken
        while case .float32(let b)? = try conversion.next() { rest += b.count }
        (block, taken) = (UnsafeBufferPointer(start: nil, count: 0), 0)
        pulled += rest
        let length = AudioLoader.lengthWarning(path: path, reference: pulled, microphone: microphone)
        return try InputCheck.all(conversion.reader, strict: false) + (length.map { [$0] } ?? [])
    }
}
