import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing

/// 5 s at 16 kHz: a loud triangle wave (pipecat's volume ≈ 0.9) from 1 to 2 s and from 3 to 3.5 s,
/// silence elsewhere.
private func recording(_ path: String) throws {
    let x: [Float] = (0..<80_000).map { n in
        let t = Double(n) / 16_000
        let on = (t >= 1 && t < 2) || (t >= 3 && t < 3.5)
        return on ? Float((n % 40 < 20 ? n % 40 : 40 - n % 40) - 10) * 800 / 32768 : 0
    }
    let w = try AudioFileWriter(
        path: path, type: .wav, encoding: .pcm16,
        format: try StreamFormat(sampleRate: try SampleRate(16_000), channels: 1))
    try x.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try w.write(p) }
    try w.commit()
}

/// Scores of 512-sample windows: 0.95 in the speech, 0.02 elsewhere; `rows` windows (156 cover 5 s).
private func scores(_ path: String, rows: Int = 156, edit: (inout [String]) -> Void = { _ in }) throws {
    var lines = ["time_s,confidence"]
    for k in 0..<rows {
        let end = Double(k + 1) * 0.032
        let mid = end - 0.016
        let speech = (mid >= 1 && mid < 2) || (mid >= 3 && mid < 3.5)
        lines.append(String(format: "%.6f,%@", end, speech ? "0.95" : "0.02"))
    }
    edit(&lines)
    try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
}

private func segments(_ text: String) -> [(Double, Double)] {
    text.split(separator: "\n").map { l in
        let f = l.split(separator: "\t")
        return (Double(f[0])!, Double(f[1])!)
    }
}

