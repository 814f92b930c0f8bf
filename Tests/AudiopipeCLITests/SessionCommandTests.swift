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
                "heard.wav", "mic.wav", "vad-mic.wav", "vad-reference.wav", "sent.jsonl", "events.jsonl",
                "report.json", "timeline.svg", "report.html", ".audiopipe-report",
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

    /// vad-mic.wav and vad-reference.wav are what the session's detector got: `vad detect` on them
    /// decides as the session did, frame for frame — each tick's score (events.jsonl: the highest of
    /// the frames it produced) is its frames' (`--frames`: one decimal), and the speech runs start in
    /// the ticks that produced their first frames. (On mic.wav and heard.wav, read through the file
    /// reader's resampler, 1,482 of these 2,819 ticks' scores differed, by up to 2.9 dB.)
    @Test func theDetectorsInputGivesTheSessionsDecisions() throws {
        let s = Scratch()
        let session = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--user", Self.user, "-o", s.file("sim"), "-q",
        ])
        #expect(session.status == 0, "\(session.stderr)")
        let detect = try CLI.run([
            "vad", "detect", s.file("sim/vad-mic.wav"), "--reference", s.file("sim/vad-reference.wav"),
            "--frames", s.file("frames.csv"), "-o", s.file("labels.txt"), "-q",
        ])
        #expect(detect.status == 0, "\(detect.stderr)")
        let rows = try String(contentsOfFile: s.file("frames.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        let frameSpeech = rows.map { $0.split(separator: ",")[1] == "1" }
        let frameScores = try rows.map { try #require(Double($0.split(separator: ",")[2])) }
        let events = try String(contentsOfFile: s.file("sim/events.jsonl"), encoding: .utf8).split(separator: "\n")
            .map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let tickTimes = try events.map { try #require($0["t"] as? Double) }
        func starts(_ decisions: [Bool]) -> [Int] {
            decisions.indices.filter { decisions[$0] && ($0 == 0 || !decisions[$0 - 1]) }
        }
        // Frame k's decision is due at its end, (k + 1) · 10 ms of the detector's input; a tick ends
        // on the device's clock, the capture conversion's latency after.
        let frameStarts = starts(frameSpeech).map { Double($0 + 1) * 0.01 }
        let tickStarts = starts(events.map { $0["vadSpeech"] as? Bool == true }).map { tickTimes[$0] }
        #expect(frameStarts.count >= 3 && frameStarts.count == tickStarts.count, "\(frameStarts), \(tickStarts)")
        let lag = try #require(tickStarts.first) - (try #require(frameStarts.first))
        #expect(lag >= 0 && lag < 0.01, "the ticks lag the frames by \(lag) s")
        for (f, t) in zip(frameStarts, tickStarts) { #expect(abs(t - f - lag) < 1e-6, "run at \(f) s, tick \(t) s") }
        // Each tick's frames: those decided after the tick before and by its end (less the lag).
        var next = 0
        var compared = 0
        for (i, event) in events.enumerated() {
            var highest = -Double.infinity
            while next < frameScores.count && Double(next + 1) * 0.01 <= tickTimes[i] - lag + 1e-6 {
                highest = max(highest, frameScores[next])
                next += 1
            }
            guard let score = event["vadScore"] as? Double, highest > -.infinity else { continue }
            #expect(abs(highest - score) <= 0.051, "tick ending \(tickTimes[i]) s: \(score) dB, frames \(highest) dB")
            compared += 1
        }
        #expect(compared > 2000)
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

    /// OpenAI Realtime: each barge-in sends response.cancel, then conversation.item.truncate with the
    /// item of the captured session's response (its item_id) and the milliseconds of it played;
    /// sent.jsonl holds both, with report.json's numbers. Datagrid sends its interrupt alone.
    @Test func aBargeInCancelsAndTruncatesTheItemItHeard() throws {
        let s = Scratch()
        let r = try CLI.run([
            "session", "simulate", "--agent", root + "/samples/agent-session.jsonl", "--user", Self.user, "-o",
            s.file("sim"), "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let interrupts = try #require(try Self.report(r.stdout)["interrupts"] as? [[String: Any]])
        let first = try #require(interrupts.first)
        #expect(first["itemId"] as? String == "item_1")
        let heard = try #require(first["audioEndMs"] as? Int)
        #expect(heard > 1000 && heard < 4000, "\(heard) ms")
        let sent = try String(contentsOfFile: s.file("sim/sent.jsonl"), encoding: .utf8).split(separator: "\n")
        let controls = try sent.compactMap { line -> [String: Any]? in
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let data = try #require(entry["data"] as? String)
            guard data.hasPrefix("{\"type\":\"response.cancel") || data.contains("conversation.item.truncate") else {
                return nil
            }
            return try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]
        }
        #expect(controls.map { $0["type"] as? String } == ["response.cancel", "conversation.item.truncate"])
        #expect(controls.last?["item_id"] as? String == "item_1" && controls.last?["content_index"] as? Int == 0)
        #expect(controls.last?["audio_end_ms"] as? Int == heard)
        // Datagrid has an interrupt message and no truncate.
        let d = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--user", Self.user, "--profile", "datagrid", "-o",
            s.file("dg"), "--json",
        ])
        #expect(d.status == 0, "\(d.stderr)")
        let dg = try String(contentsOfFile: s.file("dg/sent.jsonl"), encoding: .utf8)
        #expect(dg.contains("{\\\"type\\\":\\\"interrupt\\\"}") && !dg.contains("truncate"))
    }

    /// Random rooms: one row per room with its parameters and figures, the same rooms for the
    /// same seed, each room a scenario file that runs alone to the same figures; a range option
    /// changes what is drawn; bad ranges and contradictory options are refused (64).
    @Test func randomRoomsDrawTheDocumentedRangesAndRunEachRoom() throws {
        let s = Scratch()
        func rooms(_ dir: String, _ extra: [String] = []) throws -> CLI.Result {
            try CLI.run(
                [
                    "session", "simulate", "--agent", Self.agent, "--user", Self.user, "--rooms", "4",
                    "--room-seed", "5", "--jobs", "2", "-o", s.file(dir), "--json",
                ] + extra)
        }
        let r = try rooms("a")
        #expect(r.status == 0, "\(r.stderr)")
        let report = try Self.report(r.stdout)
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["rooms"] as? Int == 4 && summary["failed"] as? Int == 0)
        let written = Set(try FileManager.default.contentsOfDirectory(atPath: s.file("a")))
        #expect(written.isSuperset(of: ["rooms.csv", "rooms.json", "rooms.txt", "rooms.svg", "rooms"]))
        // rooms.svg: its legend, and value ticks in their units on both panels.
        let svg = try String(contentsOfFile: s.file("a/rooms.svg"), encoding: .utf8)
        for text in ["a room with a missed barge-in (on the top line)", "target 300 ms", "0 ms", "latency p90, ms"] {
            #expect(svg.contains(">\(text)</text>"), "rooms.svg has '\(text)'")
        }
        #expect(svg.contains(" /min</text>"), "false barge-ins per minute, with its unit")
        let csv = try String(contentsOfFile: s.file("a/rooms.csv"), encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 5)
        let header = csv[0].split(separator: ",").map(String.init)
        for name in ["echo_delay_ms", "echo_gain_db", "rt60_ms", "drr_db", "softclip", "noise_dbfs", "jitter_ms"] {
            #expect(header.contains(name), "\(name) in \(header)")
        }
        #expect(header.contains("false_per_min") && header.contains("latency_p90_ms") && header.contains("missed"))
        // Every drawn value within its default range.
        let column = { (name: String) in header.firstIndex(of: name)! }
        for row in csv.dropFirst() {
            let f = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let delay = Double(f[column("echo_delay_ms")])!, gain = Double(f[column("echo_gain_db")])!
            #expect((0...300).contains(delay) && (-20...6).contains(gain), "\(row)")
        }
        // The same seed, the same rooms and figures.
        #expect(try rooms("b").status == 0)
        #expect(
            try String(contentsOfFile: s.file("b/rooms.csv"), encoding: .utf8) == csv.joined(separator: "\n") + "\n")
        // A room's scenario file runs alone to the same figures.
        let again = try CLI.run([
            "session", "simulate", "--scenarios", s.file("a/rooms"), "-o", s.file("again"), "--json",
        ])
        #expect(again.status == 0, "\(again.stderr)")
        let rows = try #require(try Self.report(again.stdout)["rows"] as? [[String: Any]])
        let byRoom = try #require(report["rooms"] as? [[String: Any]])
        for row in rows {
            let name = try #require(row["scenario"] as? String)
            let index = Int(name.dropFirst("room-".count))!
            let room = try #require(byRoom.first { $0["index"] as? Int == index })
            let alone = try #require(row["headline"] as? [String: Any])
            let drawn = try #require(room["headline"] as? [String: Any])
            #expect(alone["falseBargeIns"] as? Int == drawn["falseBargeIns"] as? Int, "\(name)")
            #expect(alone["latencyMsP90"] as? Double == drawn["latencyMsP90"] as? Double, "\(name)")
        }
        // A range fixed to one value.
        #expect(try rooms("c", ["--room", "echo_delay_ms=120"]).status == 0)
        let fixed = try String(contentsOfFile: s.file("c/rooms.csv"), encoding: .utf8).split(separator: "\n")
        for row in fixed.dropFirst() {
            #expect(row.split(separator: ",")[column("echo_delay_ms")] == "120")
        }
        // Refused: an unknown parameter, a reversed range, --room alone, --rooms with --sweep.
        for (extra, says) in [
            (["--room", "colour=1:2"], "unknown parameter 'colour'"), (["--room", "rt60_ms=500:100"], "LOW ≤ HIGH"),
            (["--sweep", "enter_db=8,10"], "--rooms draws its own rooms"),
        ] {
            let bad = try rooms("bad", extra)
            #expect(bad.status == 64 && bad.stderr.contains(says), "\(extra): \(bad.stderr)")
        }
        let alone = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--room", "rt60_ms=1:2", "-o", s.file("x"),
        ])
        #expect(alone.status == 64 && alone.stderr.contains("give --rooms"), "\(alone.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: s.file("bad"))
                && !FileManager.default.fileExists(atPath: s.file("x")))
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
        // Each value's report names the directory it ended up in, not the one it was written in first.
        let one =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: s.file("sw/echo_gain_db=0/report.json")))) as! [String: Any]
        #expect(one["output"] as? String == s.file("sw") + "/echo_gain_db=0", "\(one["output"] ?? "none")")
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

    /// A swept value at which the VAD hears nobody (absolute_dbfs 0: no frame is loud enough) misses
    /// both of the scenario's barge-ins: sweep.svg marks them "missed 2" and counts them in its
    /// title, where before the value simply had no latency point.
    @Test func aSweepDrawsAndCountsItsMissedBargeIns() throws {
        let s = Scratch()
        let r = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--user", Self.user, "-o", s.file("sw"), "--sweep",
            "absolute_dbfs=-65,0", "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try #require(try Self.report(r.stdout)["rows"] as? [[String: Any]])
        let missed = rows.map { ($0["headline"] as? [String: Any])?["missedBargeIns"] as? Int }
        #expect(missed == [0, 2], "\(rows)")
        let svg = try String(contentsOfFile: s.file("sw/sweep.svg"), encoding: .utf8)
        #expect(svg.contains(">session sweep over absolute_dbfs: 2 missed barge-ins of 4 user onsets</text>"))
        #expect(svg.contains(">missed 2</text>"), "the missed value is drawn")
        #expect(svg.contains(">missed barge-ins (at the top)</text>"), "and in the legend")
        #expect(svg.contains(">-65 dBFS</text>") && svg.contains(">0 dBFS</text>"), "x ticks in the unit")
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
