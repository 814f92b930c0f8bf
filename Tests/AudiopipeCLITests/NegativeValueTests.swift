import Foundation
import Testing
import _AudioPipelineTestSupport

/// Values as people type them: a dB or dBFS value after a space, with its minus
/// (`--echo-gain-db -6`), is the option's value, not an unknown option ("Missing value").
@Suite struct NegativeValues {
    static let agent = root + "/samples/scenario/agent-24k.wav"
    static let mic = root + "/samples/mic-16k-pcm16-mono.wav"

    @Test func sessionOptionsTakeNegativeValuesAfterASpace() throws {
        let s = Scratch()
        let r = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--echo-gain-db", "-6", "--noise-dbfs", "-60",
            "--absolute-dbfs", "-65", "-o", s.file("sim"), "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let c = try #require(o["configuration"] as? [String: Any])
        #expect((c["echo"] as? [String: Any])?["gainDb"] as? Double == -6)
        #expect(c["noiseDbfs"] as? Double == -60)
        #expect((c["vad"] as? [String: Any])?["absolute_dbfs"] as? Double == -65)
    }

    @Test func vadOptionsTakeNegativeValuesAndRangesStillNameTheOption() throws {
        let s = Scratch()
        let ok = try CLI.run([
            "vad", "detect", Self.mic, "--absolute-dbfs", "-50", "--exit-db", "-3", "-o", s.file("a.txt"),
        ])
        #expect(ok.status == 0, "\(ok.stderr)")
        // A negative value out of range is refused by the range check, naming the parameter.
        let bad = try CLI.run(["vad", "detect", Self.mic, "--enter-db", "-30", "-o", s.file("b.txt")])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("enter_db"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("Missing value"))
    }

    @Test func aValueThatIsAnOptionIsNamedAsTheBadValue() throws {
        let r = try CLI.run(["session", "simulate", "--agent", Self.agent, "--echo-gain-db", "--json", "-o", "x"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("'--json' is invalid for '--echo-gain-db"), "\(r.stderr)")
    }
}
