import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation
import Testing
import _AudioPipelineTestSupport

let samples = repositoryRoot + "/samples/"

/// The jobs called from Swift, in-process (the CLI tests run the same jobs through the binary).
@Suite struct ConvertJobs {
    @Test func phoneCaptureToTheVoiceAPIFormatReportsWhatItDid() throws {
        let dir = TempDir()
        var o = ConvertOptions()
        o.sampleRate = try SampleRate(16_000)
        o.channels = 1
        var seen: [JobProgress] = []
        let r = try FileConverter.convert(
            input: samples + "phone-capture-48k-f32-stereo.wav", output: dir.file("m.wav"), options: o
        ) { seen.append($0) }
        let inFrames = try #require(
            try AudioFileReader(path: samples + "phone-capture-48k-f32-stereo.wav").description.frames)
        #expect(r.framesIn == inFrames && r.framesOut == (inFrames + 2) / 3)
        #expect(
            r.inputFormat
                == ConvertReport.Format(container: "wav", encoding: "float32", sampleRate: 48_000, channels: 2))
        #expect(r.outputFormat == ConvertReport.Format(type: "wav", encoding: "pcm16", sampleRate: 16_000, channels: 1))
        #expect(r.resampler == "native-high" && r.resamplerLatencyFrames > 0)
        #expect(
            seen.last == JobProgress(done: inFrames, total: inFrames, unit: .frames(rate: 48_000)),
            "progress comes with its total")
        #expect(dir.contents == ["m.wav"])
        // The report round-trips through its JSON.
        let back = try JSONDecoder().decode(ConvertReport.self, from: Data(try ReportJSON.encode(r).utf8))
        #expect(back == r)
        // A report from before `resamplerHeldBackFrames` existed reads back, as 0.
        var old = try #require(
            try JSONSerialization.jsonObject(with: Data(ReportJSON.encode(r).utf8)) as? [String: Any])
        #expect(old.removeValue(forKey: "resamplerHeldBackFrames") != nil)
        let older = try JSONDecoder().decode(ConvertReport.self, from: try JSONSerialization.data(withJSONObject: old))
        #expect(older.resamplerHeldBackFrames == 0 && older.framesOut == r.framesOut)
    }

    /// A whole file goes through the native resampler's throughput mode: at 16 → 24 kHz (3 phases)
    /// it holds 8 cycles back and says so; the samples equal a streaming-mode resampler's.
    @Test func aFileUsesTheThroughputPathAndSaysSo() throws {
        let dir = TempDir()
        var o = ConvertOptions()
        o.sampleRate = try SampleRate(24_000)
        o.encoding = .float32
        let input = samples + "mic-16k-pcm16-mono.wav"
        let r = try FileConverter.convert(input: input, output: dir.file("o.wav"), options: o) { _ in }
        let vectorized = PolyphaseResampler.vectorKernelsAvailable
        #expect(r.resamplerHeldBackFrames == (vectorized ? 24 : 0))
        #expect(r.text.contains("throughput path") == vectorized)
        let (x, _, _) = try AudioLoader.mono(path: input)
        var streaming: any Resampler = try PolyphaseResampler(
            format: ResamplingFormat(from: SampleRate(16_000), to: SampleRate(24_000)))
        let (y, _, _) = try AudioLoader.mono(path: dir.file("o.wav"))
        #expect(y == streaming.processAll(x))
    }

    @Test func refusesToWriteOntoItsInputThroughALink() throws {
        let dir = TempDir()
        try FileManager.default.copyItem(atPath: samples + "mic-16k-pcm16-mono.wav", toPath: dir.file("a.wav"))
        try FileManager.default.createSymbolicLink(atPath: dir.file("b.wav"), withDestinationPath: dir.file("a.wav"))
        #expect(throws: AudioPipelineError.self) {
            try FileConverter.convert(input: dir.file("a.wav"), output: dir.file("b.wav"), options: ConvertOptions())
        }
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: dir.file("a.wav")))
                == Data(contentsOf: URL(fileURLWithPath: samples + "mic-16k-pcm16-mono.wav")))
    }
}

@Suite struct FrameAndDeframeJobs {
    /// frame then deframe, in-process: the PCM comes back bit for bit, and the reports agree.
    @Test(arguments: ["openai-realtime", "gemini-live", "deepgram"])
    func roundTrip(profile: String) throws {
        let dir = TempDir()
        let p = try ProfileLoader.load(profile)
        var c = ConvertOptions()
        c.sampleRate = try SampleRate(p.clientRate)
        let source = dir.file("in.wav")
        _ = try FileConverter.convert(input: samples + "mic-16k-pcm16-mono.wav", output: source, options: c)
        let messages = dir.file(p.isBinary ? "m.bin" : "m.jsonl")
        let f = try Framer.frame(input: source, output: messages, options: FrameOptions(profile: p))
        var d = DeframeOptions()
        d.profile = p
        d.direction = .client
        let r = try Deframer.deframe(input: messages, output: dir.file("back.wav"), options: d)
        #expect(r.audioMessages == f.audioMessages && r.rate == f.rate && r.profile == profile)
        #expect(firstDifference(try readAllInt16(dir.file("back.wav")), try readAllInt16(source)) == nil)
    }

