import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// What `audiopipe frame` should produce.
public struct FrameOptions: Sendable {
    public var profile: WireProfile
    public var chunkMilliseconds: Double = 20
    public var lastChunk: Chunker<Int16>.LastChunk = .emitShort
    public var compatibility: PCMCompatibility = .standard
    public var resampler: ResamplerChoice = .default
    /// Append the profile's commit message after the audio.
    public var commit = false
    /// Put the profile's start/stop control messages around the audio.
    public var control = false
    /// A truncated input is an error instead of a warning.
    public var strict = false

    public init(profile: WireProfile) { self.profile = profile }
}

/// Turns an audio file into exactly the messages a client of `profile` sends: converted to the
/// profile's rate, mono PCM16; cut into chunks; each chunk framed byte for byte.
///
/// Output: JSON Lines, one WebSocket text message per line. For binary profiles (Deepgram), a
/// length-prefixed stream: per message a 4-byte little-endian length, a 1-byte WebSocket opcode
/// (1 text, 2 binary), then the payload — `Deframer` reads it back.
public enum Framer {
    public static func frame(
        input: String, raw: RawFormat? = nil, output: String, options: FrameOptions,
        progress: ProgressHandler = { _ in }
    ) throws(AudioPipelineError) -> FrameReport {
        try SamePathGuard.refuse(input: input, output: output)
        let p = options.profile
        let reader = try AudioFileReader(path: input, raw: raw)
        var convert = ConvertOptions()
        convert.sampleRate = try SampleRate(p.clientRate)
        convert.channels = 1
        convert.encoding = .pcm16
        convert.compatibility = options.compatibility
        convert.resampler = options.resampler
        let chain = try ConversionChain(input: reader.description, name: reader.displayName, options: convert)
        let writer = try MessageWriter(output: output, options: options, rate: chain.outputFormat.sampleRate)
        _ = try chain.run(reader: reader, blockFrames: convert.blockFrames, progress: progress) {
            (samples) throws(AudioPipelineError) in
            if case .pcm16(let pcm) = samples { try writer.write(pcm) }
        }
        let warnings = [try InputCheck.truncation(reader, strict: options.strict)].compactMap { $0 }
        try writer.finish()
        return FrameReport(
            profile: p.name, rate: p.clientRate, audioMessages: writer.audioMessages,
            controlMessages: writer.controlMessages,
            audioSeconds: Double(writer.frames) / Double(p.clientRate), pcmBytes: writer.pcmBytes,
            wireBytes: writer.wireBytes,
            overhead: writer.pcmBytes > 0 ? Double(writer.audioWireBytes) / Double(writer.pcmBytes) : 0,
            clippedSamples: chain.clippedSamples, warnings: warnings)
    }
}

/// Chunks PCM16 and writes one message per chunk, plus the control messages asked for.
final class MessageWriter {
    let options: FrameOptions
    let out: ByteOutput
    var chunker: Chunker<Int16>
    var message: [UInt8]
    let rate: SampleRate
    var audioMessages = 0, controlMessages = 0, wireBytes = 0, audioWireBytes = 0, pcmBytes = 0, frames = 0

    init(output: String, options: FrameOptions, rate: SampleRate) throws(AudioPipelineError) {
        self.options = options
        self.rate = rate
        let chunkFrames = rate.frames(milliseconds: options.chunkMilliseconds)
        guard chunkFrames >= 1 else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--chunk-ms \(options.chunkMilliseconds) is less than one sample at \(rate.hz) Hz")
        }
        chunker = try Chunker(chunkFrames: chunkFrames, channels: 1, lastChunk: options.lastChunk)
        message = [UInt8](repeating: 0, count: options.profile.messageLength(pcmBytes: chunkFrames * 2))
        out = try ByteOutput(path: output)
        if options.control, let start = options.profile.startMessage { try emitText(start) }
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioPipelineError) {
        do {
            try chunker.push(samples) { chunk in try emitAudio(chunk) }
        } catch {
            throw error as! AudioPipelineError  // TODO(core merge): Chunker with typed throws
        }
    }

    /// The last chunk, the commit and stop messages; then the output is put in place.
    func finish() throws(AudioPipelineError) {
        do {
            try chunker.finish { chunk in try emitAudio(chunk) }
        } catch {
            throw error as! AudioPipelineError  // TODO(core merge): Chunker with typed throws
        }
        if options.commit {
            guard let commit = options.profile.commitMessage else {
                throw AudioPipelineError(
                    .invalidConfiguration, "\(options.profile.name) has no commit message; drop --commit")
            }
            let ms = Double(frames) * 1000 / Double(rate.hz)
            if let min = options.profile.minimumCommitMilliseconds, ms < min {
                throw AudioPipelineError(
                    .invalidData,
                    "\(options.profile.name) rejects a commit of \(String(format: "%.1f", ms)) ms of audio "
                        + "(under \(Int(min)) ms); "
                        + "the input is too short")
            }
            try emitText(commit)
        }
        if options.control, let stop = options.profile.stopMessage { try emitText(stop) }
        try out.commit()
    }

    private func emitAudio(_ chunk: Chunker<Int16>.Chunk) throws(AudioPipelineError) {
        let pcm = UnsafeRawBufferPointer(chunk.samples)
        let n = message.withUnsafeMutableBytes { options.profile.frame(pcm, into: $0) }
        try emit(message[0..<n], binary: options.profile.isBinary)
        audioMessages += 1
        audioWireBytes += n
        pcmBytes += pcm.count
        frames += chunk.frames
    }

    private func emitText(_ text: String) throws(AudioPipelineError) {
        try emit(Array(text.utf8)[...], binary: false)
        controlMessages += 1
    }

    private func emit(_ payload: ArraySlice<UInt8>, binary: Bool) throws(AudioPipelineError) {
        wireBytes += payload.count
        if options.profile.isBinary {
            var header = [UInt8](repeating: 0, count: 5)
            let len = UInt32(payload.count).littleEndian
            withUnsafeBytes(of: len) { for k in 0..<4 { header[k] = $0[k] } }
            header[4] = binary ? 2 : 1
            try out.write(header[...])
            try out.write(payload)
        } else {
            try out.write(payload)
            try out.write("\n")
        }
    }
}
