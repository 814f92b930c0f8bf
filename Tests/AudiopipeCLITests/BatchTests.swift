import Foundation
import Testing
import _AudioPipelineTestSupport

/// Many files through one command: a tree in, a mirrored tree out, every core, failures reported,
/// resumable after a kill, shards that add up.
@Suite struct BatchCommands {
    /// `n` short noise WAVs under `dir/in` (some in `in/sub`), 48 kHz stereo, plus `in/broken.wav` when `bad`.
    func corpus(_ s: Scratch, _ n: Int, seconds: Double = 0.2, bad: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: s.file("in/sub"), withIntermediateDirectories: true)
        for i in 0..<n {
            let frames = Int(seconds * 48_000) + i * 11
            var bytes = [UInt8](repeating: 0, count: frames * 4)
            var rng = TestRNG(seed: UInt64(i + 1))
            for j in 0..<bytes.count { bytes[j] = UInt8(truncatingIfNeeded: rng.next() >> 56) }
            let header = wavHeader(frames: frames)
            let path = s.file(i % 4 == 0 ? "in/sub/f\(i).wav" : "in/f\(i).wav")
            try Data(header + bytes).write(to: URL(fileURLWithPath: path))
        }
        if bad { try "not audio".write(toFile: s.file("in/broken.wav"), atomically: true, encoding: .utf8) }
    }

    func wavHeader(frames: Int) -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let data = frames * 4
        return Array("RIFF".utf8) + le(36 + data, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(2, 2)
            + le(48_000, 4) + le(192_000, 4) + le(4, 2) + le(16, 2) + Array("data".utf8) + le(data, 4)
    }

    /// Every regular file under `root` (relative path → bytes).
    func tree(_ root: String) -> [String: Data] {
        var out: [String: Data] = [:]
        let e = FileManager.default.enumerator(atPath: root)
        while let rel = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + rel, isDirectory: &isDir), !isDir.boolValue {
                out[rel] = FileManager.default.contents(atPath: root + "/" + rel)
            }
        }
        return out
    }

    /// The results file's last line per input, without the timing (which differs run to run).
    func results(_ path: String) throws -> [String: [String: String]] {
        var out: [String: [String: String]] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard var o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            o["elapsedSeconds"] = nil
            out[o["input"] as! String] = o.mapValues { "\($0)" }
        }
        return out
    }

    let convert = ["-r", "16000", "-c", "1", "--no-progress"]

    @Test func oneAndTwoJobsWriteTheSameTreeAndOneFileStaysAsItWas() throws {
        let s = Scratch()
        try corpus(s, 12)
        let one = try CLI.run(["convert", s.file("in"), "--recursive", "-o", s.file("o1"), "-j", "1"] + convert)
        let two = try CLI.run(["convert", s.file("in"), "--recursive", "-o", s.file("o2"), "-j", "2"] + convert)
        #expect(one.status == 0 && two.status == 0, "\(one.stderr) \(two.stderr)")
        #expect(one.text.contains("12 files: 12 ok, 0 failed"))
        let a = tree(s.file("o1"))
        #expect(a.count == 12 && a["sub/f0.wav"] != nil && a == tree(s.file("o2")))
        // The batch's output of a file is what converting that file alone writes.
        let alone = try CLI.run(["convert", s.file("in/f1.wav"), s.file("alone.wav")] + convert)
        #expect(alone.status == 0 && alone.text.contains("->"))
        #expect(FileManager.default.contents(atPath: s.file("alone.wav")) == a["f1.wav"])
    }

    @Test func aBadFileIsReportedAndTheOthersAreDone() throws {
        let s = Scratch()
        try corpus(s, 4, bad: true)
        let r = try CLI.run(
            [
                "convert", s.file("in"), "--recursive", "-o", s.file("o"), "--report", s.file("r.jsonl"),
                "--json",
            ] + convert)
        #expect(r.status == 65)
        #expect(r.stderr.contains("broken.wav") && r.stderr.contains("cannot decode"))
        let summary = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(summary["files"] as? Int == 5 && summary["ok"] as? Int == 4 && summary["failed"] as? Int == 1)
        #expect(tree(s.file("o")).count == 4)
        let lines = try results(s.file("r.jsonl"))
        #expect(lines.count == 5 && lines[s.file("in/broken.wav")]?["status"] == "failed")
        #expect(lines[s.file("in/broken.wav")]?["exitCode"] == "65")
        let fast = try CLI.run(["convert", s.file("in"), "-o", s.file("o2"), "-j", "1", "--fail-fast"] + convert)
        #expect(fast.status == 65 && fast.text.contains("0 ok, 1 failed"), "\(fast.text)")
    }

    @Test func aFileWithAWarningIsDoneAndTheWarningShown() throws {
        let s = Scratch()
        try corpus(s, 2)
        let whole = try #require(FileManager.default.contents(atPath: s.file("in/f1.wav")))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: s.file("in/f1.wav")))  // truncated
        let r = try CLI.run(["convert", s.file("in"), "-o", s.file("o"), "--report", s.file("r.jsonl")] + convert)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: ") && r.stderr.contains("f1.wav: truncated"), "\(r.stderr)")
        #expect(try results(s.file("r.jsonl"))[s.file("in/f1.wav")]?["warnings"]?.contains("truncated") == true)
        let quiet = try CLI.run(["convert", s.file("in"), "-o", s.file("o2"), "-q"] + convert)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        let info = try CLI.run(["info", s.file("in/f1.wav")])
        #expect(info.stderr.components(separatedBy: "truncated").count == 2, "once: \(info.stderr)")
    }

    @Test func aBatchKilledHalfwayAndResumedEndsAsAnUninterruptedOne() throws {
        let s = Scratch()
        try corpus(s, 40, seconds: 1)
        let args = ["convert", s.file("in"), "--recursive", "-j", "1", "--resampler", "src-best"] + convert
        let whole = try CLI.run(args + ["-o", s.file("whole"), "--report", s.file("whole.jsonl")])
        #expect(whole.status == 0, "\(whole.stderr)")

        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = args + ["-o", s.file("part"), "--report", s.file("part.jsonl")]
        (p.standardOutput, p.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, p.isRunning,
            ((try? String(contentsOfFile: s.file("part.jsonl"), encoding: .utf8)) ?? "").count(where: { $0 == "\n" })
                < 10
        {
            usleep(1_000)
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(p.terminationReason == .uncaughtSignal, "killed, not finished")
        #expect(tree(s.file("part")).count < 40)

        let resumed = try CLI.run(
            args + ["-o", s.file("part"), "--report", s.file("part.jsonl"), "--resume", "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: resumed.stdout) as? [String: Any])
        #expect((summary["skipped"] as? Int ?? 0) >= 10, "\(summary)")
        // The same outputs, byte for byte, and nothing else (no temporary file of the killed run).
        #expect(tree(s.file("part")) == tree(s.file("whole")))
        let mine = try results(s.file("part.jsonl")), theirs = try results(s.file("whole.jsonl"))
        func key(_ r: [String: [String: String]], _ root: String) -> [String: [String: String]] {
            Dictionary(
                uniqueKeysWithValues: r.map { k, v in
                    var v = v
                    v["output"] = v["output"]?.replacingOccurrences(of: root, with: "")
                    v["inputMtime"] = nil
                    return (k, v)
                })
        }
        #expect(key(mine, s.file("part")) == key(theirs, s.file("whole")))
    }

    @Test func shardsFromSlurmAddUpToTheWholeBatch() throws {
        let s = Scratch()
        try corpus(s, 30)
        var counts: [Int] = []
        for id in 10...12 {
            var env = ProcessInfo.processInfo.environment
            (env["SLURM_ARRAY_TASK_ID"], env["SLURM_ARRAY_TASK_MIN"], env["SLURM_ARRAY_TASK_COUNT"]) = (
                "\(id)", "10", "3"
            )
            let r = try runTool(
                CLI.binary,
                [
                    "convert", s.file("in"), "--recursive", "-o", s.file("o"), "--shard", "auto",
                    "--report", s.file("r\(id).jsonl"),
                ] + convert, environment: env)
            #expect(r.status == 0, "\(r.err)")
            counts.append(try results(s.file("r\(id).jsonl")).count)
            #expect(r.out.contains("shard \(id - 9)/3"))
        }
        #expect(counts.reduce(0, +) == 30 && counts.allSatisfy { $0 > 0 }, "\(counts)")
        let all = try CLI.run(["convert", s.file("in"), "--recursive", "-o", s.file("all")] + convert)
        #expect(all.status == 0 && tree(s.file("o")) == tree(s.file("all")))
    }

    @Test(arguments: [
        ["--shard", "3/2"], ["--shard", "0/0"], ["--shard", "junk"], ["--jobs", "0"], ["--resume"],
        ["--shard", "auto"],
    ])
    func badBatchOptionsAreUsageErrors(extra: [String]) throws {
        let s = Scratch()
        try corpus(s, 2)
        var env = ProcessInfo.processInfo.environment
        (env["SLURM_ARRAY_TASK_ID"], env["JOB_COMPLETION_INDEX"]) = (nil, nil)
        let r = try runTool(
            CLI.binary, ["convert", s.file("in"), "-o", s.file("o")] + extra + convert, environment: env)
        #expect(r.status == 64, "\(extra): \(r.err)")
        #expect(r.err.contains(extra[0]), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: s.file("o")))
    }

    @Test func collisionsEmptySetsAndMissingOutputDirectoriesAreRefusedBeforeAnythingRuns() throws {
        let s = Scratch()
        try corpus(s, 2)
        try FileManager.default.copyItem(atPath: s.file("in/f1.wav"), toPath: s.file("in/f1.flac"))
        let clash = try CLI.run(["convert", s.file("in"), "-o", s.file("o")] + convert)
        #expect(clash.status == 64 && clash.stderr.contains("f1.wav") && clash.stderr.contains("f1.flac"))
        let empty = try CLI.run(["convert", s.file("in"), "--include", "*.mp3", "-o", s.file("o")] + convert)
        #expect(empty.status == 64 && empty.stderr.contains("no input files"))
        let noDir = try CLI.run(["frame", s.file("in/f1.wav"), s.file("in/f2.wav"), "--profile", "openai-realtime"])
        #expect(noDir.status == 64)
        #expect(!FileManager.default.fileExists(atPath: s.file("o")))
    }

    @Test func anInputListWithCRLFABOMAndCommentsAndItsOwnOutputs() throws {
        let s = Scratch()
        try corpus(s, 3)
        try "\u{FEFF}# my corpus\r\ninput,output\r\nin/f1.wav,mine/one.wav\r\n\r\nin/f2.wav,\r\n".write(
            toFile: s.file("list.csv"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["convert", "--input-list", s.file("list.csv"), "-o", s.file("o")] + convert)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: s.file("mine/one.wav")))
        #expect(FileManager.default.fileExists(atPath: s.file("o/in/f2.wav")))
        // A listed output's name sets its type, as for one file (without --type); a name of no known
        // type is refused, naming it.
        try "input,output\nin/f1.wav,typed/one.flac\nin/f2.wav,typed/two.wav\nin/f3.wav,typed/three.mp3\n".write(
            toFile: s.file("typed.csv"), atomically: true, encoding: .utf8)
        let typed = try CLI.run(["convert", "--input-list", s.file("typed.csv"), "-o", s.file("t")] + convert)
        #expect(typed.status == 64 && typed.stderr.contains("cannot tell the output type from"), "\(typed.stderr)")
        let flac = try Data(contentsOf: URL(fileURLWithPath: s.file("typed/one.flac")))
        let wav = try Data(contentsOf: URL(fileURLWithPath: s.file("typed/two.wav")))
        #expect(flac.starts(with: Array("fLaC".utf8)) && wav.starts(with: Array("RIFF".utf8)))
        #expect(!FileManager.default.fileExists(atPath: s.file("typed/three.mp3")))
        // A list that names nothing says which list.
        try "# nothing yet\n\n".write(toFile: s.file("empty.txt"), atomically: true, encoding: .utf8)
        let empty = try CLI.run(["convert", "--input-list", s.file("empty.txt"), "-o", s.file("p")] + convert)
        #expect(
            empty.status == 65 && empty.stderr.contains("empty.txt: the input list names no file"), "\(empty.stderr)")
    }

    @Test func theReportAndListedOutputsNeverOverwriteAnInput() throws {
        let s = Scratch()
        try corpus(s, 3)
        let input = s.file("in/f1.wav")
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        func unchanged(_ path: String, _ data: Data) throws -> Bool {
            try Data(contentsOf: URL(fileURLWithPath: path)) == data
        }
        // --report naming an input file, or the input list.
        let onInput = try CLI.run(["info", input, s.file("in/f2.wav"), "--report", input])
        #expect(onInput.status == 64 && onInput.stderr.contains("--report is the input file"), "\(onInput.stderr)")
        #expect(try unchanged(input, before))
        try "in/f1.wav\nin/f2.wav\n".write(toFile: s.file("list.txt"), atomically: true, encoding: .utf8)
        let list = try Data(contentsOf: URL(fileURLWithPath: s.file("list.txt")))
        let onList = try CLI.run(
            ["convert", "--input-list", s.file("list.txt"), "-o", s.file("o"), "--report", s.file("list.txt")] + convert
        )
        #expect(onList.status == 64 && onList.stderr.contains("--report is the input list"), "\(onList.stderr)")
        #expect(try unchanged(s.file("list.txt"), list))
        // An existing file that is not a results file is not replaced; an earlier report is.
        try "my notes\n".write(toFile: s.file("notes.txt"), atomically: true, encoding: .utf8)
        let onNotes = try CLI.run(["info", input, "--report", s.file("notes.txt")])
        #expect(onNotes.status == 73 && onNotes.stderr.contains("not a results file"), "\(onNotes.stderr)")
        #expect(try String(contentsOfFile: s.file("notes.txt"), encoding: .utf8) == "my notes\n")
        #expect(try CLI.run(["info", input, "--report", s.file("r.jsonl")]).status == 0)
        #expect(try CLI.run(["info", input, "--report", s.file("r.jsonl")]).status == 0)
        // An input list's output column naming the list itself.
        try "input,output\nin/f1.wav,self.csv\n".write(toFile: s.file("self.csv"), atomically: true, encoding: .utf8)
        let selfList = try Data(contentsOf: URL(fileURLWithPath: s.file("self.csv")))
        let onSelf = try CLI.run(["convert", "--input-list", s.file("self.csv"), "-o", s.file("p")] + convert)
        #expect(onSelf.status == 64 && onSelf.stderr.contains("is the input list"), "\(onSelf.stderr)")
        #expect(try unchanged(s.file("self.csv"), selfList))
    }

    @Test func frameDeframeDetectAndInfoTakeABatchToo() throws {
        let s = Scratch()
        try corpus(s, 3)
        let f = try CLI.run(["frame", s.file("in"), "--recursive", "--profile", "openai-realtime", "-o", s.file("fr")])
        #expect(f.status == 0, "\(f.stderr)")
        let framed = tree(s.file("fr"))
        #expect(framed.keys.sorted() == ["f1.jsonl", "f2.jsonl", "sub/f0.jsonl"])
        let single = try CLI.run([
            "frame", s.file("in/f1.wav"), "--profile", "openai-realtime", "-o", s.file("one.jsonl"),
        ])
        #expect(single.status == 0 && FileManager.default.contents(atPath: s.file("one.jsonl")) == framed["f1.jsonl"])
        let d = try CLI.run(["deframe", s.file("fr"), "--recursive", "--direction", "client", "-o", s.file("df")])
        #expect(d.status == 0 && tree(s.file("df")).count == 3, "\(d.stderr)")
        let trace = try CLI.run(["deframe", s.file("fr"), "--recursive", "-o", s.file("x"), "--trace", s.file("t.csv")])
        #expect(trace.status == 64 && trace.stderr.contains("--trace"))
        let v = try CLI.run(["vad", "detect", s.file("in"), "--format", "json", "-o", s.file("vad")])
        #expect(v.status == 0 && tree(s.file("vad")).keys.sorted() == ["f1.json", "f2.json"], "\(v.stderr)")
        let i = try CLI.run(["info", s.file("in"), "--recursive", "--json"])
        #expect(i.status == 0 && i.stderr.contains("3 files: 3 ok"))
        let reports = try #require(try JSONSerialization.jsonObject(with: i.stdout) as? [[String: Any]])
        #expect(reports.count == 3)
    }
}
