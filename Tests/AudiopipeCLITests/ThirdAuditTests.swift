import Foundation
import Testing
import _AudioPipelineTestSupport

/// What the third bad-input audit of 2026-12-04 found, each held here (a test per finding).
@Suite struct ThirdAudit {
    /// A WAV of no frames converted to FLAC gave a 0-byte file, which no reader takes for FLAC: it is
    /// a FLAC of no frames now, that `info` reads back.
    @Test func anEmptyWAVConvertsToAnEmptyFLAC() throws {
        let s = Scratch()
        try BadInputs.wav(announced: 0).write(to: URL(fileURLWithPath: s.file("empty.wav")))
        let c = try CLI.run(["convert", s.file("empty.wav"), s.file("out.flac")])
        #expect(c.status == 0, "\(c.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: s.file("out.flac"))[.size] as? Int
        #expect((size ?? 0) > 0)
        let info = try CLI.run(["info", s.file("out.flac"), "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        let report = try #require((try JSONSerialization.jsonObject(with: info.stdout) as? [[String: Any]])?.first)
        #expect(report["container"] as? String == "flac" && report["frames"] as? Int == 0, "\(report)")
    }

    /// `bench --plot X --csv X` wrote the plot, then the CSV over it: refused before the run, naming
    /// both options; so are `vad detect`'s labels and frames on one file.
    @Test func twoOutputsOnOneFileNameBothOptions() throws {
        let s = Scratch()
        let bench = try CLI.run(["bench", "--plot", s.file("x"), "--csv", s.file("x"), "--duration", "0.2", "-q"])
        #expect(
            bench.status == 64 && bench.stderr.contains("given for two outputs (--csv and --plot)"), "\(bench.stderr)")
        #expect(s.contents.isEmpty)
        let vad = try CLI.run(["vad", "detect", mic, "-o", s.file("f.txt"), "--frames", s.file("f.txt")])
        #expect(vad.status == 64 && vad.stderr.contains("given for two outputs (-o and --frames)"), "\(vad.stderr)")
        #expect(s.contents.isEmpty)
    }

    /// `bench --iterations N` fixes the chunks per row, and `--duration` given beside it was ignored.
    @Test func benchRefusesIterationsWithDuration() throws {
        let r = try CLI.run(["bench", "--iterations", "10", "--duration", "0.2", "--no-peers", "-q"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("audiopipe: --iterations fixes the chunks per row, which --duration"), "\(r.stderr)")
    }

    /// The adaptive policy's options did nothing with `--policy fixed:MS`: refused, naming the option.
    @Test(arguments: [
        ["--margin-ms", "5"], ["--hole-wait-ms", "20"], ["--decelerate-ms", "4"], ["--quantile", "0.9"],
    ])
    func aFixedPolicyRefusesTheAdaptiveOptions(option: [String]) throws {
        let s = Scratch()
        try "seq,send_ms,arrival_ms,duration_ms\n0,0,30,20\n1,20,50,20\n".write(
            toFile: s.file("t.csv"), atomically: true, encoding: .utf8)
        let r = try CLI.run(
            ["jitter", "simulate", s.file("t.csv"), "-o", s.file("p.csv"), "--policy", "fixed:100"] + option)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("\(option[0]) tunes the adaptive policy, not --policy fixed:100"), "\(r.stderr)")
        #expect(s.contents == ["t.csv"])
        let adaptive = try CLI.run(["jitter", "simulate", s.file("t.csv"), "-o", s.file("p.csv")] + option + ["-q"])
        #expect(adaptive.status == 0, "\(adaptive.stderr)")
    }

    /// A framework's VAD (`vad detect --scores`, `vad tune --emulate`) ran with the energy VAD's
    /// parameters given and ignored them.
    @Test func aFrameworkVADRefusesTheEnergyVADsOptions() throws {
        let s = Scratch()
        let scores = root + "/samples/vad-scores/pipecat"
        let detect = try CLI.run([
            "vad", "detect", root + "/samples/vad/keyboard.wav", "--scores", scores + "/keyboard.csv",
            "--enter-db", "9", "-o", s.file("l.txt"),
        ])
        #expect(detect.status == 64, "\(detect.stderr)")
        #expect(
            detect.stderr.contains("--enter-db sets the energy VAD, which --scores does not run"), "\(detect.stderr)")
        #expect(
            detect.stderr.contains("(--config is the framework's there)"), "no --set in vad detect: \(detect.stderr)")
        let tune = try CLI.run([
            "vad", "tune", "--audio", root + "/samples/vad", "--scores", scores, "--emulate", "pipecat",
            "--param", "hangover_ms=100", "--report", s.file("rep"),
        ])
        #expect(tune.status == 64, "\(tune.stderr)")
        #expect(tune.stderr.contains("--param hangover_ms sets the energy VAD, which --emulate"), "\(tune.stderr)")
        #expect(tune.stderr.contains("(--config and --set are the framework's there)"), "\(tune.stderr)")
        #expect(s.contents.isEmpty)
    }

    /// `frame --control` on a profile without start or stop messages wrote none, without a word.
    @Test func controlOnAProfileWithoutControlMessagesIsRefused() throws {
        let s = Scratch()
        let r = try CLI.run(["frame", mic, "--profile", "openai-realtime", "--control", "-o", s.file("m.jsonl")])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("openai-realtime has no start or stop message; drop --control"), "\(r.stderr)")
        #expect(s.contents.isEmpty)
        // A batch is refused once, before its files (it said so for every file).
        let batch = try CLI.run([
            "frame", mic, phone, "--profile", "openai-realtime", "--control", "--commit", "-o", s.file("out"),
        ])
        #expect(batch.status == 64, "\(batch.stderr)")
        #expect(batch.stderr.components(separatedBy: "has no start or stop message").count == 2, "\(batch.stderr)")
        #expect(s.contents.isEmpty)
    }

    /// `frame --commit` on a profile without a commit message was refused only once the whole input
    /// had been framed: now before the input is read (an input that is not audio shows which comes
    /// first).
    @Test func commitOnAProfileWithoutACommitMessageIsRefusedFirst() throws {
        let s = Scratch()
        try "not audio".write(toFile: s.file("x.wav"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["frame", s.file("x.wav"), "--profile", "gemini-live", "--commit", "-o", s.file("m.jsonl")])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("gemini-live has no commit message; drop --commit"), "\(r.stderr)")
        #expect(s.contents == ["x.wav"])
    }

    /// `vad detect --scores` with the energy VAD's `--explain` was refused file by file inside a
    /// batch (an error for every file); now once, before any file is read. `--resampler`, for a
    /// reference that `--scores` never reads, was ignored.
    @Test func scoresRefuseTheEnergyVADsOutputsOnce() throws {
        let s = Scratch()
        try #"{"pipecat": {}}"#.write(toFile: s.file("p.json"), atomically: true, encoding: .utf8)
        let scores = root + "/samples/vad-scores/pipecat"
        let inputs = [root + "/samples/vad/keyboard.wav", root + "/samples/vad/pink-noise.wav"]
        let batch = try CLI.run(
            ["vad", "detect"] + inputs + [
                "--scores", scores, "--config", s.file("p.json"), "--explain", "--format", "json",
                "-o", s.file("out"),
            ])
        #expect(batch.status == 64, "\(batch.stderr)")
        let message = "--scores emulates a framework: --reference, --align, --explain and --frames are the"
        #expect(batch.stderr.components(separatedBy: message).count == 2, "once: \(batch.stderr)")
        #expect(s.contents == ["p.json"])
        let resampler = try CLI.run([
            "vad", "detect", inputs[0], "--scores", scores + "/keyboard.csv", "--config", s.file("p.json"),
            "--resampler", "src-best", "-o", s.file("l.txt"),
        ])
        #expect(resampler.status == 64, "\(resampler.stderr)")
        #expect(
            resampler.stderr.contains("--resampler is for a reference, and --scores reads none"), "\(resampler.stderr)")
        #expect(s.contents == ["p.json"])
    }

    /// `--shards` counts the shards of `--shard auto`; with `--shard I/N`, or alone, it was ignored.
    @Test(arguments: [["--shard", "1/2", "--shards", "4"], ["--shards", "4"]])
    func shardsWithoutShardAutoIsRefused(options: [String]) throws {
        let s = Scratch()
        let r = try CLI.run(["convert", mic, phone, "-o", s.file("out"), "-q"] + options)
        #expect(r.status == 64 && r.stderr.contains("--shards is the number of shards of --shard auto"), "\(r.stderr)")
        #expect(s.contents.isEmpty)
    }

    /// A batch's selection and naming options did nothing for one file: refused, naming the option.
    @Test(arguments: [
        ["--include", "*.flac"], ["--exclude", "*.wav"], ["--name", "{stem}-x.{ext}"], ["--fail-fast"],
    ])
    func batchOptionsAreRefusedForOneFile(option: [String]) throws {
        let s = Scratch()
        let r = try CLI.run(["convert", mic, s.file("o.wav")] + option)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("\(option[0]) is for a batch's files, and this run has one file"), "\(r.stderr)")
        #expect(s.contents.isEmpty)
        let info = try CLI.run(["info", mic, "--name", "{stem}.txt"])
        #expect(info.status == 64 && info.stderr.contains("info writes none: drop --name"), "\(info.stderr)")
    }

    /// A grid file's empty axis swept the baseline's value alone, and a number no Double holds was
    /// "not valid JSON" without the field: both are bad data naming the field, before any work.
    @Test(arguments: [
        (#"{"enter_db": []}"#, "no values for 'enter_db' in the grid"),
        (#"{"enter_db": [6, 1e999]}"#, "'enter_db' in the grid has a value that is not a finite number"),
        (#"{"exit_db": [2], "enter_db": 1e999}"#, "'enter_db' in the grid has a value that is not a finite number"),
    ])
    func aGridFilesEmptyOrInfiniteAxisIsNamed(grid: String, message: String) throws {
        let s = Scratch()
        try grid.write(toFile: s.file("g.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "vad", "tune", "--audio", root + "/samples/vad", "--grid", s.file("g.json"), "--report", s.file("rep"),
        ])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("g.json: " + message), "\(r.stderr)")
        #expect(s.contents == ["g.json"])
    }

    /// The exit-code table said 66 for "a directory", while `convert DIR out.wav` exits 64: the
    /// directory is a batch's input given without `-o DIR`, a usage error; 66 is a directory where a
    /// file is read (`--reference DIR`). The table now says which is which, and the code does it.
    @Test func aDirectorysExitCodeIsTheOneTheTableGives() throws {
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("d"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: mic, toPath: s.file("d/a.wav"))
        let table = try String(contentsOfFile: root + "/docs/reference.md", encoding: .utf8).split(separator: "\n")
        let usage = try #require(table.first { $0.hasPrefix("| 64 |") })
        let noInput = try #require(table.first { $0.hasPrefix("| 66 |") })
        #expect(usage.contains("a directory or several inputs with an output file instead of `-o DIR`"))
        #expect(noInput.contains("a directory where a file is read (`--reference DIR`"))
        let convert = try CLI.run(["convert", s.file("d"), s.file("o.wav")])
        #expect(convert.status == 64 && convert.stderr.contains("d is a directory: a batch writes files"))
        let reference = try CLI.run(["vad", "detect", mic, "--reference", s.file("d"), "-o", s.file("l.txt")])
        #expect(reference.status == 66 && reference.stderr.contains("d: is a directory, not an audio file"))
        #expect(s.contents == ["d"])
    }

    /// A batch whose every file failed left its `-o` directory, made for the outputs, empty behind
    /// it; a directory that got an output stays.
    @Test func aBatchWhoseFilesAllFailedLeavesNoDirectory() throws {
        let s = Scratch(), inputs = Scratch()
        try FileManager.default.createDirectory(atPath: inputs.file("sub"), withIntermediateDirectories: true)
        try "junk\n".write(toFile: inputs.file("a.wav"), atomically: true, encoding: .utf8)
        try "junk\n".write(toFile: inputs.file("sub/b.wav"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["convert", inputs.path, "--recursive", "-o", s.file("out/16k"), "-q"])
        #expect(r.status == 65 && r.stderr.contains("a.wav: cannot decode"), "\(r.stderr)")
        #expect(s.contents.isEmpty, "\(s.contents)")
        try FileManager.default.copyItem(atPath: mic, toPath: inputs.file("c.wav"))
        let some = try CLI.run(["convert", inputs.path, "--recursive", "-o", s.file("out"), "-q"])
        #expect(some.status == 65)
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.file("out")) == ["c.wav"])
    }

    /// SIGINT before a batch's first file finished left a 0-byte `--report` and the empty `-o`
    /// directory: both go, as the temporary files do (the input, a FIFO nobody writes, never ends).
    @Test func anInterruptedBatchLeavesNoEmptyReport() throws {
        let s = Scratch(), inputs = Scratch()
        #expect(mkfifo(inputs.file("waiting.wav"), 0o600) == 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = [
            "convert", inputs.file("waiting.wav"), mic, "-o", s.file("out"), "--report", s.file("r.jsonl"), "-j", "1",
            "-q",
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline && p.isRunning && !FileManager.default.fileExists(atPath: s.file("out")) {
            usleep(2_000)
        }
        usleep(100_000)
        #expect(s.contents == ["out", "r.jsonl"], "the batch started: \(s.contents)")
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 130)
        #expect(s.contents.isEmpty, "\(s.contents)")
    }
}
