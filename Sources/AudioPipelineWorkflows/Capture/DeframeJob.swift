import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// Turns a captured session's audio (one direction) back into a mono PCM16 WAV at the profile's rate,
/// and optionally its arrival timeline as a jitter-kit trace.
public enum Deframer {
    /// Longest JSON Lines line accepted (a 50 MB line is refused, with its line number).
    public static let maximumLineBytes = CaptureReader.maximumLineBytes

    /// The audio's container, by the output's name: .flac, .raw (.pcm, .s16), else WAV — for `-` or
    /// a name without an extension too; any other extension is refused (it would be WAV misnamed).
    static func outputType(_ output: String) throws(AudioPipelineError) -> OutputFileType {
        if let type = OutputFileType(pathExtension: output) { return type }
        guard output == "-" || fileExtension(output).isEmpty else {
            throw AudioPipelineError(
                .invalidConfiguration, "\(output): deframe writes .wav, .flac or .raw audio; name the output so")
        }
        return .wav
    }

    /// Writes the audio of one direction of the captured session `input` to `output` (atomically).
    /// - Throws: `AudioPipelineError` naming the file, message or option at fault.
    public static func deframe(input: String, output: String, options: DeframeOptions) throws(AudioPipelineError)
        -> DeframeReport
    {
        try SamePathGuard.refuse(inputs: [input], options: [("-o", output), ("--trace", options.tracePath)])
        let type = try Self.outputType(output)
        var writer: AudioOutput?
        var trace: ByteOutput?
        var seq = 0
        let walk = SessionWalk(input: input, options: options, needsTimes: options.tracePath != nil)
        let report = try walk.run { (event) throws(AudioPipelineError) in
            guard case .audio(let samples, let rate, let time, let utterance, let mediaMs) = event else { return }
            if writer == nil {
                let format = try StreamFormat(sampleRate: try SampleRate(rate), channels: 1)
                writer = try AudioOutput(path: output, type: type, encoding: .pcm16, format: format)
                if let path = options.tracePath {
                    trace = try ByteOutput(path: path)
                    try trace!.write(ArrivalTrace.header)
                }
            }
            try samples.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try writer!.write(p) }
            if let trace, let t = time {
                let durationMs = Double(samples.count) * 1000 / Double(rate)
                try trace.write(
                    String(format: "%d,%.3f,%.3f,%.3f,%.3f,%d\n", seq, t, t, durationMs, mediaMs, utterance))
            }
            seq += 1
        }
        guard let writer else {
            throw AudioPipelineError(
                .invalidData,
                "\(input): no \(options.direction.rawValue) audio messages for profile \(report.profile) "
                    + "(\(report.messages) messages read)" + otherDirectionHint(input, options))
        }
        // Both outputs' contents first, then both put in place: a full disk under either leaves neither.
        do {
            try trace?.flush()
            try writer.finishContents()
        } catch {
            trace?.output.discard()
            writer.output.discard()
            throw error
        }
        try writer.commit()
        try trace?.commit()
        return report
    }

    /// When a capture has no audio in the direction asked for but has some in the other (`frame`
    /// writes the client's side; deframe decodes the server's by default), the option that reads it.
    /// Only for a file that can be read again (not standard input or a pipe).
    static func otherDirectionHint(_ input: String, _ options: DeframeOptions) -> String {
        guard input != "-", PathParts.isRegularFile(input) else { return "" }
        var other = options
        other.direction = options.direction == .server ? .client : .server
        other.tracePath = nil
        other.lenient = true
        var found = 0
        let walk = SessionWalk(input: input, options: other, needsTimes: false)
        guard (try? walk.run({ if case .audio = $0 { found += 1 } })) != nil, found > 0 else { return "" }
        let side = other.direction == .client ? "the client's, the mic" : "the server's, the agent"
        return "; it holds \(found) \(other.direction.rawValue) audio messages (\(side)): give --direction "
            + other.direction.rawValue
    }
}
