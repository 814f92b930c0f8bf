import AudioPipelineCore
import Foundation

/// What a captured session held; `deframe --json` prints it.
public struct DeframeReport: WorkflowReport, Codable, Hashable {
    /// Audio seconds of one response (utterance), in order of first appearance.
    public struct Utterance: Codable, Sendable, Hashable {
        /// The utterance's id (the API's, or its index).
        public var id: String
        /// Its audio, s.
        public var seconds: Double
    }

    /// The wire profile's name (given or detected).
    public var profile = ""
    /// `server` or `client`.
    public var direction = WireDirection.server.rawValue
    /// The audio's rate, Hz.
    public var rate = 0
    /// Messages read.
    public var messages = 0
    /// Of them, audio messages of the direction.
    public var audioMessages = 0
    /// Their audio, s.
    public var audioSeconds = 0.0
    /// Interruptions the server reported.
    public var interruptions = 0
    /// Turn ends the server reported.
    public var turnEnds = 0
    /// Commits the client sent.
    public var commits = 0
    /// Error messages the server sent, their text.
    public var errors: [String] = []
    /// Other control messages, counted by type.
    public var controls: [String: Int] = [:]
    /// Message types the profile does not know (skipped and counted).
    public var unknownTypes: [String: Int] = [:]
    /// Messages skipped with `--lenient`, with the reason.
    public var skipped: [String] = []
    /// Messages of the other direction (skipped).
    public var otherDirection = 0
    /// Times the audio of a response arrived later than real-time playback of it would need it (a
    /// stall a player without a buffer would hear), and their total length; timed captures only.
    public var stalls = 0
    /// The stalls' total length, ms.
    public var stallMs = 0.0
    /// Each response's audio, in order.
    public var utterances: [Utterance] = []

    /// An empty report, filled as the walk goes.
    public init() {}
}

extension DeframeReport {
    /// The human summary `audiopipe` prints.
    public func text(output: String) -> String {
        var s = String(
            format: "%@ (%@ audio): %d messages, %d with audio: %.3f s at %d Hz -> %@\n", profile, direction, messages,
            audioMessages, audioSeconds, rate, output)
        s += "  interruptions \(interruptions), turn ends \(turnEnds), commits \(commits), errors \(errors.count)\n"
        for e in errors.prefix(5) { s += "    error: \(e)\n" }
        if !unknownTypes.isEmpty {
            s +=
                "  unknown message types (skipped): "
                + unknownTypes.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
                + "\n"
        }
        if !skipped.isEmpty { s += "  skipped (--lenient): \(skipped.count); first: \(skipped[0])\n" }
        if stalls > 0 {
            s += String(
                format: "  stalls (audio later than real-time playback needed it): %d, %.0f ms in all\n", stalls,
                stallMs)
        }
        for u in utterances.prefix(20) { s += String(format: "  response %@: %.3f s\n", u.id, u.seconds) }
        return String(s.dropLast())
    }
}
