import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// What `audiopipe frame` should produce.
public struct FrameOptions: Sendable {
    /// The API whose client messages to write.
    public var profile: WireProfile
    /// Audio per message, ms.
    public var chunkMilliseconds: Double = 20
    /// What happens to a last, incomplete chunk.
    public var lastChunk: Chunker<Int16>.LastChunk = .emitShort
    /// PCM conventions (`ios` reproduces the common iOS client code).
    public var compatibility: PCMCompatibility = .standard
    /// The resampler to the profile's client rate.
    public var resampler: ResamplerChoice = .default
    /// Append the profile's commit message after the audio.
    public var commit = false
    /// Put the profile's start/stop control messages around the audio.
    public var control = false
    /// A truncated input is an error instead of a warning.
    public var strict = false

    /// Options for `profile`; the rest at `frame`'s defaults.
    /// - Throws: as `validate` (a batch's run refused each file in turn).
    public init(
        profile: WireProfile, chunkMilliseconds: Double = 20, lastChunk: Chunker<Int16>.LastChunk = .emitShort,
        compatibility: PCMCompatibility = .standard, resampler: ResamplerChoice = .default, commit: Bool = false,
        control: Bool = false, strict: Bool = false
    ) throws(AudioPipelineError) {
        self.profile = profile
        self.chunkMilliseconds = chunkMilliseconds
        self.lastChunk = lastChunk
        self.compatibility = compatibility
        self.resampler = resampler
        self.commit = commit
        self.control = control
        self.strict = strict
        try validate()
    }

    /// Refuses the messages `profile` does not have: `commit` without a commit message, `control`
    /// without a start or stop message — before any input is read.
    /// - Throws: a usage error (exit code 64) naming the option to drop.
    public func validate() throws(AudioPipelineError) {
        if control && profile.startMessage == nil && profile.stopMessage == nil {
            throw AudioPipelineError(
                .invalidConfiguration, "\(profile.name) has no start or stop message; drop --control")
        }
        if commit && profile.commitMessage == nil {
            throw AudioPipelineError(.invalidConfiguration, "\(profile.name) has no commit message; drop --commit")
        }
    }
}

/// Turns an audio file into exactly the messages a client of `profile` sends, through the core's
/// `CapturePath` (the same object an app's microphone path uses): converted to the profile's rate,
/// mono PCM16; cut into chunks; each chunk framed byte for byte.
///
/// Output: JSON Lines, one WebSocket text message per line. For binary profiles (Deepgram), the
/// length-prefixed stream of `WireMessageStream` (per message a 4-byte little-endian length, a
/// 1-byte WebSocket opcode, the payload) — `Deframer` reads it back.
public enum Framer {
    /// Frames `input` (`-`: standard input; `raw` for headerless audio) into `output` (`-`: standard
    /// output), atomically.
    /// - Throws: `AudioPipelineError` naming the file or option at fault.
    public static func frame(
        input: String, raw: RawFormat? = nil, output: String, options: FrameOptions,
        progress: ProgressHandler = { _ in }
    ) throws(AudioPipelineError) -> FrameReport {
        try SamePathGuard.refuse(input: input, output: output)
        try options.validate()  // (its fields may have changed since it was made)
        let p = options.profile
        let reader = try AudioFileReader(path: input, raw: raw)
        let channels: FormatConverter.ChannelPlan = reader.format.channels == 1 ? .keep : .downmix
        let path = try CapturePath(
            profile: p,
            configuration: .init(
                device: reader.format, channels: channels, chunkMilliseconds: options.chunkMilliseconds,
                lastChunk: options.lastChunk, compatibility: options.compatibility),
            resampler: { (f) throws(AudioPipelineError) in try options.resampler.make(f, mode: .throughput) })
        let writer = try MessageWriter(output: output, options: options, messageLength: path.maximumMessageLength)
        try FileBlocks.read(reader, progress: progress) { (block) throws(AudioPipelineError) in
            switch block {
            case .pcm16(let b):
                try path.process(b, into: writer.message) { (m) throws(AudioPipelineError) in try writer.audio(m) }
            case .float32(let b):
                try path.process(b, into: writer.message) { (m) throws(AudioPipelineError) in try writer.audio(m) }
            }
        }
        try path.finish(into: writer.message) { (m) throws(AudioPipelineError) in try writer.audio(m) }
        let warnings = try InputCheck.all(reader, strict: options.strict)
        try writer.finish(rate: p.clientRate)
        return FrameReport(
            profile: p.name, rate: p.clientRate, audioMessages: writer.audioMessages,
            controlMessages: writer.controlMessages,
            audioSeconds: Double(writer.frames) / Double(p.clientRate), pcmBytes: writer.pcmBytes,
            wireBytes: writer.wireBytes,
            overhead: writer.pcmBytes > 0 ? Double(writer.audioWireBytes) / Double(writer.pcmBytes) : 0,
            clippedSamples: path.converter.clippedCount, warnings: warnings)
    }
}

