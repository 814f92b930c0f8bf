/// Cuts a stream of interleaved samples into fixed-size chunks, whatever sizes it arrives in.
///
/// Chunks are handed to a closure as buffer views — straight from the input when a whole chunk is
/// there (no copy), or from one internal chunk buffer allocated at init. Nothing is allocated per
/// chunk. Each chunk carries its start position, so its start time is `startFrame / rate`.
/// For a chunk of a duration, `SampleRate.frames(milliseconds:)` gives the size (20 ms at 24 kHz is 480).
public struct Chunker<Sample: AdditiveArithmetic> {
    /// What happens to a last, incomplete chunk at `finish`.
    public enum LastChunk: String, Sendable, CaseIterable {
        /// Hand it over as it is, shorter than the others.
        case emitShort = "short"
        /// Fill it up with silence (zeros) to full size.
        case pad
        /// Drop it.
        case drop
    }

    /// One chunk, handed to the caller's closure.
    public struct Chunk {
        /// The chunk's interleaved samples (valid only inside the closure).
        public let samples: UnsafeBufferPointer<Sample>
        /// Position of the chunk's first frame in the stream.
        public let startFrame: Int
        /// Frames of real audio in the chunk (the rest, if any, is padding).
        public let frames: Int
        /// Frames of silence appended by `.pad`.
        public let paddedFrames: Int
    }

    /// Frames per chunk.
    public let chunkFrames: Int
    /// Interleaved channels per frame.
    public let channels: Int
    /// What `finish` does with a last, incomplete chunk.
    public let lastChunk: LastChunk
    private var buffer: [Sample]
    private var filled = 0  // samples in `buffer`
    private var nextStart = 0  // frame index of the next chunk

    /// - Throws: `invalidConfiguration` for a chunk of less than one frame or no channels.
    public init(chunkFrames: Int, channels: Int = 1, lastChunk: LastChunk = .emitShort) throws(AudioPipelineError) {
        guard chunkFrames >= 1 else {
            throw AudioPipelineError(.invalidConfiguration, "chunk size \(chunkFrames) frames is not positive")
        }
        guard channels >= 1 else {
            throw AudioPipelineError(.invalidConfiguration, "channel count \(channels) is not positive")
        }
        self.chunkFrames = chunkFrames
        self.channels = channels
        self.lastChunk = lastChunk
        buffer = Array(repeating: .zero, count: chunkFrames * channels)
    }

    /// Takes input samples and calls `body` for every chunk they complete. An error `body` throws
    /// is passed on with its type (then `reset()` before going on).
    public mutating func push<E: Error>(
        _ input: UnsafeBufferPointer<Sample>, _ body: (Chunk) throws(E) -> Void
    ) throws(E) {
        let size = chunkFrames * channels
        var offset = 0
        // Top up a partly filled chunk first.
        if filled > 0 {
            let take = Swift.min(size - filled, input.count)
            copy(input, from: 0, count: take, to: filled)
            filled += take
            offset = take
            if filled == size {
                try buffer.withUnsafeBufferPointer { (b) throws(E) in
                    try body(Chunk(samples: b, startFrame: nextStart, frames: chunkFrames, paddedFrames: 0))
                }
                nextStart += chunkFrames
                filled = 0
            }
        }
        // Whole chunks straight from the input.
        while input.count - offset >= size {
            let samples = UnsafeBufferPointer(rebasing: input[offset..<offset + size])
            try body(Chunk(samples: samples, startFrame: nextStart, frames: chunkFrames, paddedFrames: 0))
            nextStart += chunkFrames
            offset += size
        }
        // Keep the rest.
        let rest = input.count - offset
        if rest > 0 {
            copy(input, from: offset, count: rest, to: 0)
            filled = rest
        }
    }

    /// Copies `count` samples of `input` from `offset` into the chunk buffer at `at`.
    @inline(__always)
    private mutating func copy(_ input: UnsafeBufferPointer<Sample>, from offset: Int, count: Int, to at: Int) {
        guard count > 0 else { return }
        buffer.withUnsafeMutableBufferPointer { b in
            (b.baseAddress! + at).update(from: input.baseAddress! + offset, count: count)
        }
    }

    /// Ends the stream: the last incomplete chunk (whole frames only) is emitted short, padded, or
    /// dropped, as configured. Then `reset()` before a new stream.
    public mutating func finish<E: Error>(_ body: (Chunk) throws(E) -> Void) throws(E) {
        let frames = filled / channels
        defer { filled = 0 }
        guard frames > 0 else { return }
        switch lastChunk {
        case .drop:
            return
        case .emitShort:
            try buffer.withUnsafeBufferPointer { (b) throws(E) in
                let samples = UnsafeBufferPointer(rebasing: b[0..<frames * channels])
                try body(Chunk(samples: samples, startFrame: nextStart, frames: frames, paddedFrames: 0))
            }
        case .pad:
            buffer.withUnsafeMutableBufferPointer { b in
                for k in frames * channels..<b.count { b[k] = .zero }
            }
            try buffer.withUnsafeBufferPointer { (b) throws(E) in
                try body(Chunk(samples: b, startFrame: nextStart, frames: frames, paddedFrames: chunkFrames - frames))
            }
        }
        nextStart += frames
    }

    /// Drops the frames gathered so far and starts a new stream at frame 0.
    public mutating func reset() {
        filled = 0
        nextStart = 0
    }
}
