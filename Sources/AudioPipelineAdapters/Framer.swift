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

    public init(profile: WireProfile) { self.profile = profile }
}

public struct FrameReport: Sendable {
    public let profile: String
    public let rate: Int
    public let audioMessages: Int
    public let controlMessages: Int
    public let audioFrames: Int
    public let pcmBytes: Int
    /// Bytes of all messages as sent (JSON text, or binary payloads), without line breaks/prefixes.
    public let wireBytes: Int
    public let clippedSamples: Int
    public var audioSeconds: Double { Double(audioFrames) / Double(rate) }
    /// Wire bytes per PCM byte of the audio messages (4/3 for base64, plus the JSON around it).
    public let overhead: Double
}

/// Turns an audio file into exactly the messages a client of `profile` sends: converted to the
/// profile's rate, mono PCM16; cut into chunks; each chunk framed byte for byte.
///
/// Output: JSON Lines, one WebSocket text message per line. For binary profiles (Deepgram), a
/// length-prefixed stream: per message a 4-byte little-endian length, a 1-byte WebSocket opcode
/// (1 text, 2 binary), then the payload — `audiopipe deframe` reads it back.
public enum Framer {
    public static func frame(
        input: String, raw: RawFormat? = nil, output: String, options: FrameOptions, progress: (Int) -> Void = { _ in }
    ) throws(AudioPipelineError) -> FrameReport {
        try FileConverter.refuseSamePath(input, output)
        let p = options.profile
        var convert = ConvertOptions()
        convert.sampleRate = try SampleRate(p.clientRate)
        convert.channels = 1
        convert.encoding = .pcm16
        convert.compatibility = options.compatibility
        convert.resampler = options.resampler
        var sink: FramingSink?
        let report = try FileConverter.convert(input: input, raw: raw, options: convert, progress: progress) { (format) throws(AudioPipelineError) in
            let s = try FramingSink(output: output, options: options, rate: format.sampleRate)
            sink = s
            return s
        }
        let s = sink!
        let audioPCM = s.pcmBytes
        return FrameReport(
            profile: p.name, rate: p.clientRate, audioMessages: s.audioMessages, controlMessages: s.controlMessages,
            audioFrames: report.framesOut, pcmBytes: audioPCM, wireBytes: s.wireBytes, clippedSamples: report.clippedSamples,
            overhead: audioPCM > 0 ? Double(s.audioWireBytes) / Double(audioPCM) : 0)
    }
}

final class FramingSink: ConvertedAudioSink {
    let options: FrameOptions
    let out: AtomicOutputFile
    var chunker: Chunker<Int16>
    var message: [UInt8]
    let rate: SampleRate
    var audioMessages = 0, controlMessages = 0, wireBytes = 0, audioWireBytes = 0, pcmBytes = 0, frames = 0

    init(output: String, options: FrameOptions, rate: SampleRate) throws(AudioPipelineError) {
        self.options = options
        self.rate = rate
        let chunkFrames = rate.frames(milliseconds: options.chunkMilliseconds)
        guard chunkFrames >= 1 else {
            throw AudioPipelineError(.invalidConfiguration, "--chunk-ms \(options.chunkMilliseconds) is less than one sample at \(rate.hz) Hz")
        }
        chunker = try Chunker(chunkFrames: chunkFrames, channels: 1, lastChunk: options.lastChunk)
        message = [UInt8](repeating: 0, count: options.profile.messageLength(pcmBytes: chunkFrames * 2))
        out = try AtomicOutputFile(path: output)
        if options.control, let start = options.profile.startMessage { try emitText(start) }
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioPipelineError) {
        do {
            try chunker.push(samples) { chunk in try self.emitAudio(chunk) }
        } catch let e as AudioPipelineError {
            throw e
        } catch {
            throw AudioPipelineError(.ioFailure, "\(out.path): \(error)")
        }
    }

    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioPipelineError) {
        throw AudioPipelineError(.invalidConfiguration, "framing takes PCM16")
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

    func commit() throws(AudioPipelineError) {
        do {
            try chunker.finish { chunk in try self.emitAudio(chunk) }
        } catch let e as AudioPipelineError {
            throw e
        } catch {
            throw AudioPipelineError(.ioFailure, "\(out.path): \(error)")
        }
        if options.commit {
            guard let commit = options.profile.commitMessage else {
                throw AudioPipelineError(.invalidConfiguration, "\(options.profile.name) has no commit message; drop --commit")
            }
            let ms = Double(frames) * 1000 / Double(rate.hz)
            if let min = options.profile.minimumCommitMilliseconds, ms < min {
                throw AudioPipelineError(
                    .invalidData, "\(options.profile.name) rejects a commit of \(String(format: "%.1f", ms)) ms of audio (under \(Int(min)) ms); the input is too short")
            }
            try emitText(commit)
        }
        if options.control, let stop = options.profile.stopMessage { try emitText(stop) }
        try out.commit()
    }
}