/// Writes the messages (JSON Lines, or the binary message stream) and the control messages asked for.
final class MessageWriter {
    let options: FrameOptions
    let out: ByteOutput
    /// The buffer `CapturePath` frames each message into.
    let message: UnsafeMutableRawBufferPointer
    private var header = [UInt8](repeating: 0, count: WireMessageStream.headerLength)
    var audioMessages = 0, controlMessages = 0, wireBytes = 0, audioWireBytes = 0, pcmBytes = 0, frames = 0

    init(output: String, options: FrameOptions, messageLength: Int) throws(AudioPipelineError) {
        self.options = options
        message = .allocate(byteCount: messageLength, alignment: 16)
        out = try ByteOutput(path: output)
        if options.control, let start = options.profile.startMessage { try text(start) }
    }

    deinit { message.deallocate() }

    func audio(_ m: CapturePath.Message) throws(AudioPipelineError) {
        try emit(m.bytes, opcode: m.opcode)
        audioMessages += 1
        audioWireBytes += m.bytes.count
        pcmBytes += 2 * m.frames + 2 * m.paddedFrames
        frames += m.frames
    }

    /// The commit and stop messages; then the output is put in place.
    func finish(rate: Int) throws(AudioPipelineError) {
        if options.commit, let commit = options.profile.commitMessage {
            let ms = Double(frames) * 1000 / Double(rate)
            if let min = options.profile.minimumCommitMilliseconds, ms < min {
                throw AudioPipelineError(
                    .invalidData,
                    "\(options.profile.name) rejects a commit of \(String(format: "%.1f", ms)) ms of audio "
                        + "(under \(Int(min)) ms); the input is too short")
            }
            try text(commit)
        }
        if options.control, let stop = options.profile.stopMessage { try text(stop) }
        try out.commit()
    }

    private func text(_ s: String) throws(AudioPipelineError) {
        try Array(s.utf8).withUnsafeBufferPointer { (b) throws(AudioPipelineError) in
            try emit(UnsafeRawBufferPointer(b), opcode: .text)
        }
        controlMessages += 1
    }

    private func emit(_ payload: UnsafeRawBufferPointer, opcode: WireOpcode) throws(AudioPipelineError) {
        wireBytes += payload.count
        if options.profile.isBinary {
            let h = header.withUnsafeMutableBytes {
                WireMessageStream.writeHeader(opcode: opcode, payloadLength: payload.count, into: $0)
            }
            try out.write(header[0..<h])
            try out.write(payload)
        } else {
            try out.write(payload)
            try out.write("\n")
        }
    }
}

/// Reads a file to its end in blocks: PCM16 files as integers (so a PCM convention applies
/// exactly), anything else as Float32. Buffers are allocated once.
enum FileBlocks {
    enum Block {
        case pcm16(UnsafeBufferPointer<Int16>)
        case float32(UnsafeBufferPointer<Float>)
    }

    static func read(
        _ reader: AudioFileReader, blockFrames: Int = 4096, progress: ProgressHandler,
        _ body: (Block) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) {
        let samples = blockFrames * reader.format.channels
        let total = reader.description.frames, rate = reader.format.sampleRate.hz
        var pcm = [Int16](repeating: 0, count: reader.description.isPCM16 ? samples : 0)
        var float = [Float](repeating: 0, count: reader.description.isPCM16 ? 0 : samples)
        while true {
            let got: Int
            if reader.description.isPCM16 {
                got = try pcm.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in
                    try reader.read(into: p)
                }
                if got == 0 { break }
                let n = got * reader.format.channels
                try pcm.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in
                    try body(.pcm16(UnsafeBufferPointer(rebasing: p[0..<n])))
                }
            } else {
                got = try float.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in
                    try reader.read(into: p)
                }
                if got == 0 { break }
                let n = got * reader.format.channels
                try float.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in
                    try body(.float32(UnsafeBufferPointer(rebasing: p[0..<n])))
                }
            }
            progress(JobProgress(done: reader.framesRead, total: total, unit: .frames(rate: rate)))
        }
    }
}
