import Foundation
import Testing
import _AudioPipelineTestSupport

/// Outputs that are not regular files are written, not replaced; inputs that are not regular files
/// are read; damaged input is never silent; usage mistakes get a sentence and exit 64.
@Suite struct SpecialFiles {
    @Test func aSeekableStandardOutputGetsAWholeWAV() throws {
        let s = Scratch()
        let r = try runTool(
            "/bin/sh", ["-c", "'\(CLI.binary)' convert '\(mic)' - --type wav -q > '\(s.file("o.wav"))'"])
        #expect(r.status == 0, "\(r.err)")
        let info = try CLI.run(["info", "--json", s.file("o.wav")])
        #expect(info.status == 0 && info.text.contains("\"frames\" : 39242"), "\(info.text)")
        // The header is libsndfile's own (sizes filled in), not the streaming one.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: s.file("o.wav")))
        #expect(bytes[4..<8] != Data([0xFF, 0xFF, 0xFF, 0xFF]))
    }

    @Test func devicesAndFIFOsAreWrittenInPlace() throws {
        #expect(try CLI.run(["convert", mic, "/dev/null", "--type", "wav"]).status == 0)
        var st = stat()
        #expect(stat("/dev/null", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR, "still a device")
        let s = Scratch()
        #expect(mkfifo(s.file("p.jsonl"), 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat '\(s.file("p.jsonl"))' > '\(s.file("copy.jsonl"))'"]
        try reader.run()
        #expect(try CLI.run(["frame", mic, "--profile", "gemini-live", "-o", s.file("p.jsonl")]).status == 0)
        reader.waitUntilExit()
        #expect(try String(contentsOfFile: s.file("copy.jsonl"), encoding: .utf8).hasPrefix(#"{"realtimeInput""#))
        #expect(s.contents == ["copy.jsonl", "p.jsonl"], "no temporary file beside the FIFO")
    }

    @Test func everyWriteToStandardOutputIsChecked() throws {
        for args in [
            ["info", "--json", mic], ["deframe", fixtures + "/openai-server.jsonl", "-o", "/dev/null", "--json"],
        ] {
            let r = try runTool(
                "/bin/sh", ["-c", "'\(CLI.binary)' " + args.map { "'\($0)'" }.joined(separator: " ") + " > /dev/full"])
            #expect(r.status == 74 && r.err.contains("No space left"), "\(args): \(r.status) \(r.err)")
        }
    }

    @Test func processSubstitutionsAndFIFOsAreReadLikeStdin() throws {
        let r = try runTool("/bin/bash", ["-c", "'\(CLI.binary)' info <(cat '\(mic)')"])
        #expect(r.status == 0 && r.out.contains("16000 Hz"), "\(r.err)")
        let d = try runTool(
            "/bin/bash",
            [
                "-c",
                "'\(CLI.binary)' deframe <(cat '\(fixtures)/openai-server.jsonl') -o /dev/null --profile openai-realtime",
            ])
        #expect(d.status == 0, "\(d.err)")
        let zero = try CLI.run(["info", "/dev/zero"])
        #expect(zero.status == 66 && zero.stderr.contains("device") && zero.stderr.contains("never end"))
    }

    /// An empty output path, or one ending in a slash, is refused before anything is written: it
    /// used to be found only when the finished file was renamed onto it, after the run's other
    /// output (deframe's WAV beside an empty --trace) had been put in place and was left there.
    @Test func anEmptyOrDirectoryOutputPathIsRefusedAndLeavesNothing() throws {
        let s = Scratch()
        let session = root + "/samples/agent-session.jsonl"
        let trace = try CLI.run(["deframe", session, "-o", s.file("a.wav"), "--trace", ""])
        #expect(trace.status == 73 && trace.stderr.contains("an empty output path"), "\(trace.stderr)")
        let labels = try CLI.run(["vad", "detect", root + "/samples/vad/bargein.wav", "-o", s.file("missing") + "/"])
        #expect(labels.status == 73 && labels.stderr.contains("names a directory, not a file"), "\(labels.stderr)")
        let frames = try CLI.run([
            "vad", "detect", root + "/samples/vad/bargein.wav", "--frames", "", "-o", s.file("l.txt"),
        ])
        #expect(frames.status == 73 && !frames.stderr.contains("segments"), "\(frames.stderr)")
        let report = try CLI.run([
            "session", "simulate", "--agent", root + "/samples/scenario/agent-24k.wav", "--user",
            root + "/samples/scenario/user-16k.wav", "-o", "",
        ])
        #expect(report.status == 73 && report.stderr.contains("an empty output directory path"), "\(report.stderr)")
        // --jobs out of range is refused in every mode, also one session's, which runs none at once.
        let jobs = try CLI.run([
            "session", "simulate", "--agent", root + "/samples/scenario/agent-24k.wav", "--user",
            root + "/samples/scenario/user-16k.wav", "-o", s.file("sim"), "--jobs", "0",
        ])
        #expect(jobs.status == 64 && jobs.stderr.contains("--jobs 0"), "\(jobs.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path).isEmpty)
    }