    @Test func streamsASessionWithEventsAndATrace() throws {
        let dir = TempDir()
        var d = DeframeOptions()
        d.tracePath = dir.file("t.csv")
        let r = try Deframer.deframe(input: samples + "agent-session.jsonl", output: dir.file("a.wav"), options: d)
        #expect(r.profile == "openai-realtime" && r.interruptions == 1 && r.audioMessages > 100)
        let trace = try ArrivalTrace.readPackets(path: dir.file("t.csv"), sampleRate: 24_000)
        #expect(trace.count == r.audioMessages, "one trace row per audio message")
        #expect(dir.contents == ["a.wav", "t.csv"])
    }
}

@Suite struct JitterJobs {
    static let header = "seq,send_ms,arrival_ms,duration_ms,media_ms,utt\n"

    /// A steady stream plays every packet once, in order, with no loss; a flush cuts the rest.
    @Test func simulatesATraceInProcess() throws {
        var rows = Self.header
        for k in 0..<50 { rows += "\(k),\(20 * k),\(20 * k + 30 + (k % 3) * 5),20,\(20 * k),0\n" }
        let dir = TempDir()
        try rows.write(toFile: dir.file("t.csv"), atomically: true, encoding: .utf8)
        let packets = try ArrivalTrace.readPackets(path: dir.file("t.csv"), sampleRate: 24_000)
        let settings = JitterSettings()
        let result = try JitterSimulation(configuration: try settings.configuration(sampleRate: 24_000)).run(
            packets: packets, flushes: [])
        #expect(result.statistics.packetsReceived == 50 && result.statistics.samplesLate == 0)
        let played = Dictionary(grouping: result.rows, by: \.sequence).mapValues { $0.reduce(0) { $0 + $1.lengthMs } }
        #expect(played.count == 50 && played.values.allSatisfy { abs($0 - 20) < 1e-6 }, "every packet played whole")
        let cut = try JitterSimulation(configuration: try settings.configuration(sampleRate: 24_000))
            .run(packets: packets, flushes: [TraceFlush(timeMs: 500, throughUtterance: 0, line: 2)])
        #expect(cut.statistics.flushes == 1 && cut.rows.allSatisfy { $0.playMs < 525 })
    }

    @Test func playsACapturedSessionInProcess() throws {
        let dir = TempDir()
        let r = try JitterPlayback.play(
            input: samples + "agent-session.jsonl", output: dir.file("h.wav"), options: DeframeOptions(),
            settings: JitterSettings())
        #expect(r.run.interruptions == 1 && r.metrics.flushes == 1 && r.run.rate == 24_000)
        #expect(abs(Double(try readAllInt16(dir.file("h.wav")).count) / 24_000 - r.run.outputSeconds) < 1e-9)
    }

    @Test func settingsOutOfRangeNameTheOption() throws {
        for (path, value) in [(\JitterSettings.holeWaitMs, 1e300), (\.maxStallMs, .nan), (\.marginMs, .infinity)]
            as [(WritableKeyPath<JitterSettings, Double?>, Double)]
        {
            var s = JitterSettings()
            s[keyPath: path] = value
            #expect(throws: AudioPipelineError.self) { try s.validate() }
        }
    }
}

