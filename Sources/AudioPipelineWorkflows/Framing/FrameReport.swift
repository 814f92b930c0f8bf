import Foundation

/// What framing produced; `frame --json` prints it.
public struct FrameReport: WorkflowReport, Codable, Hashable {
    /// The wire profile's name.
    public var profile: String
    /// The client rate the audio was framed at, Hz.
    public var rate: Int
    /// Audio messages written.
    public var audioMessages: Int
    /// Control messages written (start, stop, commit).
    public var controlMessages: Int
    /// Audio framed, s.
    public var audioSeconds: Double
    /// PCM bytes in the audio messages.
    public var pcmBytes: Int
    /// Bytes of all messages as sent (JSON text, or binary payloads), without line breaks or prefixes.
    public var wireBytes: Int
    /// Wire bytes of the audio messages per PCM byte (4/3 for base64, plus the JSON around it).
    public var overhead: Double
    /// Float samples outside [−1, 1] saturated when quantising to PCM16.
    public var clippedSamples: Int
    /// What was wrong with the input but did not stop the job (a truncated file).
    public var warnings: [String] = []
}

extension FrameReport {
    /// The human summary `audiopipe` prints.
    public var text: String {
        String(
            format:
                "%@: %d audio messages (+%d control), %.3f s of audio at %d Hz; %d PCM bytes -> %d bytes on the wire "
                + "(%.3fx: base64/JSON overhead)",
            profile, audioMessages, controlMessages, audioSeconds, rate, pcmBytes, wireBytes, overhead)
    }
}
