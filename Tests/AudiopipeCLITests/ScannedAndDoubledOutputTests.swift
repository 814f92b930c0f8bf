import Foundation
import Testing
import _AudioPipelineTestSupport

/// What a bad-input audit of 2026-11-27 found, each held here: a FIFO in a scanned directory, rates
/// no audio file holds, a batch or report sent nowhere sensible, two outputs on standard output, an
/// output under a file, a report directory interrupted while rooms were being written.
@Suite struct ScannedAndDoubledOutputs {
    static let agent = root + "/samples/scenario/agent-24k.wav"
    static let user = root + "/samples/scenario/user-16k.wav"

    /// A FIFO found by scanning a directory is no recording: skipped, not opened and waited on for
    /// ever (`timeout` turns a hang into a failure here).
    @Test func aFIFOInAScannedDirectoryIsSkipped() throws {
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "/samples/vad/keyboard.wav", toPath: s.file("in/keyboard.wav"))
        try FileManager.default.copyItem(atPath: root + "/samples/vad/keyboard.txt", toPath: s.file("in/keyboard.txt"))
        #expect(mkfifo(s.file("in/waiting.wav"), 0o600) == 0)
        try "1\t2\tspeech\n".write(toFile: s.file("in/waiting.txt"), atomically: true, encoding: .utf8)
        let detect = try runTool(
            "/usr/bin/timeout", ["60", CLI.binary, "vad", "detect", s.file("in"), "-o", s.file("out"), "-q"])
        #expect(detect.status == 0, "\(detect.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.file("out")).sorted() == ["keyboard.txt"])
        let tune = try runTool(
            "/usr/bin/timeout",
            [
                "120", CLI.binary, "vad", "tune", "--audio", s.file("in"), "--report", s.file("tuned"), "-q",
                "--set", "enter_db=8,12",
            ])
        #expect(tune.status == 0, "\(tune.err)")
    }

    /// The analyzer sizes its signals from the rates: a 1 Hz input asked 174 GB and aborted.
    @Test(arguments: [["--from", "1", "--to", "16000"], ["--from", "16000", "--to", "999"]])
    func analyzeRefusesRatesNoAudioFileHolds(rates: [String]) throws {
        let r = try CLI.run(["analyze", "resampler"] + rates + ["--resampler", "native-high", "--no-speed"])
        #expect(r.status == 64 && r.stderr.contains("a rate must be in 1000…768000 Hz"), "\(r.stderr)")
    }

    /// `-o ""` for a batch put every output at the filesystem's root.
    @Test func aBatchIntoAnEmptyDirectoryNameIsRefused() throws {
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: mic, toPath: s.file("in/mic.wav"))
        let r = try CLI.run(["convert", s.file("in"), "-o", "", "-r", "8000", "-q"])
        #expect(r.status == 73 && r.stderr.contains("an empty output directory"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/mic.wav"))
    }

    /// Two outputs on standard output interleave (a trace inside the WAV data): refused, however
    /// standard output is spelt.
    @Test(arguments: ["-", "/dev/stdout"])
    func twoOutputsOnStandardOutputAreRefused(trace: String) throws {
        let r = try CLI.run(["deframe", fixtures + "/openai-server.jsonl", "-o", "-", "--trace", trace])
        #expect(r.status == 64 && r.stderr.contains("standard output is given for two outputs"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    /// A report is a directory: `-o -` made one named `-`.
    @Test func aReportIsNotStandardOutput() throws {
        let s = Scratch()
        let r = try runTool(
            "/bin/sh",
            [
                "-c",
                "cd '\(s.path)' && '\(CLI.binary)' session simulate --agent '\(Self.agent)' --user '\(Self.user)' -o - -q",
            ])
        #expect(r.status == 73 && r.err.contains("a report is a directory, not standard output"), "\(r.err)")
        #expect(s.contents.isEmpty)
    }

    /// An output path under a regular file says so (it said the file did not exist).
    @Test func anOutputUnderAFileSaysTheFileIsNoDirectory() throws {
        let s = Scratch()
        try "notes\n".write(toFile: s.file("notes"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["vad", "detect", mic, "-o", s.file("notes/labels.txt")])
        #expect(r.status == 73 && r.stderr.contains("is a file, not a directory"), "\(r.stderr)")
        #expect(s.contents == ["notes"])
    }

    /// SIGINT while a 100,000-room sweep writes its rooms: the report's temporary directory went,
    /// but files the sweep made meanwhile kept it (4 runs in 6). Nothing is left now.
    @Test func aRoomSweepInterruptedWhileWritingLeavesNothing() throws {
        for delay in [2.0, 3.0] {
            let s = Scratch()
            let p = Process()
            p.executableURL = URL(fileURLWithPath: CLI.binary)
            p.arguments = [
                "session", "simulate", "--agent", Self.agent, "--user", Self.user, "--rooms", "100000",
                "-o", s.file("r"), "-q", "--no-progress",
            ]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGINT)
            p.waitUntilExit()
            #expect(p.terminationStatus == 130)
            #expect(s.contents.isEmpty, "left after SIGINT at \(delay) s: \(s.contents)")
        }
    }

    /// A report replaces its directory whole: an input inside it (the last run's heard.wav as the
    /// agent) was replaced by the new report's file.
    @Test func anInputInsideTheReportDirectoryIsRefused() throws {
        let s = Scratch()
        let first = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--user", Self.user, "-o", s.file("rep"), "-q",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let heard = try Data(contentsOf: URL(fileURLWithPath: s.file("rep/heard.wav")))
        let again = try CLI.run([
            "session", "simulate", "--agent", s.file("rep/heard.wav"), "--user", Self.user, "-o", s.file("rep"), "-q",
        ])
        #expect(again.status == 64 && again.stderr.contains("an input inside the report directory"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.file("rep/heard.wav"))) == heard, "the input is untouched")
    }

    /// A `--room` range is checked at its bounds: `echo_delay_ms=-5:10` passed with `--rooms 1` (the
    /// one value drawn was positive) and failed with 30, naming a value nobody typed.
    @Test(arguments: [["echo_delay_ms=-5:10", "the bound -5"], ["echo_gain_db=-30:41", "the bound 41"]])
    func aRoomRangeIsCheckedAtItsBounds(room: [String]) throws {
        let s = Scratch()
        let r = try CLI.run([
            "session", "simulate", "--agent", Self.agent, "--user", Self.user, "--rooms", "1", "--room", room[0],
            "-o", s.file("r"), "-q",
        ])
        #expect(r.status == 64 && r.stderr.contains("--room \(room[0]): \(room[1])"), "\(r.stderr)")
        #expect(s.contents.isEmpty)
    }

    /// `--resume` adds to a results file only: a file of notes given as `--report` was appended to.
    @Test func resumingOntoAFileThatIsNotAResultsFileIsRefused() throws {
        let s = Scratch()
        try "my notes\n".write(toFile: s.file("notes.txt"), atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "vad", "detect", mic, root + "/samples/vad/keyboard.wav", "-o", s.file("out"), "--report",
            s.file("notes.txt"), "--resume", "-q",
        ])
        #expect(r.status == 73 && r.stderr.contains("is not a results file"), "\(r.stderr)")
        #expect(try String(contentsOfFile: s.file("notes.txt"), encoding: .utf8) == "my notes\n")
    }

    /// A WAV whose header cannot be written (a full device) is an I/O error, 74, like raw data: the
    /// file was open; it said "cannot create" (73).
    @Test(arguments: ["/dev/full", "-"])
    func aWAVHeaderThatCannotBeWrittenIsAnIOError(output: String) throws {
        let r = try runTool(
            "/bin/sh", ["-c", "'\(CLI.binary)' convert '\(mic)' '\(output)' -t wav -q > /dev/full"])
        #expect(r.status == 74 && r.err.contains("cannot write the header"), "\(r.status) \(r.err)")
    }

    /// A CSV without its columns names them and shows the header cut to 200 characters: a 1 MB
    /// line without a newline was echoed whole (100 MB for a 100 MB file).
    @Test func aMissingColumnShowsTheHeaderCut() throws {
        let s = Scratch()
        try String(repeating: "A", count: 1 << 20).write(toFile: s.file("t.csv"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["jitter", "simulate", s.file("t.csv"), "-o", s.file("o.csv")])
        #expect(r.status == 65 && r.stderr.contains("missing column 'seq'"), "\(r.stderr.prefix(300))")
        #expect(r.stderr.utf8.count < 1_000 && r.stderr.contains("(1048576 bytes)"), "\(r.stderr.utf8.count) bytes")
    }
}
