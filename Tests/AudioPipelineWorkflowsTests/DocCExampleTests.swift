import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation
import Testing

/// The code of the DocC article `SessionSimulatorInATest`
/// (Sources/AudioPipelineWorkflows/AudioPipelineWorkflows.docc): each region between
/// `// docc-begin:` and `// docc-end` is one of the article's listings, word for word
/// (`DocCArticleTests` checks that).
@Suite struct SessionSimulatorInATestArticle {
    /// A voiced signal (harmonics of `f0`, a 4 Hz syllable envelope) from `start` to `end` seconds in
    /// a track of `seconds` at `rate`.
    static func voice(f0: Double, start: Double, end: Double, seconds: Double, rate: Int) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { k in
            let t = Double(k) / Double(rate)
            guard t >= start && t < end else { return 0 }
            var v = 0.0
            for h in 1...6 { v += sin(2 * Double.pi * f0 * Double(h) * t) / Double(h) }
            return Float(v * (0.6 + 0.4 * sin(2 * Double.pi * 4 * t))) * 0.2
        }
    }

    @Test func bargeInIsFastAndNeverFalse() throws {
        func agentVoice(seconds: Double, rate: Int) -> [Float] {
            Self.voice(f0: 110, start: 0.2, end: 3.2, seconds: seconds, rate: rate)
        }
        func userVoice(from start: Double, to end: Double, seconds: Double, rate: Int) -> [Float] {
            Self.voice(f0: 210, start: start, end: end, seconds: seconds, rate: rate)
        }
        // docc-begin: session-configuration
        var configuration = SessionConfiguration()
        configuration.agent = "in-memory"
        configuration.deviceRate = 24_000
        configuration.echo.gainDb = -6
        configuration.echo.delayMs = 120
        configuration.network = NetworkConditions(delayMs: 40, jitterMs: 10)
        configuration.vad.hangoverMilliseconds = 150
        // docc-end
        // docc-begin: session-tracks
        let rate = configuration.deviceRate
        let agent = SessionAgent.fromAudio(agentVoice(seconds: 6, rate: rate), rate: rate, configuration: configuration)
        let tracks = SessionTracks(
            deviceRate: rate, agent: agent,
            user: userVoice(from: 1.5, to: 2.5, seconds: 6, rate: rate),
            userSpeech: [SpeechSegment(start: 1.5, end: 2.5)])
        // docc-end
        // docc-begin: session-run
        let report = try SessionSimulator(configuration: configuration).run(tracks, outputDirectory: nil)

        #expect(report.missedBargeIns == 0)
        #expect(report.falseBargeIns == 0)
        let latency = try #require(report.bargeIns.first?.latencyMs)
        #expect(latency < 300, "barge-in took \(latency) ms")
        // docc-end
        #expect(report.bargeIns.count == 1)
    }
}
