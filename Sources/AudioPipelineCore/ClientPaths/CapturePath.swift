/// A voice-agent client's microphone path as one object: device audio in, the messages the
/// API's clients send out, one per chunk.
///
/// ```
/// device Float32 or Int16, any rate and channels
///   → FormatConverter (to the profile's client rate, mono, PCM16: compatibility, dither)
///   → Chunker (chunkMilliseconds; the last chunk short, padded or dropped)
///   → WireProfile.frame (prefix + base64 + suffix, or raw PCM for binary profiles)
///   → send(message)
/// ```
///
/// Each message is written into a buffer the caller owns (at least `maximumMessageLength`
/// bytes) and handed to `send` while valid; nothing is allocated per chunk, so it can run in an
/// audio callback. `finish` flushes the resampler and the last chunk; then `reset()` for a new
/// stream. The messages are the same whatever block sizes the device delivers (the stages are
/// each chunk-invariant).
///
/// ```swift
/// let mic = try CapturePath(profile: try .builtIn(.openaiRealtime), configuration: .init(device: format))
/// var message = [UInt8](repeating: 0, count: mic.maximumMessageLength)
/// // in the audio callback:
/// message.withUnsafeMutableBytes { buffer in
///     mic.process(samples, into: buffer) { socket.send($0.bytes, opcode: $0.opcode) }
/// }
/// ```
public final class CapturePath {
    /// What `CapturePath` converts from and how: the device's format, the mono plan, the chunk
    /// duration, the last chunk, PCM conventions and dither.
    public struct Configuration: Sendable, Hashable {
        /// The device's audio: rate and interleaved channels.
        public var device: StreamFormat
        /// How the device's channels become mono: `.downmix` (the mean) or `.pick(k)`.
        public var channels: FormatConverter.ChannelPlan
        /// Audio per message, ms (20 ms is what the vendors' guides use).
        public var chunkMilliseconds: Double
        /// The chunk durations the toolkit's commands take (`--chunk-ms` of frame, bench and session
        /// simulate), ms: voice APIs take messages of 10 to 100 ms; a second is already a long one.
        public static let chunkMillisecondsRange: ClosedRange<Double> = 1...1000
        /// What happens to a last, incomplete chunk at `finish`.
        public var lastChunk: Chunker<Int16>.LastChunk
        /// How Float32 becomes PCM16 (`.ios` reproduces the common iOS client code byte for byte).
        public var compatibility: PCMCompatibility
        /// Dither before quantising to PCM16 (none by default; not with `.ios`).
        public var dither: Dither
        /// Device frames converted per internal step (buffers are sized for it at init).
        public var blockFrames: Int

        /// The defaults are what the vendors' guides show: mean of the channels, 20 ms chunks, a short
        /// last chunk sent as it is, standard PCM conventions, no dither.
        public init(
            device: StreamFormat, channels: FormatConverter.ChannelPlan = .downmix, chunkMilliseconds: Double = 20,
            lastChunk: Chunker<Int16>.LastChunk = .emitShort, compatibility: PCMCompatibility = .standard,
            dither: Dither = .none, blockFrames: Int = 4096
        ) {
            self.device = device
            self.channels = channels
            self.chunkMilliseconds = chunkMilliseconds
            self.lastChunk = lastChunk
            self.compatibility = compatibility
            self.dither = dither
            self.blockFrames = blockFrames
        }
    }

    /// One client audio message, valid only inside `send`.
    public struct Message {
        /// The message as sent: JSON text, or raw PCM16 for binary profiles.
        public let bytes: UnsafeRawBufferPointer
        /// How it goes on the WebSocket (`.binary` for binary profiles such as Deepgram).
        public let opcode: WireOpcode
        /// Position of the chunk's first frame in the stream, at the client rate.
        public let startFrame: Int
        /// Frames of audio in the chunk, and frames of silence padded after them.
        public let frames: Int
        /// Frames of silence padded after them (the last chunk with `.pad`).
        public let paddedFrames: Int
    }

