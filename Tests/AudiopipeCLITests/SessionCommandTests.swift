import Foundation
import Testing
import _AudioPipelineTestSupport

/// `audiopipe session simulate` through the binary: the scenario in samples/, its outputs and the
/// page in a browser, recorded mode, sweeps, scenario folders, and bad input with its exit codes.
@Suite struct SessionCommand {
    static let agent = root + "/samples/scenario/agent-24k.wav"
    static let user = root + "/samples/scenario/user-16k.wav"

    static func report(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theSampleScenarioBargesInTwiceAndWritesEveryOutput() throws {
        let s = Scratch()
        let r = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--user", Self.user, "-o", s.file("sim"), "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let written = Set(try FileManager.default.contentsOfDirectory(atPath: s.file("sim")))
        #expect(s.contents == ["sim"])
        #expect(
            written == [
                "heard.wav", "mic.wav", "sent.jsonl", "events.jsonl", "report.json", "timeline.svg", "report.html",
                ".audiopipe-report",
            ])
        let o = try Self.report(r.stdout)
        let bargeIns = try #require(o["bargeIns"] as? [[String: Any]])
        // The user talks over responses 0 and 2 (3.0 s and 23.0 s) and answers in the pause after 1.
        #expect(bargeIns.map { $0["userOnsetS"] as? Double } == [3.0, 23.0])
        #expect(bargeIns.allSatisfy { ($0["latencyMs"] as? Double ?? 1e9) < 300 })
        #expect(o["missedBargeIns"] as? Int == 0 && o["falseBargeIns"] as? Int == 0)
        #expect(o["userSegments"] as? Int == 3 && o["responses"] as? Int == 3)
        // events.jsonl: one row per 10 ms tick; report.json is what --json printed.
        let events = try String(contentsOfFile: s.file("sim/events.jsonl"), encoding: .utf8).split(separator: "\n")
        let duration = try #require(o["durationS"] as? Double)
        #expect(abs(Double(events.count) - duration * 100) < 3)
        let file = try Self.report(try Data(contentsOf: URL(fileURLWithPath: s.file("sim/report.json"))))
        #expect(file["latencyMsP50"] as? Double == o["latencyMsP50"] as? Double)
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            "needs chromium (make test-deps installs it)"))
    func thePageRendersWithEveryLaneInABrowser() throws {
        let s = Scratch()
        #expect(
            try CLI.run(["session", "simulate", "--agent", Self.agent, "--user", Self.user, "-o", s.file("sim"), "-q"])
                .status == 0)
        // The page's script counts the timeline's lanes the browser laid out.
        let dom = try runTool(
            "/usr/bin/chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "--virtual-time-budget=3000",
                "file://" + s.file("sim/report.html"),
            ])
        #expect(dom.status == 0, "\(dom.err)")
        #expect(dom.out.contains("data-lanes-rendered=\"5\""), "lanes laid out: \(dom.out.suffix(300))")
        for lane in ["user speech", "agent playout", "echo / mic dBFS", "VAD score dB", "buffer ms"] {
            #expect(dom.out.contains("data-lane=\"\(lane)\""))
        }
        let png = s.file("timeline.png")
        let shot = try runTool(
            "/usr/bin/chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--screenshot=\(png)",
                "--window-size=1200,480", "file://" + s.file("sim/timeline.svg"),
            ])
        #expect(shot.status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]) && data.count > 20_000, "\(data.count) bytes")
    }

    @Test func recordedModeOnTheSampleBargeInRecording() throws {
        let s = Scratch()
        try "2.540000\t4.650000\tspeech\n".write(toFile: s.file("user.txt"), atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "session", "simulate", "--recorded", root + "/samples/bargein-mic-16k.wav", "--reference",
            root + "/samples/bargein-mic-16k.ref.wav", "--user-labels", s.file("user.txt"), "-o", s.file("sim"),
            "--profile", "datagrid", "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try Self.report(r.stdout)
        #expect(o["mode"] as? String == "recorded" && o["profile"] as? String == "datagrid")
        #expect(o["playout"] is NSNull, "no jitter buffer in recorded mode")
        // The user talks over the agent from 2.54 s: found, and the agent's echo alone never barges in.
        let bargeIns = try #require(o["bargeIns"] as? [[String: Any]])
        #expect(bargeIns.count == 1 && (bargeIns[0]["latencyMs"] as? Double ?? 1e9) < 300)
        #expect(o["falseBargeIns"] as? Int == 0)
    }

    @Test func aSweepGivesOneRowPerValueAndAPlot() throws {
        let s = Scratch()
        let r = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--user", Self.user, "-o", s.file("sw"), "--sweep",
            "echo_gain_db=-20,-10,0", "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let csv = try String(contentsOfFile: s.file("sw/sweep.csv"), encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 4 && csv[0].hasPrefix("echo_gain_db,") && csv[1].hasPrefix("-20,"))
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: s.file("sw")))
        #expect(names.isSuperset(of: ["sweep.csv", "sweep.json", "sweep.svg", "echo_gain_db=-20", "echo_gain_db=0"]))
        let bad = try CLI.run(["session", "simulate", "--agent", Self.agent, "-o", s.file("x"), "--sweep", "nope=1"])
        #expect(bad.status == 64 && bad.stderr.contains("unknown parameter 'nope'"), "\(bad.stderr)")
        // An output directory holding the user's own files is refused (a run replaces it whole).
        try FileManager.default.createDirectory(atPath: s.file("mine"), withIntermediateDirectories: true)
        try "keep".write(toFile: s.file("mine/keep.txt"), atomically: true, encoding: .utf8)
        for extra in [[], ["--sweep", "echo_gain_db=-20,0"]] {
            let r = try CLI.run(["session", "simulate", "--agent", Self.agent, "-o", s.file("mine")] + extra)
            #expect(r.status == 73 && r.stderr.contains("keep.txt"), "\(r.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: s.file("mine")) == ["keep.txt"])
        }
    }

    @Test func aFolderOfScenariosRunsIntoOneTableAndAFailureIsReported() throws {
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("sc"), withIntermediateDirectories: true)
        try #"{"agent": "\#(Self.agent)", "user": "\#(Self.user)"}"#.write(
            toFile: s.file("sc/quiet.json"), atomically: true, encoding: .utf8)
        try #"{"agent": "\#(Self.agent)", "user": "\#(Self.user)", "echo": {"gainDb": -3}}"#.write(
            toFile: s.file("sc/loud.json"), atomically: true, encoding: .utf8)
        try #"{"agent": "\#(Self.agent)", "echo": {"gain": 0}}"#.write(
            toFile: s.file("sc/typo.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["session", "simulate", "--scenarios", s.file("sc"), "-o", s.file("out"), "--jobs", "2"])
        #expect(r.status == 65, "the failed scenario's exit code")
        #expect(r.stderr.contains("typo.json") && r.stderr.contains("echo.gain"), "\(r.stderr)")
        let csv = try String(contentsOfFile: s.file("out/scenarios.csv"), encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 4 && csv[1].hasPrefix("loud,") && csv[2].hasPrefix("quiet,") && csv[3].hasPrefix("typo,"))
        #expect(FileManager.default.fileExists(atPath: s.file("out/quiet/report.html")))
    }

    @Test func badInputGetsItsExitCodeAndLeavesNothing() throws {
        let s = Scratch()
        try "0.5\t1.5\tspeech\n1.0\t2.0\tspeech\n".write(toFile: s.file("lab.txt"), atomically: true, encoding: .utf8)
        let cases: [([String], Int32, String)] = [
            (["--recorded", Self.user], 64, "--recorded and --reference go together"),
            (["--user", Self.user], 64, "give --agent"),
            (
                ["--recorded", Self.user, "--reference", Self.user, "--user-labels", s.file("lab.txt")], 65,
                "lab.txt:2: label 1.000–2.000 s overlaps"
            ),
            (["--agent", Self.agent, "--network", "delay=5,wobble=3"], 64, "--network: unknown name 'wobble'"),
            (["--agent", Self.agent, "--echo-gain-db", "nan"], 64, "--echo-gain-db"),
            (["--agent", Self.agent, "--device-rate", "1000000000000"], 64, "--device-rate"),
            (["--agent", s.file("missing.wav")], 66, "missing.wav"),
        ]
        for (args, code, message) in cases {
            let r = try CLI.run(["session", "simulate"] + args + ["-o", s.file("out")])
            #expect(r.status == code && r.stderr.contains(message), "\(args): \(r.status) \(r.stderr)")
        }
        #expect(s.contents == ["lab.txt"], "nothing written, nothing left behind")
    }
}
