import Foundation
import Testing
import _AudioPipelineTestSupport

/// `session simulate`'s modes and the options each would leave unused: refused, naming the option
/// (exit code 64, nothing written), or — the echo, noise and jitter given with `--rooms` — fixed in
/// every room, as `--room NAME=VALUE` fixes one. Before, `--scenarios DIR --config tuned.json` ran
/// the files' own settings and said nothing, and `--rooms 40 --echo-gain-db -6` drew the gain anyway.
@Suite struct SessionCommandOptions {
    static let agent = root + "/samples/agent-reply-24k-pcm16.wav"

    static func column(_ csv: String, _ name: String) throws -> [String] {
        let lines = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let index = try #require(lines.first?.firstIndex { $0 == name }, "\(name) in rooms.csv")
        return lines.dropFirst().map { String($0[index]) }
    }

    @Test func optionsAModeWouldNotUseAreRefused() throws {
        let s = Scratch()
        let drawn = try CLI.run(["session", "simulate", "--agent", Self.agent, "--rooms", "1", "-o", s.file("r")])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        try #"{"enter_db": 12}"#.write(toFile: s.file("tuned.json"), atomically: true, encoding: .utf8)
        let scenarios = ["--scenarios", s.file("r/rooms")]
        let rooms = ["--agent", Self.agent, "--rooms", "2"]
        let sweep = ["--agent", Self.agent, "--sweep"]
        let cases: [([String], String)] = [
            (scenarios + ["--config", s.file("tuned.json")], "from its scenario files; drop --config"),
            (scenarios + ["--enter-db", "14"], "drop --enter-db"),
            (scenarios + ["--param", "echo_rt60_ms=800"], "drop --param echo_rt60_ms"),
            (scenarios + ["--tick-ms", "20"], "drop --tick-ms"),
            (scenarios + ["--profile", "gemini-live"], "drop --profile"),
            (scenarios + ["--echo-gain-db", "-6"], "drop --echo-gain-db"),
            (scenarios + ["--room-seed", "3"], "drop --room-seed"),
            (["--agent", Self.agent, "--room-seed", "3"], "--room-seed seeds the rooms --rooms draws"),
            (rooms + ["--seed", "3"], "seeds each room from --room-seed"),
            (["--agent", Self.agent, "--no-echo", "--echo-gain-db", "-5"], "--no-echo leaves no echo path"),
            (rooms + ["--echo-ir", Self.agent], "--echo-ir gives one"),
            (rooms + ["--echo-gain-db", "-6", "--room", "echo_gain_db=-10:0"], "--echo-gain-db fixes echo_gain_db"),
            (rooms + ["--network", "jitter=5", "--room", "jitter_ms=0:9"], "--network's jitter= fixes jitter_ms"),
            (sweep + ["enter_db=8,10", "--enter-db", "9"], "varies what --enter-db sets"),
            (sweep + ["enter_db=8,10", "--param", "enter_db=9"], "varies what --param enter_db sets"),
            (sweep + ["echo_gain_db=-6,0", "--echo-gain-db", "-3"], "varies what --echo-gain-db sets"),
            (sweep + ["jitter_ms=0,10", "--network", "delay=60,jitter=5"], "drop --network's jitter="),
        ]
        for (extra, says) in cases {
            let r = try CLI.run(["session", "simulate"] + extra + ["-o", s.file("bad")])
            #expect(r.status == 64 && r.stderr.contains(says), "\(extra): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: s.file("bad")))
        // What the mode does use is taken: a sweep of the jitter with a --network that names only its delay.
        let kept = try CLI.run(
            ["session", "simulate"] + sweep + ["jitter_ms=0,10", "--network", "delay=60", "-o", s.file("sw")])
        #expect(kept.status == 0, "\(kept.stderr)")
    }

    @Test func withRoomsAGivenEchoNoiseOrJitterIsFixedInEveryRoom() throws {
        let s = Scratch()
        let fixed = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--rooms", "3", "--room-seed", "7", "--echo-gain-db", "-6",
            "--noise-dbfs", "-50", "--network", "delay=60,jitter=5", "-o", s.file("a"),
        ])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        let a = try String(contentsOfFile: s.file("a/rooms.csv"), encoding: .utf8)
        #expect(try Self.column(a, "echo_gain_db") == ["-6", "-6", "-6"])
        #expect(try Self.column(a, "noise_dbfs") == ["-50", "-50", "-50"])
        #expect(try Self.column(a, "jitter_ms") == ["5", "5", "5"])
        let delays = try Self.column(a, "echo_delay_ms").compactMap(Double.init)
        #expect(delays.count == 3 && Set(delays).count == 3 && delays.allSatisfy { (0...300).contains($0) })
        // A --network that names no jitter leaves the rooms to draw it.
        let drawn = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--rooms", "3", "--room-seed", "7", "--network",
            "delay=60", "-o", s.file("b"),
        ])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        let jitter = try Self.column(String(contentsOfFile: s.file("b/rooms.csv"), encoding: .utf8), "jitter_ms")
        #expect(Set(jitter).count == 3, "\(jitter)")
    }
}