    @Test func jitterSimulateRefusesToWriteOntoItsTrace() throws {
        let s = Scratch()
        let (trace, _) = JitterTraceFixture.small(s)
        let before = try Data(contentsOf: URL(fileURLWithPath: trace))
        let r = try CLI.run(["jitter", "simulate", trace, "-o", trace])
        #expect(r.status == 64 && r.stderr.contains("output is the input"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: trace)) == before)
    }
}

@Suite struct DamagedInput {
    @Test func aCompressedFileThatCannotBeDecodedIsBadDataNotAnIOError() throws {
        let s = Scratch()
        #expect(try CLI.run(["convert", mic, s.file("m.flac")]).status == 0)
        let flac = try Data(contentsOf: URL(fileURLWithPath: s.file("m.flac")))
        try flac.prefix(flac.count / 2).write(to: URL(fileURLWithPath: s.file("cut.flac")))
        let r = try CLI.run(["convert", s.file("cut.flac"), s.file("o.wav")])
        #expect(r.status == 65 && r.stderr.contains("cut.flac: cannot decode after"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.file("o.wav")))
    }

    @Test func aTruncatedFileIsAWarningOrWithStrictAnError() throws {
        let s = Scratch()
        let wav = try Data(contentsOf: URL(fileURLWithPath: mic))
        try wav.prefix(40_000).write(to: URL(fileURLWithPath: s.file("t.wav")))
        let r = try CLI.run(["convert", s.file("t.wav"), s.file("o.wav"), "--json"])
        #expect(r.status == 0)
        #expect(
            r.stderr.contains("warning") && r.stderr.contains("truncated") && r.stderr.contains("1.204 s"),
            "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect((o["warnings"] as? [String])?.first?.contains("truncated") == true)
        let strict = try CLI.run(["convert", s.file("t.wav"), s.file("p.wav"), "--strict"])
        #expect(strict.status == 65 && !FileManager.default.fileExists(atPath: s.file("p.wav")))
        #expect(try CLI.run(["info", "--strict", s.file("t.wav")]).status == 65)
        #expect(
            try CLI.run(["frame", s.file("t.wav"), "--profile", "gemini-live", "--strict", "-o", s.file("m.jsonl")])
                .status == 65)
        // The same bytes on a pipe (where the length is unknown until the end): the same verdict. A
        // whole file on a pipe, and a streaming writer's placeholder length, are no truncation.
        let piped = try CLI.run(["convert", "-", s.file("q.wav"), "--strict"], stdin: wav.prefix(40_000))
        #expect(piped.status == 65 && piped.stderr.contains("stdin: truncated"), "\(piped.stderr)")
        #expect(try CLI.run(["convert", "-", s.file("w.wav"), "--strict"], stdin: wav).status == 0)
        var streamed = wav
        withUnsafeBytes(of: UInt32(0x7FFF_F000).littleEndian) { streamed.replaceSubrange(40..<44, with: $0) }
        let placeholder = try CLI.run(["convert", "-", s.file("x.wav"), "--strict"], stdin: streamed)
        #expect(placeholder.status == 0, "\(placeholder.stderr)")
    }

    @Test func infoCountsNaNAndInfinity() throws {
        let s = Scratch()
        // A float WAV whose samples 1000 and 1001 are NaN and +Inf.
        #expect(try CLI.run(["convert", mic, s.file("f.wav"), "-e", "float32"]).status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: s.file("f.wav")))
        let dataStart = bytes.count - 39242 * 4
        withUnsafeBytes(of: Float.nan.bitPattern.littleEndian) {
            bytes.replaceSubrange((dataStart + 4000)..<(dataStart + 4004), with: $0)
        }
        withUnsafeBytes(of: Float.infinity.bitPattern.littleEndian) {
            bytes.replaceSubrange((dataStart + 4004)..<(dataStart + 4008), with: $0)
        }
        try bytes.write(to: URL(fileURLWithPath: s.file("f.wav")))
        let r = try CLI.run(["info", "--json", s.file("f.wav")])
        let o = try #require((try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]])?.first)
        #expect(o["nonFiniteSamples"] as? Int == 2)
        #expect(abs((o["firstNonFiniteSecond"] as? Double ?? 0) - 1000.0 / 16000) < 1e-9)
        #expect(r.stderr.contains("NaN or infinite"))
        // Every job reads NaN as 0 and +inf as full scale and says so: a conversion (resampled and
        // to PCM16 or float) carries none into its output and counts them; --strict refuses; the VAD
        // is not poisoned (the same segments; the full-scale click just before the speech, at
        // 62.5 ms, may move its onset a frame or two).
        for extra in [["-r", "24000"], ["-r", "8000", "-e", "float32"]] {
            let c = try CLI.run(["convert", s.file("f.wav"), s.file("o.wav"), "--json"] + extra)
            #expect(c.status == 0 && c.stderr.contains("2 samples are NaN or infinite"), "\(c.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: c.stdout) as? [String: Any])
            #expect(report["nanSamples"] as? Int == 2)
            let info = try CLI.run(["info", "--json", s.file("o.wav")])  // (counts before reading as 0)
            let o = try #require((try JSONSerialization.jsonObject(with: info.stdout) as? [[String: Any]])?.first)
            #expect(o["nonFiniteSamples"] as? Int == 0 && (o["clippedSamples"] as? Int ?? 0) == 0, "\(o)")
        }
        let strict = try CLI.run(["convert", s.file("f.wav"), s.file("p.wav"), "--strict"])
        #expect(strict.status == 65 && strict.stderr.contains("NaN or infinite") && !s.contents.contains("p.wav"))
        let clean = try CLI.run(["vad", "detect", mic, "--format", "csv"])
        let v = try CLI.run(["vad", "detect", s.file("f.wav"), "--format", "csv"])
        #expect(v.status == 0 && v.stderr.contains("NaN or infinite"), "\(v.stderr)")
        func times(_ text: String) -> [[Double]] {
            text.split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        }
        let segments = times(v.text), cleanSegments = times(clean.text)
        #expect(segments.count == cleanSegments.count && segments.map(\.last) == cleanSegments.map(\.last))
        #expect(zip(segments, cleanSegments).allSatisfy { abs($0[0] - $1[0]) <= 0.03 }, "\(v.text)")
        let f = try CLI.run(["frame", s.file("f.wav"), "--profile", "gemini-live", "-o", s.file("m.jsonl")])
        #expect(f.status == 0 && f.stderr.contains("NaN or infinite"), "\(f.stderr)")
    }

    @Test func ditherWithAFloatOutputIsRefused() throws {
        let s = Scratch()
        let r = try CLI.run(["convert", mic, s.file("o.wav"), "-e", "float32", "--dither", "tpdf"])
        #expect(r.status == 64 && r.stderr.contains("--dither"))
    }

    @Test func aPauseOfHoursIsShortenedNotPlayed() throws {
        let s = Scratch()
        let trace =
            "seq,send_ms,arrival_ms,duration_ms,media_ms,utt\n0,0,10,20,0,0\n1,20,30,20,20,0\n2,900000000,900000010,20,0,1\n"
        try trace.write(toFile: s.file("t.csv"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["jitter", "simulate", s.file("t.csv"), "-o", s.file("p.csv"), "--json"])
        #expect(r.status == 0)
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect((o["warnings"] as? [String])?.first?.contains("shortened") == true)
    }
}