@Suite struct VADJobs {
    /// `vad tune` from Swift: corpus, sweep, report — and a per-file.csv whose names hold commas and
    /// quotes reads back with Python's csv module column for column.
    @Test func tunesAndWritesAReportThatSurvivesOddFileNames() throws {
        let dir = TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("c"), withIntermediateDirectories: true)
        let names = ["plain", "with, comma", "with \"quotes\""]
        for n in names {
            try FileManager.default.copyItem(atPath: samples + "bargein-mic-16k.wav", toPath: dir.file("c/\(n).wav"))
            try "2.54\t4.65\tspeech\n".write(toFile: dir.file("c/\(n).txt"), atomically: true, encoding: .utf8)
        }
        var o = VADTuneOptions(
            audioDirectory: dir.file("c"), labelDirectory: dir.file("c"), reportDirectory: dir.file("rep"))
        o.grid = VADGrid(axes: [("enter_db", [8, 10]), ("hangover_ms", [100])])
        o.constraints = VADConstraints(maxFalseAlarm: nil, maxFalseTriggersPerMinute: nil, maxOnsetLatencyMs: nil)
        var notes: [String] = []
        let s = try VADTuner.tune(o, notes: { notes.append($0) })
        #expect(s.files == 3 && s.settings == 2 && notes.contains("3 files (0 with a reference), 2 settings, 3 folds"))
        // best.json holds the setting to use: the chosen one or the baseline kept.
        let best = try VADConfigurationFile.read(dir.file("rep/best.json"))
        let used = s.use == "chosen" ? s.chosen! : s.baseline
        #expect(best.enterThreshold == used.setting["enter_db"])
        let script =
            "import csv,sys\nrows=list(csv.reader(open(sys.argv[1])))\nprint(len(rows), set(map(len,rows)), [r[0] for r in rows[1:]])"
        let py = try runTool("/usr/bin/env", ["python3", "-c", script, dir.file("rep/per-file.csv")])
        #expect(py.status == 0, "\(py.err)")
        // file, reference, then the 16 metrics (12 by frames, 4 of barge-ins: empty without a reference).
        #expect(py.out.hasPrefix("4 {18}"), "\(py.out)")
        #expect(names.allSatisfy { py.out.contains("'\($0)'") }, "\(py.out)")
        // Plots exist under URL-safe names, and the page links them.
        let page = try String(contentsOfFile: dir.file("rep/index.html"), encoding: .utf8)
        let plots = try FileManager.default.contentsOfDirectory(atPath: dir.file("rep/plots"))
        #expect(
            plots.count == 3
                && plots.allSatisfy { p in p.allSatisfy { $0.isASCII && !" ,\"".contains($0) } && page.contains(p) })
    }

    @Test func aGridTooLargeIsRefusedBeforeAnythingIsBuilt() throws {
        let grid = VADGrid(
            axes: VADConfiguration.parameterNames.prefix(5).map { ($0, Array(stride(from: 0.0, to: 39, by: 1))) })
        #expect(throws: AudioPipelineError.self) { try VADSweep.settings(base: VADConfiguration(), grid: grid) }
    }

    /// A grid with no valid setting names the parameter that fails and why, not a guess.
    @Test func aGridWithNoValidSettingSaysWhichParameterFails() throws {
        for (grid, fragment) in [
            (VADGrid(axes: [("enter_db", [8, 10]), ("hangover_ms", [-5])]), "hangover_ms must be in [0, 5000]"),
            (VADGrid(axes: [("frame_ms", [15])]), "frame_ms must be 10, 20 or 30"),
            (VADGrid(axes: [("exit_db", [12]), ("enter_db", [10])]), "exit_db (12.0) must not exceed enter_db"),
        ] {
            #expect {
                try VADSweep.settings(base: VADConfiguration(), grid: grid)
            } throws: { ($0 as? AudioPipelineError)?.message.contains(fragment) == true }
        }
        // Settings that are valid are swept; the invalid ones among them are left out.
        let mixed = VADGrid(axes: [("exit_db", [2, 12])])
        #expect(try VADSweep.settings(base: VADConfiguration(), grid: mixed).map { $0.values["exit_db"] } == [2])
    }

    /// `vad detect` streams the file when it can: the same decisions as over the whole signal, for
    /// mono PCM16 and for stereo float at 48 kHz (mixed to mono block by block).
    @Test func aStreamedDetectionDecidesAsTheWholeFileDoes() throws {
        for name in ["bargein-mic-16k.wav", "phone-capture-48k-f32-stereo.wav"] {
            let streamed = try VADRun.streaming(path: samples + name, configuration: VADConfiguration())
            let (mono, rate, _) = try AudioLoader.mono(path: samples + name)
            let whole = try VADRun(samples: mono, rate: rate, reference: nil, configuration: VADConfiguration())
            #expect(streamed.rate == rate && streamed.run.duration == whole.duration)
            #expect(streamed.run.frames == whole.frames, "\(name)")
            #expect(streamed.run.frames.contains { $0.speech }, "\(name): speech to compare")
        }
    }

    @Test func detectsInProcess() throws {
        let dir = TempDir()
        var o = VADDetectOptions()
        o.reference = samples + "bargein-mic-16k.ref.wav"
        o.format = .json
        let r = try VADDetector.detect(input: samples + "bargein-mic-16k.wav", output: dir.file("v.json"), options: o)
        let back = try JSONDecoder().decode(
            VADDetectReport.self, from: Data(contentsOf: URL(fileURLWithPath: dir.file("v.json"))))
        #expect(back == r && !r.segments.isEmpty && r.configuration["enter_db"] == 10)
    }
}