@Suite struct VADDetectScores {
    @Test func pipecatReportsOnItsOwnTimeline() throws {
        let s = Scratch()
        try recording(s.file("a.wav"))
        try scores(s.file("a.csv"))
        try #"{"pipecat": {"start_secs": 0.064, "stop_secs": 0.096}}"#.write(
            toFile: s.file("c.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "vad", "detect", s.file("a.wav"), "--scores", s.file("a.csv"), "--config", s.file("c.json"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let seg = segments(r.text)
        // The volume needs ~0.4 s of loud audio to pass 0.6 after smoothing, so speech starts later
        // than the scores alone would say; it stops 3 windows after the scores fall, on a chunk's end.
        #expect(seg.count == 2)
        #expect(seg[0].0 > 1.1 && seg[0].0 < 1.5)
        #expect(seg[0].1 > 2.0 && seg[0].1 < 2.2)
        #expect(seg.allSatisfy { (($0.0 * 1000).rounded()).truncatingRemainder(dividingBy: 20) == 0 })
        // The same scores with Windows line ends read the same ("\r\n" is one Character in Swift).
        let text = try String(contentsOfFile: s.file("a.csv"), encoding: .utf8)
        try text.replacingOccurrences(of: "\n", with: "\r\n").write(
            toFile: s.file("w.csv"), atomically: true, encoding: .utf8)
        let w = try CLI.run([
            "vad", "detect", s.file("a.wav"), "--scores", s.file("w.csv"), "--config", s.file("c.json"),
        ])
        #expect(w.status == 0 && w.text == r.text, "\(w.stderr)")
    }

    @Test func liveKitOptionsAndItsDefaults() throws {
        let s = Scratch()
        try recording(s.file("a.wav"))
        try scores(s.file("a.csv"))
        try #"{"livekit": {}}"#.write(toFile: s.file("c.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "vad", "detect", s.file("a.wav"), "--scores", s.file("a.csv"), "--config", s.file("c.json"),
            "--format", "json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        #expect(o["timeline"] as? String == "livekit")
        let emulated = (o["emulated"] as? [String: [String: Double]])?["livekit"]
        #expect(emulated?["min_silence_duration"] == 0.55)
        // Starts at the end of the second speech window (0.064 s ≥ 0.05 s of speech).
        let first = (o["segments"] as! [[String: Any]])[0]
        #expect(abs((first["start"] as! Double) - 1.056) < 1e-9)
    }

    @Test(arguments: [
        ("missing", 66, "no score file"),
        ("short", 65, "shorter than"),
        ("long", 65, "longer than"),
        ("order", 65, "a.csv:11: time_s 0.352 is not on the grid"),
        ("range", 65, "a.csv:5: confidence 1.5 is outside"),
        ("header", 65, "a.csv:1: the header"),
    ])
    func badScoresAreNamedWithTheirLine(_ kind: String, _ status: Int32, _ message: String) throws {
        let s = Scratch()
        try recording(s.file("a.wav"))
        switch kind {
        case "missing": break
        case "short": try scores(s.file("a.csv"), rows: 150)
        case "long": try scores(s.file("a.csv"), rows: 160)
        case "order": try scores(s.file("a.csv")) { $0.swapAt(10, 11) }
        case "range": try scores(s.file("a.csv")) { $0[4] = "0.128000,1.5" }
        default: try scores(s.file("a.csv")) { $0[0] = "t,p" }
        }
        try #"{"pipecat": {}}"#.write(toFile: s.file("c.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "vad", "detect", s.file("a.wav"), "--scores", s.file("a.csv"), "--config", s.file("c.json"),
        ])
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(r.text.isEmpty)
    }

    @Test func aConfidenceJustOutsideTheRangeIsClampedWithAWarning() throws {
        let s = Scratch()
        try recording(s.file("a.wav"))
        try scores(s.file("a.csv")) { $0[40] = "1.280000,1.0004" }
        try #"{"pipecat": {}}"#.write(toFile: s.file("c.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "vad", "detect", s.file("a.wav"), "--scores", s.file("a.csv"), "--config", s.file("c.json"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("a.csv:41: 1 confidence just outside 0…1 clamped"), "\(r.stderr)")
    }

    @Test func scoresNeedAFrameworkConfiguration() throws {
        let s = Scratch()
        try recording(s.file("a.wav"))
        try scores(s.file("a.csv"))
        let bare = try CLI.run(["vad", "detect", s.file("a.wav"), "--scores", s.file("a.csv")])
        #expect(bare.status == 64 && bare.stderr.contains("--scores needs --config"), "\(bare.stderr)")
        try #"{"enter_db": 9}"#.write(toFile: s.file("e.json"), atomically: true, encoding: .utf8)
        let energy = try CLI.run([
            "vad", "detect", s.file("a.wav"), "--scores", s.file("a.csv"), "--config", s.file("e.json"),
        ])
        #expect(energy.status == 65 && energy.stderr.contains("{\"pipecat\""), "\(energy.stderr)")
        try #"{"pipecat": {"confidence": 2}}"#.write(toFile: s.file("p.json"), atomically: true, encoding: .utf8)
        let range = try CLI.run([
            "vad", "detect", s.file("a.wav"), "--scores", s.file("a.csv"), "--config", s.file("p.json"),
        ])
        #expect(range.status == 65 && range.stderr.contains("confidence must be in 0…1"), "\(range.stderr)")
    }
}