    /// The API the messages are for (its client rate, framing and binary or text messages).
    public let profile: WireProfile
    /// The device format and chunking this path was made with.
    public let configuration: Configuration
    /// The conversion to the profile's client rate, mono PCM16 (its resampler, latency, clip counts).
    public let converter: FormatConverter
    /// Frames per chunk at the client rate.
    public let chunkFrames: Int
    /// Bytes the caller's message buffer must hold.
    public var maximumMessageLength: Int { profile.messageLength(pcmBytes: chunkFrames * 2) }

    @exclusivity(unchecked) var chunker: Chunker<Int16>
    let pcm: UnsafeMutablePointer<Int16>
    let pcmCapacity: Int

    /// - Throws: `invalidConfiguration` when the channel plan does not give mono, a chunk is less
    ///   than a frame, or the conversion cannot be made (see `FormatConverter.init`).
    public init(
        profile: WireProfile, configuration: Configuration,
        resampler: FormatConverter.ResamplerFactory = FormatConverter.polyphase()
    ) throws(AudioPipelineError) {
        let c = configuration
        let rate = try SampleRate(profile.clientRate)
        converter = try FormatConverter(
            .init(
                input: c.device, outputRate: rate, channels: c.channels, compatibility: c.compatibility,
                dither: c.dither, blockFrames: c.blockFrames),
            resampler: resampler)
        guard converter.outputFormat.channels == 1 else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "capture path: \(c.channels) gives \(converter.outputFormat.channels) channels, not mono")
        }
        chunkFrames = rate.frames(milliseconds: c.chunkMilliseconds)
        guard chunkFrames >= 1 else {
            throw AudioPipelineError(
                .invalidConfiguration, "chunk of \(c.chunkMilliseconds) ms is less than one sample at \(rate.hz) Hz")
        }
        chunker = try Chunker(chunkFrames: chunkFrames, channels: 1, lastChunk: c.lastChunk)
        self.profile = profile
        self.configuration = c
        pcmCapacity = Swift.max(
            converter.maxOutputCount(forInput: c.blockFrames), converter.maxOutputCount(forInput: 0))
        pcm = .allocate(capacity: pcmCapacity)
    }

    deinit { pcm.deallocate() }

    /// Output frames by which the messages lag the device audio (the resampler's), released by `finish`.
    public var latency: Int { converter.latency }

    /// Takes interleaved `Float` device frames and sends every message they complete.
    ///
    /// If `send` throws, no further message of this call is sent and the error is rethrown; the
    /// stream is broken then (`reset()` before going on).
    @inlinable
    public func process<E: Error>(
        _ input: UnsafeBufferPointer<Float>, into message: UnsafeMutableRawBufferPointer,
        _ send: (Message) throws(E) -> Void
    ) throws(E) {
        var failure: E?
        _process(input, into: message) { m in Self.deliver(m, send, &failure) }
        if let failure { throw failure }
    }

    /// Takes interleaved `Int16` device frames (widened with the compatibility) and sends every
    /// message they complete; `send` as for `Float` frames.
    @inlinable
    public func process<E: Error>(
        _ input: UnsafeBufferPointer<Int16>, into message: UnsafeMutableRawBufferPointer,
        _ send: (Message) throws(E) -> Void
    ) throws(E) {
        var failure: E?
        _process(input, into: message) { m in Self.deliver(m, send, &failure) }
        if let failure { throw failure }
    }

    /// Ends the stream: the resampler's remaining output, then the last chunk (as configured).
    @inlinable
    public func finish<E: Error>(
        into message: UnsafeMutableRawBufferPointer, _ send: (Message) throws(E) -> Void
    ) throws(E) {
        var failure: E?
        _finish(into: message) { m in Self.deliver(m, send, &failure) }
        if let failure { throw failure }
    }

    /// Prepares for a new, unrelated stream.
    public func reset() {
        converter.reset()
        chunker.reset()
    }

    // MARK: - Non-generic internals
    //
    // The public methods are generic over the error `send` throws; they are inlined at the call
    // site (so specialised: with a non-throwing `send` the error handling disappears) and call
    // these, which the core compiles once, the chunker and converter specialised inside. A
    // generic body compiled here alone would run unspecialised for a caller in another module
    // (measured: ~200 ns per 20 ms chunk).

    /// Calls `send`; on an error, keeps it in `failure` and answers false (stop sending).
    @inlinable
    static func deliver<E: Error>(_ m: Message, _ send: (Message) throws(E) -> Void, _ failure: inout E?) -> Bool {
        do throws(E) {
            try send(m)
            return true
        } catch {
            failure = error
            return false
        }
    }

    @usableFromInline
    func _process(
        _ input: UnsafeBufferPointer<Float>, into message: UnsafeMutableRawBufferPointer, _ send: (Message) -> Bool
    ) {
        let ch = converter.inputStride
        pump(input.count / ch, message, send) { offset in
            let rest = UnsafeBufferPointer(rebasing: input[(offset * ch)..<(input.count / ch * ch)])
            return converter.process(rest, into: UnsafeMutableBufferPointer(start: pcm, count: pcmCapacity))
        }
    }

    @usableFromInline
    func _process(
        _ input: UnsafeBufferPointer<Int16>, into message: UnsafeMutableRawBufferPointer, _ send: (Message) -> Bool
    ) {
        let ch = converter.inputStride
        pump(input.count / ch, message, send) { offset in
            let rest = UnsafeBufferPointer(rebasing: input[(offset * ch)..<(input.count / ch * ch)])
            return converter.process(rest, into: UnsafeMutableBufferPointer(start: pcm, count: pcmCapacity))
        }
    }

    @usableFromInline
    func _finish(into message: UnsafeMutableRawBufferPointer, _ send: (Message) -> Bool) {
        precondition(message.count >= maximumMessageLength, "capture path: message buffer too small")
        var going = true
        while going {
            let n = converter.finish(into: UnsafeMutableBufferPointer(start: pcm, count: pcmCapacity))
            if n == 0 { break }
            going = chunk(n, message, send)
        }
        guard going else { return }
        chunker.finish { c in
            if going { going = send(frame(c, into: message)) }
        }
    }

    /// Converts `frames` input frames, `convert(offset)` taking them from frame `offset` into the
    /// PCM buffer, and chunks what comes out, until done or `send` answers false.
    @inline(__always)
    private func pump(
        _ frames: Int, _ message: UnsafeMutableRawBufferPointer, _ send: (Message) -> Bool,
        convert: (_ offset: Int) -> ProcessResult
    ) {
        precondition(message.count >= maximumMessageLength, "capture path: message buffer too small")
        var offset = 0
        while offset < frames {
            let r = convert(offset)
            offset += r.consumed
            if !chunk(r.produced, message, send) { return }
            if r.consumed == 0 && r.produced == 0 { break }  // defensive: never loop forever
        }
    }

    /// Chunks `count` PCM frames and sends the messages; false when `send` said stop.
    @inline(__always)
    private func chunk(_ count: Int, _ message: UnsafeMutableRawBufferPointer, _ send: (Message) -> Bool) -> Bool {
        guard count > 0 else { return true }
        var going = true
        chunker.push(UnsafeBufferPointer(start: pcm, count: count)) { c in
            if going { going = send(frame(c, into: message)) }
        }
        return going
    }

    @inline(__always)
    private func frame(_ chunk: Chunker<Int16>.Chunk, into message: UnsafeMutableRawBufferPointer) -> Message {
        let n = profile.frame(UnsafeRawBufferPointer(chunk.samples), into: message)
        return Message(
            bytes: UnsafeRawBufferPointer(rebasing: message[0..<n]), opcode: profile.isBinary ? .binary : .text,
            startFrame: chunk.startFrame, frames: chunk.frames, paddedFrames: chunk.paddedFrames)
    }
}
