import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineWorkflows

/// `vad tune`'s barge-in figures are the session simulator's: replaying the detector's decisions
/// against the reference gives the simulator's user onsets, misses, latencies and false barge-ins
/// (recorded mode at a profile whose rate is the recording's, so both run the detector on the same
/// samples), under any barge-in policy.
@Suite struct VADBargeInReplayTests {
    /// The sample barge-in item (16 kHz, a reference, labels) and, where the VAD kit is beside the
    /// repository, its dev barge-in items.
    static func items() -> [(mic: String, reference: String, labels: String)] {
        var out = [(samples + "vad/bargein.wav", samples + "vad/bargein.ref.wav", samples + "vad/bargein.txt")]
        let kit = repositoryRoot + "/../shared/eval/vad/dev/"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: kit)) ?? []
        for n in names.sorted() where n.hasSuffix(".ref.wav") {
            let stem = String(n.dropLast(".ref.wav".count))
            out.append((kit + stem + ".wav", kit + n, kit + stem + ".txt"))
        }
        return out
    }

    static let policies = [
        BargeInPolicy(), BargeInPolicy(minimumSpeechMs: 80, ignoreFirstMs: 0),
        BargeInPolicy(minimumSpeechMs: 40, ignoreFirstMs: 600),
    ]

    @Test(arguments: policies)
    func theReplayCountsWhatTheSimulatorCounts(policy: BargeInPolicy) throws {
        var compared = 0
        var onsets = 0
        var interrupts = 0
        for item in Self.items() {
            var c = SessionConfiguration()
            c.profile = "deepgram"  // 16 kHz: the detector sees the recording's own samples
            c.recorded = item.mic
            c.reference = item.reference
            c.userLabels = item.labels
            c.policy = policy
            let simulator = try SessionSimulator(configuration: c)
            guard simulator.profile.clientRate == (try AudioLoader.mono(path: item.mic)).rate else { continue }
            let report = try simulator.run(outputDirectory: nil)

            let dir = TempDir()
            for (path, name) in [(item.mic, "x.wav"), (item.reference, "x.ref.wav"), (item.labels, "x.txt")] {
                try FileManager.default.createSymbolicLink(atPath: dir.file(name), withDestinationPath: path)
            }
            let corpus = try VADCorpus(
                audioDirectory: dir.path, labelDirectory: dir.path, references: try ReferenceNaming(),
                frameMilliseconds: [c.vad.frameMilliseconds])
            let x = try #require(corpus.items.first)
            let run = try corpus.run(x, configuration: c.vad)
            let replay = VADBargeInReplay.counts(
                frames: run.frames, frameSeconds: run.frameSeconds, frameMilliseconds: c.vad.frameMilliseconds,
                playout: try #require(x.playout), user: x.labels, policy: policy)

            let name = (item.mic as NSString).lastPathComponent
            #expect(replay.onsets == report.bargeIns.count, "\(name)")
            #expect(replay.missed == report.missedBargeIns, "\(name)")
            #expect(replay.falseBargeIns == report.falseBargeIns, "\(name)")
            #expect(abs(replay.agentOnlyMinutes - report.agentOnlyMinutes) < 1e-9, "\(name)")
            let simulated = report.bargeIns.compactMap(\.latencyMs)
            #expect(replay.latenciesMs.count == simulated.count, "\(name)")
            for (a, b) in zip(replay.latenciesMs, simulated) { #expect(abs(a - b) < 1e-6, "\(name)") }
            compared += 1
            onsets += report.bargeIns.count
            interrupts += report.interrupts.count
        }
        // Not vacuous: items were compared, with user onsets in agent playout and barge-ins.
        #expect(compared >= 1 && onsets >= 1 && interrupts >= 1)
    }
}