@Suite struct UsageMistakes {
    @Test(arguments: [[], ["jitter"], ["vad"], ["analyze"]])
    func aMissingSubcommandIsAUsageError(args: [String]) throws {
        let r = try CLI.run(args)
        #expect(r.status == 64 && r.text.isEmpty && r.stderr.contains("Usage"))
    }

    @Test func aFileThatLooksLikeAnOptionGetsAHint() throws {
        let s = Scratch()
        try FileManager.default.copyItem(atPath: mic, toPath: s.file("-in.wav"))
        let r = try runTool("/bin/sh", ["-c", "cd '\(s.path)' && '\(CLI.binary)' convert -in.wav out.wav"])
        #expect(r.status == 64 && r.err.contains("./-in.wav") && r.err.contains("--"), "\(r.err)")
    }

    @Test func aFileGivenAsTheReportDirectoryGetsASentence() throws {
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("c"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "/samples/bargein-mic-16k.wav", toPath: s.file("c/a.wav"))
        try "2.54\t4.65\tspeech\n".write(toFile: s.file("c/a.txt"), atomically: true, encoding: .utf8)
        try "x".write(toFile: s.file("rep"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["vad", "tune", "--audio", s.file("c"), "--labels", s.file("c"), "--report", s.file("rep")])
        #expect(
            r.status == 73 && r.stderr.contains("is not a directory") && !r.stderr.contains("NSError"), "\(r.stderr)")
    }

