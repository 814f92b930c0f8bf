import AudioPipelineWorkflows
import Foundation
import Testing
import _AudioPipelineTestSupport

/// Every leaf command's `--json` is its workflow's report type: decoding it back must succeed (and
/// the report goes to stderr when the command writes data to stdout).
@Suite struct JSONReports {
    func decode<T: Decodable>(_ type: T.Type, _ args: [String], fromStderr: Bool = false) throws -> T {
        let r = try CLI.run(args + ["--json"])
        #expect(r.status == 0, "\(args): \(r.stderr)")
        let data = fromStderr ? Data(r.stderr.utf8) : r.stdout
        return try JSONDecoder().decode(T.self, from: data)
    }

    @Test func info() throws {
        let r = try decode([InfoReport].self, ["info", mic, phone])
        #expect(r.count == 2 && r[1].channels == 2 && r[1].perChannel.count == 2)
    }

    @Test func convert() throws {
        let s = Scratch()
        let r = try decode(ConvertReport.self, ["convert", phone, s.file("o.wav"), "-r", "16000", "-c", "1"])
        #expect(r.outputFormat.sampleRate == 16_000 && r.resampler == "native-high")
        let piped = try CLI.run(["convert", mic, "-", "--type", "raw", "--json"])
        let onStderr = try JSONDecoder().decode(ConvertReport.self, from: Data(piped.stderr.utf8))
        #expect(
            onStderr.output == "-" && piped.stdout.count == 2 * onStderr.framesOut,
            "audio on stdout, the report on stderr")
    }

    @Test func frameAndDeframe() throws {
        let s = Scratch()
        let f = try decode(FrameReport.self, ["frame", mic, "--profile", "gemini-live", "-o", s.file("m.jsonl")])
        #expect(f.profile == "gemini-live" && f.audioMessages > 0)
        let d = try decode(
            DeframeReport.self, ["deframe", s.file("m.jsonl"), "-o", s.file("b.wav"), "--direction", "client"])
        #expect(d.audioMessages == f.audioMessages && d.direction == "client")
    }

    @Test func jitterSimulateAndPlay() throws {
        let s = Scratch()
        #expect(
            try CLI.run([
                "deframe", root + "/samples/agent-session.jsonl", "-o", s.file("a.wav"), "--trace", s.file("t.csv"),
            ]).status == 0)
        let sim = try decode(
            JitterSimulationReport.self, ["jitter", "simulate", s.file("t.csv"), "-o", s.file("p.csv")])
        #expect(sim.run.packetCount > 0 && sim.metrics.packets == sim.run.packetCount)
        let play = try decode(
            JitterPlaybackReport.self, ["jitter", "play", root + "/samples/agent-session.jsonl", "-o", s.file("h.wav")])
        #expect(play.run.interruptions == 1 && play.metrics.flushes == 1)
    }

    @Test func vadDetectAndTune() throws {
        let s = Scratch()
        let d = try decode(
            VADDetectReport.self, ["vad", "detect", root + "/samples/bargein-mic-16k.wav", "-o", s.file("l.txt")])
        #expect(!d.segments.isEmpty)
        let labelsOnStdout = try CLI.run(["vad", "detect", root + "/samples/bargein-mic-16k.wav", "--json"])
        #expect(
            try JSONDecoder().decode(VADDetectReport.self, from: Data(labelsOnStdout.stderr.utf8)).segments
                == d.segments)
        try FileManager.default.createDirectory(atPath: s.file("c"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "/samples/bargein-mic-16k.wav", toPath: s.file("c/a.wav"))
        try "2.54\t4.65\tspeech\n".write(toFile: s.file("c/a.txt"), atomically: true, encoding: .utf8)
        let t = try decode(
            VADTuningSummary.self,
            [
                "vad", "tune", "--audio", s.file("c"), "--labels", s.file("c"), "--report", s.file("r"),
                "--set", "enter_db=8,10", "--no-limits",
            ])
        // --set replaces its axis of the default grid (enter_db 8, 10 × 4 × 5 × 4).
        #expect(t.settings == 160 && t.files == 1 && t.baseline.setting["enter_db"] == 10)
        let file = try JSONDecoder().decode(
            VADTuningSummary.self, from: Data(contentsOf: URL(fileURLWithPath: s.file("r/summary.json"))))
        #expect(file.baseline == t.baseline && file.chosen == t.chosen && file.use == t.use)
    }

    @Test func analyzeResampler() throws {
        let r = try decode(
            [ResamplerQuality].self,
            [
                "analyze", "resampler", "--from", "48000", "--to", "16000",
                "--resampler", "native-fast", "--no-speed",
            ])
        // 48 → 16 kHz: the file path's own design (the half-band cascade) has a row of its own.
        #expect(r.map(\.resampler) == ["native-fast", "native-fast (file path)"])
    }
}
