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
        self.frames = rate
        self.channels = channels
        self.chunkFrames = chunkFrames
        samples = BenchBuffer<Float>.aligned((rate + chunkFrames) * channels)
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

/// Small owned buffers for the timed bodies, released when the row is done. Every one starts on a
/// 64-byte boundary (a cache line, the widest vector): where a buffer falls otherwise changes from
/// process to process (other threads allocate too), and a vector kernel's speed with it — PCM16 →
/// Float32 of a 10 ms chunk took 15.4 ns in seven runs of one build and 18.3 ns in the eighth,
/// base64 decoding 216–220 ns and 250 ns — which `bench compare` would call a regression.
final class BenchBuffer<T> {
    let pointer: UnsafeMutableBufferPointer<T>
    init(_ count: Int, _ value: T) {
        pointer = Self.aligned(count)
        pointer.initialize(repeating: value)
    }

    /// A buffer of `values`.
    convenience init(_ values: [T]) where T: BitwiseCopyable {
        self.init(values.count, values.first!)
        _ = pointer.initialize(from: values)
    }

    deinit { pointer.deallocate() }
    var raw: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(pointer) }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withExtendedLifetime(self) { body(UnsafeRawBufferPointer(pointer)) }
    }

    /// Uninitialised memory for `count` values (at least one) on a 64-byte boundary.
    static func aligned(_ count: Int) -> UnsafeMutableBufferPointer<T> {
        let n = Swift.max(count, 1)
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: n * MemoryLayout<T>.stride, alignment: Swift.max(64, MemoryLayout<T>.alignment))
        return UnsafeMutableBufferPointer(start: raw.bindMemory(to: T.self, capacity: n), count: n)
    }
}

/// A stage's mutable state for a timed body kept for later (one per placement,
/// `BenchMeasure.run(placements:)`): behind a pointer, so the body changes it without the box and
/// the run-time exclusivity check a captured `var` costs on every call — 8 ns, a third of what
/// PCM16 → Float32 of a chunk takes (it measured 23 ns instead of 15).
final class BenchState<T> {
    private let pointer: UnsafeMutablePointer<T>

    init(_ value: T) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    var value: T {
        unsafeAddress { UnsafePointer(pointer) }
        unsafeMutableAddress { pointer }
    }
}
