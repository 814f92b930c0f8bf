import Foundation
import Testing
import _AudioPipelineTestSupport

/// What the second bad-input audit of 2026-11-27 found, each held here: captures whose times are
/// missing or go back, traces that break their own format, rates typed in kHz, JSON errors without a
/// place, grid errors without the file, a config's broken barge_in block, `--jobs` limits that
/// differed, `--name` templates that name nothing, raw options on a file with a header, libsndfile's
/// misleading words.
@Suite struct SecondAudit {
    /// The sample capture's lines, with line `k` (0-based) changed by `edit`.
    static func capture(editing k: Int, _ edit: (inout [String: Any]) -> Void) throws -> String {
        var lines = try String(contentsOfFile: root + "/samples/agent-session.jsonl", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        var entry = try #require(try JSONSerialization.jsonObject(with: Data(lines[k].utf8)) as? [String: Any])
        edit(&entry)
        lines[k] = String(decoding: try JSONSerialization.data(withJSONObject: entry), as: UTF8.self)
        return lines.joined(separator: "\n") + "\n"
    }

    /// A timed capture with one entry that has no time: the trace dropped its packet without a word.
    @Test func aTimedCaptureWithAnUntimedEntryIsRefused() throws {
        let s = Scratch()
        try Self.capture(editing: 4) { $0["time"] = nil }.write(
            toFile: s.file("c.jsonl"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["deframe", s.file("c.jsonl"), "-o", s.file("a.wav"), "--trace", s.file("t.csv")])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("c.jsonl: line 5: an entry without \"time\", where line 4's has one"), "\(r.stderr)")
        #expect(s.contents == ["c.jsonl"])
    }

    /// A capture cut off in the middle of a line (a full disk, a killed logger): its last line was
    /// reported as "an entry without \"time\"", which it has. It is not valid JSON, and that is said.
    @Test func aCaptureCutOffMidLineSaysSo() throws {
        let s = Scratch()
        let text = try String(contentsOfFile: root + "/samples/agent-session.jsonl", encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        let cut = lines[0..<4].joined(separator: "\n") + "\n" + lines[4].prefix(lines[4].count / 2)
        try cut.write(toFile: s.file("c.jsonl"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["deframe", s.file("c.jsonl"), "-o", s.file("a.wav")])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("c.jsonl: line 5: not valid JSON"), "\(r.stderr)")
        #expect(s.contents == ["c.jsonl"])
    }

    /// An entry ten seconds earlier than the one before it was written into the trace as a packet
    /// that arrived before the session began; --lenient skips it (and says so).
    @Test func timesThatGoBackAreRefusedAndSkippedWhenLenient() throws {
        let s = Scratch()
        try Self.capture(editing: 4) { $0["time"] = ($0["time"] as! Double) - 10 }
            .write(toFile: s.file("c.jsonl"), atomically: true, encoding: .utf8)
        let strict = try CLI.run(["deframe", s.file("c.jsonl"), "-o", s.file("a.wav")])
        #expect(strict.status == 65 && strict.stderr.contains("line 5: \"time\" goes back 9.97"), "\(strict.stderr)")
        #expect(strict.stderr.contains("from line 4's"), "\(strict.stderr)")
        let lenient = try CLI.run([
            "deframe", s.file("c.jsonl"), "-o", s.file("a.wav"), "--trace", s.file("t.csv"), "--lenient",
        ])
        let summary = String(decoding: lenient.stdout, as: UTF8.self)
        #expect(lenient.status == 0 && summary.contains("skipped (--lenient): 1"), "\(summary)")
        let times = try String(contentsOfFile: s.file("t.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
            .map { Double($0.split(separator: ",")[2])! }
        #expect(times.count == 405 && times == times.sorted(), "arrivals in order, the bad one left out")
    }

    /// A HAR frame without its time was put at 1970 (time 0), ahead of every other.
    @Test func aHARFrameWithoutItsTimeIsRefused() throws {
        let s = Scratch()
        var har = try String(contentsOfFile: fixtures + "/session.har", encoding: .utf8)
        let first = try #require(har.range(of: #""time": ?[0-9.]+,"#, options: .regularExpression))
        har.removeSubrange(first)
        try har.write(toFile: s.file("s.har"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["deframe", s.file("s.har"), "-o", s.file("a.wav")])
        #expect(
            r.status == 65 && r.stderr.contains("WebSocket message 1") && r.stderr.contains("\"time\" is missing"),
            "\(r.stderr)")
    }

    /// The kit's format: utt never goes down as seq goes up; a packet must hold a sample.
    @Test(arguments: [
        ("0,0,40,20,0,1\n1,20,60,20,20,0\n", "t.csv:3: utt 0 is lower than utt 1 of seq 0 (line 2)"),
        ("0,0,40,20,0,0\n1,20,60,0.01,20,0\n", "t.csv:3: duration_ms 0.01 is less than one sample at 24000 Hz"),
    ])
    func aTraceThatBreaksItsFormatIsRefused(rows: String, message: String) throws {
        let s = Scratch()
        try ("seq,send_ms,arrival_ms,duration_ms,media_ms,utt\n" + rows)
            .write(toFile: s.file("t.csv"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["jitter", "simulate", s.file("t.csv"), "-o", s.file("log.csv")])
        #expect(r.status == 65 && r.stderr.contains(message), "\(r.stderr)")
        #expect(s.contents == ["t.csv"])
    }

    /// `-r 16` wrote a 16 Hz file; below 1 kHz the rate is refused with the likely meaning.
    @Test func aRateTypedInKilohertzIsRefused() throws {
        let s = Scratch()
        let r = try CLI.run(["convert", mic, s.file("o.wav"), "-r", "16"])
        #expect(
            r.status == 64 && r.stderr.contains("--rate: 16 Hz is below 1000 Hz") && r.stderr.contains("16000"),
            "\(r.stderr)")
        #expect(s.contents.isEmpty)
        #expect(try CLI.run(["convert", mic, s.file("o.wav"), "-r", "1000", "-q"]).status == 0)
    }

    /// Foundation says only "The given data was not valid JSON": the place is given.
    @Test func aJSONSyntaxErrorNamesItsLineAndColumn() throws {
        let s = Scratch()
        try "{\"enter_db\": 9,\n  \"exit_db\": \n}\n".write(toFile: s.file("c.json"), atomically: true, encoding: .utf8)
        let config = try CLI.run(["vad", "detect", mic, "--config", s.file("c.json"), "-o", s.file("l.txt")])
        #expect(config.status == 65 && config.stderr.contains("c.json: not JSON: line 3, column 1"), "\(config.stderr)")
        try "{\"enter_db\": [8, 10],\n \"exit_db\": [1,, 2]}".write(
            toFile: s.file("g.json"), atomically: true, encoding: .utf8)
        let grid = try CLI.run([
            "vad", "tune", "--audio", root + "/samples/vad", "--grid", s.file("g.json"), "--report", s.file("r"), "-q",
        ])
        #expect(grid.status == 65 && grid.stderr.contains("g.json: not JSON: line 2, column 16"), "\(grid.stderr)")
        try "{\n \"name\": \"mine\"\n \"send\": {}}".write(toFile: s.file("p.json"), atomically: true, encoding: .utf8)
        let profile = try CLI.run(["frame", mic, "--profile", "custom:" + s.file("p.json"), "-o", s.file("m.jsonl")])
        #expect(
            profile.status == 65 && profile.stderr.contains("p.json: profile template: not JSON: line 3, column 2"),
            "\(profile.stderr)")
    }

    /// A grid file's error is bad data naming the file (65); a --set's names the option (64).
    @Test(arguments: [
        (#"{"enter_db": [9, 10], "bogus": [3]}"#, [String](), 65, "g.json: unknown VAD parameter 'bogus'"),
        (#"{"enter_db": [9, 10], "exit_db": [30]}"#, [], 65, "g.json: the grid's exit_db=30 is in no valid setting"),
        (#"{"enter_db": [9, 10]}"#, ["--set", "exit_db=30"], 64, "--set exit_db: the grid's exit_db=30"),
        (#"{"enter_db": [9, 10]}"#, ["--set", "bogus=1"], 64, "--set bogus: unknown VAD parameter 'bogus'"),
    ])
    func gridErrorsNameWhereTheAxisCameFrom(grid: String, extra: [String], status: Int32, message: String) throws {
        let s = Scratch()
        try grid.write(toFile: s.file("g.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run(
            [
                "vad", "tune", "--audio", root + "/samples/vad", "--grid", s.file("g.json"), "--report", s.file("r"),
                "-q",
            ]
                + extra)
        #expect(r.status == status && r.stderr.contains(message), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.file("r")))
    }

    /// `vad detect --config` read the parameters and never looked at barge_in.
    @Test(arguments: [
        (#"{"min_barge_in_ms": -5}"#, "barge_in.min_barge_in_ms -5 is not a number in 0…10000"),
        ("7", "barge_in: expected an object"),
        (#"{"min_barge_in": 40}"#, "barge_in.min_barge_in: unknown key"),
    ])
    func aBrokenBargeInBlockIsAnErrorWhereverTheFileIsGiven(block: String, message: String) throws {
        let s = Scratch()
        try "{\"enter_db\": 9, \"barge_in\": \(block)}".write(
            toFile: s.file("c.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "vad", "detect", root + "/samples/vad/bargein.wav", "--config", s.file("c.json"), "-o", s.file("l.txt"),
        ])
        #expect(r.status == 65 && r.stderr.contains("c.json: \(message)"), "\(r.stderr)")
    }

    /// One limit for --jobs: batches took 1…1024, the session simulator 1…256.
    @Test func jobsHasOneLimitEverywhere() throws {
        let s = Scratch()
        let batch = try CLI.run(["convert", root + "/samples/vad", "-o", s.file("o"), "--jobs", "1025"])
        #expect(
            batch.status == 64 && batch.stderr.contains("--jobs 1025 is not an integer in 1…1024"), "\(batch.stderr)")
        let rooms = try CLI.run([
            "session", "simulate", "--agent", root + "/samples/scenario/agent-24k.wav", "--user",
            root + "/samples/scenario/user-16k.wav", "--rooms", "2", "-o", s.file("rooms"), "--jobs", "1025", "-q",
        ])
        #expect(rooms.status == 64 && rooms.stderr.contains("1…1024"), "\(rooms.stderr)")
        #expect(s.contents.isEmpty)
    }

    /// A `--name` with an unknown placeholder put every input into one file name.
    @Test(arguments: [
        ("{nmae}.{ext}", "unknown placeholder {nmae} (known: {dir} {stem} {name} {ext})"),
        ("{dir}/", "names a directory, not a file"), ("{stem.{ext}", "a '{' without its '}'"),
    ])
    func aNameTemplateThatNamesNoFileIsRefused(template: String, message: String) throws {
        let s = Scratch()
        let r = try CLI.run(["convert", root + "/samples/vad", "-o", s.file("o"), "--name", template, "-q"])
        #expect(r.status == 64 && r.stderr.contains("--name '\(template)': \(message)"), "\(r.stderr)")
        #expect(s.contents.isEmpty)
    }

    /// The raw options on a WAV read its header as samples; they are refused there.
    @Test func rawOptionsOnAFileWithAHeaderAreRefused() throws {
        let s = Scratch()
        let r = try CLI.run([
            "convert", mic, s.file("o.wav"), "--in-rate", "8000", "--in-channels", "1", "--in-encoding", "pcm16",
        ])
        #expect(r.status == 64 && r.stderr.contains("is a WAV file, with a header"), "\(r.stderr)")
        #expect(s.contents.isEmpty)
    }

    /// libsndfile's own words were "SF_INFO struct incomplete" (a rate of 0) and "problem with
    /// initialization of the flac decoder" (a FLAC that cannot be written): the user's words instead.
    @Test func libsndfilesMisleadingWordsAreTranslated() throws {
        let s = Scratch()
        var wav = try Data(contentsOf: URL(fileURLWithPath: mic))
        let fmt = try #require(wav.range(of: Data("fmt ".utf8)))
        wav.replaceSubrange(fmt.lowerBound + 12..<fmt.lowerBound + 16, with: [0, 0, 0, 0])
        try wav.write(to: URL(fileURLWithPath: s.file("rate0.wav")))
        let info = try CLI.run(["info", s.file("rate0.wav")])
        #expect(
            info.status == 65 && info.stderr.contains("declares a sample rate or a channel count of 0"),
            "\(info.stderr)")
        let full = try CLI.run(["convert", mic, "/dev/full", "--type", "flac"])
        #expect(full.status == 74 && full.stderr.contains("No space left on device"), "\(full.stderr)")
    }
    /// A report directory was put in place before the command's report was printed: with standard
    /// output full (74) the new directory stood and the old one was gone. Now the old one stays.
    @Test(arguments: [
        [
            "session", "simulate", "--agent", root + "/samples/scenario/agent-24k.wav", "--user",
            root + "/samples/scenario/user-16k.wav", "-o",
        ],
        ["vad", "tune", "--audio", root + "/samples/vad", "--set", "enter_db=8,12", "--report"],
    ])
    func aReportThatCannotBePrintedLeavesTheOldDirectory(command: [String]) throws {
        let s = Scratch()
        let first = try CLI.run(command + [s.file("report"), "-q"])
        #expect(first.status == 0, "\(first.stderr)")
        try "the earlier run\n".write(toFile: s.file("report/earlier.txt"), atomically: true, encoding: .utf8)
        let quoted = (command + [s.file("report"), "--json"]).map { "'\($0)'" }.joined(separator: " ")
        let full = try runTool("/bin/sh", ["-c", "'\(CLI.binary)' \(quoted) > /dev/full"])
        #expect(full.status == 74, "\(full.err)")
        #expect(FileManager.default.fileExists(atPath: s.file("report/earlier.txt")), "the old report is kept")
        #expect(s.contents == ["report"], "nothing else left beside it")
    }
    /// A raw file cut mid-sample lost its last byte without a word.
    @Test func aRawFileWithAPartialFrameIsWarnedAbout() throws {
        let s = Scratch()
        try Data(repeating: 1, count: 1001).write(to: URL(fileURLWithPath: s.file("in.raw")))
        let raw = ["--in-rate", "16000", "--in-channels", "1", "--in-encoding", "pcm16"]
        let r = try CLI.run(["convert", s.file("in.raw"), s.file("o.wav")] + raw)
        #expect(r.status == 0 && r.stderr.contains("in.raw: the last 1 bytes make no whole frame"), "\(r.stderr)")
        let strict = try CLI.run(["convert", s.file("in.raw"), s.file("o2.wav"), "--strict"] + raw)
        #expect(strict.status == 65 && strict.stderr.contains("(--strict)"), "\(strict.stderr)")
        #expect(s.contents == ["in.raw", "o.wav"])
    }
    /// `vad detect DIR -o OUT` took NAME.ref.wav for a recording of its own and ran NAME.wav without
    /// it; it now pairs them as `vad tune` and the VAD kit do.
    @Test func aBatchPairsEachRecordingWithItsReference() throws {
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("in"), withIntermediateDirectories: true)
        for name in ["bargein.wav", "bargein.ref.wav", "keyboard.wav"] {
            try FileManager.default.copyItem(atPath: root + "/samples/vad/" + name, toPath: s.file("in/" + name))
        }
        let batch = try CLI.run(["vad", "detect", s.file("in"), "-o", s.file("out"), "-q"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: s.file("out")).sorted() == [
                "bargein.txt", "keyboard.txt",
            ])
        let one = try CLI.run([
            "vad", "detect", s.file("in/bargein.wav"), "--reference", s.file("in/bargein.ref.wav"), "-o",
            s.file("one.txt"), "-q",
        ])
        #expect(one.status == 0, "\(one.stderr)")
        let alone = try CLI.run(["vad", "detect", s.file("in/bargein.wav"), "-o", s.file("alone.txt"), "-q"])
        #expect(alone.status == 0, "\(alone.stderr)")
        let labels = { (path: String) in try String(contentsOfFile: path, encoding: .utf8) }
        #expect(try labels(s.file("out/bargein.txt")) == labels(s.file("one.txt")), "as with --reference")
        #expect(try labels(s.file("one.txt")) != labels(s.file("alone.txt")), "which changes the labels")
        // Another naming, as `vad tune --reference-suffix` takes it.
        try FileManager.default.moveItem(atPath: s.file("in/bargein.ref.wav"), toPath: s.file("in/bargein-far.wav"))
        let far = try CLI.run([
            "vad", "detect", s.file("in"), "-o", s.file("far"), "--reference-suffix", "-far.wav", "-q",
        ])
        #expect(far.status == 0, "\(far.stderr)")
        #expect(try labels(s.file("far/bargein.txt")) == labels(s.file("one.txt")))
        #expect(!FileManager.default.fileExists(atPath: s.file("far/bargein-far.txt")))
        let empty = try CLI.run(["vad", "detect", s.file("in"), "-o", s.file("e"), "--reference-suffix", ""])
        #expect(empty.status == 64 && empty.stderr.contains("--reference-suffix"), "\(empty.stderr)")
    }
}