@Suite struct VADTuneEmulate {
    /// Six copies of the recording with its labels: the sweep runs, best.json holds the
    /// framework's options and the report the snippet to paste.
    @Test func writesTheFrameworksOptionsAndTheSnippet() throws {
        let s = Scratch()
        let audio = s.file("audio")
        let scoreDir = s.file("scores")
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scoreDir, withIntermediateDirectories: true)
        for k in 0..<6 {
            try recording(audio + "/r\(k).wav")
            try "1.0\t2.0\tspeech\n3.0\t3.5\tspeech\n".write(
                toFile: audio + "/r\(k).txt", atomically: true, encoding: .utf8)
            try scores(scoreDir + "/r\(k).csv")
        }
        let r = try CLI.run([
            "vad", "tune", "--audio", audio, "--scores", scoreDir, "--emulate", "livekit", "--report", s.file("rep"),
            "--max-onset-latency-ms", "1000", "--set", "min_silence_duration=0.1,0.3",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("silero.VAD.load("), "\(r.text)")
        let best = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: s.file("rep/best.json"))))
        let options = (best as! [String: Any])["livekit"] as? [String: Double]
        #expect(options?["activation_threshold"] != nil)
        let snippet = try String(contentsOfFile: s.file("rep/snippet.py"), encoding: .utf8)
        #expect(snippet.contains("min_silence_duration="))
        let sweep = try String(contentsOfFile: s.file("rep/sweep.csv"), encoding: .utf8)
        // 6 thresholds × 5 durations × (0.1, 0.3 and the default 0.55).
        #expect(sweep.split(separator: "\n").count == 1 + 6 * 5 * 3)
        // A grid file replaces its axes too (the default's value joins them).
        try #"{"activation_threshold": [0.4, 0.6]}"#.write(toFile: s.file("g.json"), atomically: true, encoding: .utf8)
        let g = try CLI.run([
            "vad", "tune", "--audio", audio, "--scores", scoreDir, "--emulate", "livekit", "--report", s.file("rep2"),
            "--no-limits", "--grid", s.file("g.json"),
        ])
        #expect(g.status == 0, "\(g.stderr)")
        let sweep2 = try String(contentsOfFile: s.file("rep2/sweep.csv"), encoding: .utf8)
        #expect(sweep2.split(separator: "\n").count == 1 + 3 * 5 * 5)
    }

    @Test func compareTunesEachFrameworkBesideTheEnergyVAD() throws {
        let s = Scratch()
        let audio = s.file("audio")
        let scoreDir = s.file("scores")
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scoreDir, withIntermediateDirectories: true)
        for k in 0..<3 {
            try recording(audio + "/r\(k).wav")
            try "1.0\t2.0\tspeech\n3.0\t3.5\tspeech\n".write(
                toFile: audio + "/r\(k).txt", atomically: true, encoding: .utf8)
            try scores(scoreDir + "/r\(k).csv")
        }
        try #"{"microseconds_per_10ms": 42.5}"#.write(
            toFile: scoreDir + "/timing.json", atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "vad", "tune", "--audio", audio, "--report", s.file("rep"), "--no-limits", "--compare",
            "livekit=" + scoreDir,
            "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        let rows = o["comparison"] as! [[String: Any]]
        #expect(rows.map { $0["vad"] as! String } == ["energy", "livekit"])
        #expect(rows[1]["microsecondsPer10ms"] as? Double == 42.5)
        #expect((rows[0]["microsecondsPer10ms"] as? Double ?? 0) > 0)
        #expect(FileManager.default.fileExists(atPath: s.file("rep/livekit/best.json")))
        let bad = try CLI.run(["vad", "tune", "--audio", audio, "--report", s.file("x"), "--compare", "webrtc=dir"])
        #expect(bad.status == 64 && bad.stderr.contains("--compare wants FRAMEWORK=SCORES_DIR"), "\(bad.stderr)")
    }

    @Test func aMissingScoreFileOrAnUnknownParameterIsNamed() throws {
        let s = Scratch()
        let audio = s.file("audio")
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        try recording(audio + "/r0.wav")
        try "1.0\t2.0\tspeech\n".write(toFile: audio + "/r0.txt", atomically: true, encoding: .utf8)
        let missing = try CLI.run([
            "vad", "tune", "--audio", audio, "--scores", s.file("none"), "--emulate", "pipecat", "--report",
            s.file("r"),
        ])
        #expect(missing.status == 66 && missing.stderr.contains("none/r0.csv: no score file"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.file("r")))
        let unknown = try CLI.run([
            "vad", "tune", "--audio", audio, "--scores", s.file("none"), "--emulate", "pipecat", "--report",
            s.file("r"),
            "--set", "enter_db=3,4",
        ])
        #expect(unknown.status == 64 && unknown.stderr.contains("pipecat has no parameter 'enter_db'"))
        let noScores = try CLI.run(["vad", "tune", "--audio", audio, "--emulate", "pipecat", "--report", s.file("r")])
        #expect(noScores.status == 64 && noScores.stderr.contains("--emulate needs --scores"))
        // Scores without --emulate tuned the energy VAD, silently.
        let noFramework = try CLI.run(["vad", "tune", "--audio", audio, "--scores", audio, "--report", s.file("r")])
        let named = noFramework.stderr.contains("name it with --emulate")
        #expect(noFramework.status == 64 && named, "\(noFramework.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.file("r")))
    }
}