    @Test func aFileNameWithANewlineOrAnEscapeCannotSplitOrColourAnError() throws {
        let s = Scratch()
        try "not audio".write(toFile: s.file("a\nb.wav"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["info", s.file("a\nb.wav")])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("a\\nb.wav"), "\(r.stderr)")
        let e = try CLI.run(["info", s.file("x\u{1B}[31m.wav")])
        #expect(e.status == 66 && !e.stderr.contains("\u{1B}") && e.stderr.contains("x\\u{1b}[31m.wav"), "\(e.stderr)")
        // Found by a directory walk (not an argument), and with a tab: still one line per error.
        try FileManager.default.createDirectory(atPath: s.file("d"), withIntermediateDirectories: true)
        try "not audio".write(toFile: s.file("d/nl\n\tname.wav"), atomically: true, encoding: .utf8)
        let walked = try CLI.run(["vad", "detect", s.file("d"), "-o", s.file("labels")])
        let lines = walked.stderr.split(separator: "\n")
        #expect(walked.status == 65 && lines.allSatisfy { $0.hasPrefix("audiopipe: ") }, "\(walked.stderr)")
        #expect(walked.stderr.contains("nl\\n\\tname.wav") && !walked.stderr.contains("\t"), "\(walked.stderr)")
    }

    @Test func aValueOutOfRangeInsideAFileIsBadData() throws {
        let s = Scratch()
        try #"{"enter_db": 99}"#.write(toFile: s.file("c.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["vad", "detect", mic, "--config", s.file("c.json")])
        #expect(r.status == 65 && r.stderr.contains("c.json") && r.stderr.contains("enter_db"))
    }
}

/// Inputs that once passed silently: each is now refused with its option or file named.
@Suite struct ContradictionsAndEmptyValues {
    @Test func areRefusedWithTheirOptionNamed() throws {
        let s = Scratch()
        try Data(count: 3200).write(to: URL(fileURLWithPath: s.file("silent.raw")))
        #expect(
            try CLI.run([
                "convert", s.file("silent.raw"), s.file("silent.wav"), "--in-rate", "16000", "--in-channels", "1",
                "--in-encoding", "pcm16",
            ]).status == 0)
        let cases: [([String], Int32, String)] = [
            (["vad", "tune", "--audio", s.path, "--report", s.file("r"), "--set", "enter_db=10,,12"], 64, "--set"),
            (
                ["vad", "tune", "--audio", s.path, "--report", s.file("r"), "--reference-suffix", ""], 64,
                "--reference-suffix"
            ),
            (
                [
                    "session", "simulate", "--agent", SessionCommand.agent, "--echo-ir", mic, "--no-echo", "-o",
                    s.file("o"),
                ],
                64, "--no-echo"
            ),
            (["session", "simulate", "--scenarios", s.path, "-o", s.file("o")], 66, "no scenario files"),
            (["session", "simulate", "--scenarios", s.path, "--sweep", "seed=1,2", "-o", s.file("o")], 64, "--sweep"),
            (
                [
                    "session", "simulate", "--agent", SessionCommand.agent, "--trace", mic, "--network", "delay=40",
                    "-o", s.file("o"),
                ],
                64, "--trace"
            ),
            (
                ["session", "simulate", "--agent", SessionCommand.agent, "--network", "", "-o", s.file("o")], 64,
                "--network"
            ),
            (
                [
                    "session", "simulate", "--agent", SessionCommand.agent, "--echo-ir", s.file("silent.wav"), "-o",
                    s.file("o"),
                ], 65, "silent"
            ),
            (["deframe", fixtures + "/session.har", "-o", s.file("a.mp3")], 64, "a.mp3"),
        ]
        for (args, status, named) in cases {
            let r = try CLI.run(args)
            #expect(r.status == status && r.stderr.contains(named), "\(args): \(r.status) \(r.stderr)")
        }
        #expect(s.contents == ["silent.raw", "silent.wav"], "\(s.contents)")
        // A .flac name gets FLAC (it was WAV data under that name).
        #expect(try CLI.run(["deframe", fixtures + "/session.har", "-o", s.file("a.flac")]).status == 0)
        let info = try CLI.run(["info", "--json", s.file("a.flac")])
        #expect(info.text.contains("\"container\" : \"flac\""), "\(info.text)")
    }
}
