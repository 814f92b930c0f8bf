import AudioPipelineCore
import Foundation

/// The audio the bench feeds through: one second of a speech-like signal (a voiced 150 Hz tone
/// with a 3 Hz syllable envelope and a little noise), cycled chunk by chunk, in caller-owned
/// memory so the timed bodies only read it.
final class BenchSignal {
    let frames: Int
    let channels: Int
    let chunkFrames: Int
    let samples: UnsafeMutableBufferPointer<Float>
    private var offset = 0

    /// One second at `rate` (plus one chunk, so a chunk never wraps), `channels` interleaved.
    init(rate: Int, channels: Int, chunkFrames: Int, level: Double = 0.1, seed: UInt64 = 1) {
        (self.frames, self.channels, self.chunkFrames) = (rate, channels, chunkFrames)
        samples = .allocate(capacity: (rate + chunkFrames) * channels)
        var noise = SplitMix64(seed: seed)
        for k in 0..<(rate + chunkFrames) {
            let t = Double(k % rate) / Double(rate)
            let voiced = level * sin(2 * .pi * 150 * t) * (1 + sin(2 * .pi * 3 * t))
            for c in 0..<channels {
                let n = Double(noise.next() >> 11) / Double(1 << 53) - 0.5
                samples[k * channels + c] = Float(voiced + 0.002 * n)
            }
        }
    }

    deinit { samples.deallocate() }

    /// The next chunk (interleaved frames), cycling through the second.
    @inline(__always)
    func next() -> UnsafeBufferPointer<Float> {
        let start = offset * channels
        offset += chunkFrames
        if offset >= frames { offset = 0 }
        return UnsafeBufferPointer(rebasing: samples[start..<(start + chunkFrames * channels)])
    }

    /// The same chunk as PCM16, into `out` (at least `chunkFrames * channels`).
    func pcm16(_ chunk: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Int16>) {
        for i in 0..<chunk.count { out[i] = Int16(Swift.max(-32768, Swift.min(32767, (chunk[i] * 32767).rounded()))) }
    }
}

/// Small owned buffers for the timed bodies, released when the row is done.
final class BenchBuffer<T> {
    let pointer: UnsafeMutableBufferPointer<T>
    init(_ count: Int, _ value: T) {
        pointer = .allocate(capacity: Swift.max(count, 1))
        pointer.initialize(repeating: value)
    }
    deinit { pointer.deallocate() }
    var raw: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(pointer) }
}
