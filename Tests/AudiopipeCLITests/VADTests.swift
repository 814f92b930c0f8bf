import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation
import Testing
import _AudioPipelineTestSupport

private func writeWAV(_ path: String, _ samples: [Float], rate: Int, channels: Int = 1) throws {
    let w = try AudioFileWriter(
        path: path, type: .wav, encoding: .pcm16,
        format: try StreamFormat(sampleRate: try SampleRate(rate), channels: channels))
    try samples.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try w.write(p) }
    try w.commit()
}

/// Noise with two "utterances" of a tone complex: 1.0–2.0 s and 3.0–3.5 s (the noise drawn from
/// `seed`: the same file on every run).
private func utterances(rate: Int, seconds: Double = 5, seed: UInt64 = 1) -> [Float] {
    var rng = TestRNG(seed: seed)
    var x = (0..<Int(seconds * Double(rate))).map { _ in Float.random(in: -0.001...0.001, using: &rng) }
    for (a, b) in [(1.0, 2.0), (3.0, 3.5)] {
        for k in Int(a * Double(rate))..<Int(b * Double(rate)) {
            let t = Double(k) / Double(rate)
            x[k] += Float(0.1 * (sin(2 * .pi * 150 * t) + 0.5 * sin(2 * .pi * 300 * t) + 0.3 * sin(2 * .pi * 450 * t)))
        }
    }
    return x
}

private func parseLabels(_ text: String) -> [(Double, Double)] {
    text.split(separator: "\n").map { l in
        let f = l.split(separator: "\t")
        return (Double(f[0])!, Double(f[1])!)
    }
}

@Suite struct VADDetectCommand {
    @Test func findsTheUtterancesOnTheStreamingTimelineAndAlignsOnRequest() throws {
        let s = Scratch()
        try writeWAV(s.file("x.wav"), utterances(rate: 16_000), rate: 16_000)
        // (A held tone complex of 1 s: the steady-noise rule, which would end it after 600 ms, off.)
        let held = ["--param", "steady_noise_ms=0"]
        let r = try CLI.run(["vad", "detect", s.file("x.wav")] + held)
        #expect(r.status == 0, "\(r.stderr)")
        let segments = parseLabels(r.text)
        #expect(segments.count == 2)
        #expect(r.text.split(separator: "\n").allSatisfy { $0.hasSuffix("\tspeech") })
        // Streaming: onsets after the speech starts (decided at the end of the confirming frame).
        #expect(segments[0].0 >= 1.0 && segments[0].0 <= 1.05)
        #expect(segments[0].1 >= 2.0 && segments[0].1 <= 2.2)
        #expect(segments[1].0 >= 3.0 && segments[1].0 <= 3.05)
        let aligned = parseLabels(try CLI.run(["vad", "detect", s.file("x.wav"), "--align"] + held).text)
        #expect(aligned.count == 2 && aligned[0].0 < segments[0].0 && aligned[0].0 >= 0.98)
    }

    @Test func anyRateAndChannelCountAndEveryFormat() throws {
        let s = Scratch()
        let mono = utterances(rate: 48_000)
        let stereo = mono.flatMap { [$0, $0] }
        try writeWAV(s.file("st.wav"), stereo, rate: 48_000, channels: 2)
        let json = try CLI.run(["vad", "detect", s.file("st.wav"), "--format", "json"])
        #expect(json.status == 0)
        let o = try JSONSerialization.jsonObject(with: json.stdout) as! [String: Any]
        #expect(
            (o["segments"] as! [[String: Double]]).count == 2 && o["sampleRate"] as? Int == 48_000
                && o["timeline"] as? String == "streaming")
        let csv = try CLI.run(["vad", "detect", s.file("st.wav"), "--format", "csv", "-o", s.file("st.csv")])
        #expect(csv.status == 0 && csv.stderr.contains("2 segments"))
        #expect(try String(contentsOfFile: s.file("st.csv"), encoding: .utf8).hasPrefix("start,end\n"))
    }

    @Test func silentAndAllNoiseFilesGiveNoSegments() throws {
        let s = Scratch()
        try writeWAV(s.file("silent.wav"), [Float](repeating: 0, count: 48_000), rate: 16_000)
        var rng = SystemRandomNumberGenerator()
        try writeWAV(
            s.file("noise.wav"), (0..<80_000).map { _ in Float.random(in: -0.3...0.3, using: &rng) }, rate: 16_000)
        for f in ["silent.wav", "noise.wav"] {
            let r = try CLI.run(["vad", "detect", s.file(f)])
            #expect(r.status == 0 && r.text.isEmpty, "\(f): \(r.text)")
        }
    }

    @Test func aRateTheDetectorDoesNotTakeIsBadDataNamingTheFile() throws {
        let s = Scratch()
        try writeWAV(s.file("low.wav"), [Float](repeating: 0.1, count: 4000), rate: 2000)
        try "0.5\t1.0\tspeech\n".write(toFile: s.file("low.txt"), atomically: true, encoding: .utf8)
        for args in [
            ["vad", "detect", s.file("low.wav")], ["vad", "detect", s.file("low.wav"), "--explain"],
            ["vad", "tune", "--audio", s.path, "--report", s.file("rep")],
        ] {
            let r = try CLI.run(args)
            #expect(r.status == 65 && r.stderr.contains("low.wav: sample rate 2000 Hz"), "\(args): \(r.stderr)")
        }
    }

    @Test func referenceOfAnotherRateChannelsAndLengthIsConverted() throws {
        let s = Scratch()
        // 48 kHz stereo reference, 1 s shorter than the mic: a voice-like agent (harmonics of 210 Hz
        // with a syllable envelope) that stops at 0.9 s. (A pure tone as the reference leaks into the
        // band above 5000 Hz at about −107 dBFS through the filters' stopband: an echo is "expected"
        // there, the band's floor never learns, and white noise at −65 dBFS stood over the floor's
        // stand-in — a 20 ms false start in two runs of three; docs/design/vad-experiments.md.)
        let ref = (0..<(4 * 48_000)).flatMap { k -> [Float] in
            let t = Double(k) / 48_000
            var v = 0.0
            if t < 0.9 { for h in 1...12 { v += sin(2 * .pi * 210 * Double(h) * t) / Double(h) } }
            let x = Float(0.05 * v * (0.6 + 0.4 * sin(2 * .pi * 4 * t)))
            return [x, x]
        }
        try writeWAV(s.file("ref.wav"), ref, rate: 48_000, channels: 2)
        // Both utterances are found, the first (1 s) just after the agent stopped, before the echo model
        // has learnt that no echo arrives (the worst plausible echo is expected over the last second).
        // Over ten noise draws: the second at 3.0–3.1 s in each; the first at 1.0–1.1 s in most, and by
        // 1.9 s in all — in about one draw of forty (200 draws measured) the user's first frames do
        // not stand out enough, teach the window model the user's level as the echo's gain, and the
        // utterance is found when the reference leaves the window (a known weakness: vad.md).
        var prompt = 0
        for seed in 1...10 as ClosedRange<UInt64> {
            try writeWAV(s.file("mic.wav"), utterances(rate: 16_000, seed: seed), rate: 16_000)
            // (The held tone complex is no voice: the steady-noise rule off, as without a reference.
            // Until 2026-12-02 the floors over 300 Hz never learnt while this reference played, and
            // the rule never saw the utterance's bands hold over them.)
            let r = try CLI.run([
                "vad", "detect", s.file("mic.wav"), "--reference", s.file("ref.wav"), "--param", "steady_noise_ms=0",
            ])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("warning") && r.stderr.contains("padded with silence"))
            let labels = parseLabels(r.text)
            #expect(labels.count == 2, "seed \(seed): \(labels)")
            #expect(labels.first.map { $0.0 > 1 && $0.0 < 1.9 } ?? false, "seed \(seed): \(labels)")
            #expect(labels.last.map { $0.0 > 3 && $0.0 < 3.1 } ?? false, "seed \(seed): \(labels)")
            if labels.first.map({ $0.0 < 1.1 }) ?? false { prompt += 1 }
        }
        #expect(prompt >= 9, "first utterance found within 0.1 s in \(prompt) of 10 draws")
    }

    @Test func badInputGetsClearErrors() throws {
        let s = Scratch()
        let missing = try CLI.run(["vad", "detect", s.file("nope.wav")])
        #expect(missing.status == 66 && missing.stderr.contains("nope.wav"))
        try writeWAV(s.file("x.wav"), utterances(rate: 16_000), rate: 16_000)
        try #"{"enter_db": 10, "hangover": 5}"#.write(toFile: s.file("c.json"), atomically: true, encoding: .utf8)
        let badKey = try CLI.run(["vad", "detect", s.file("x.wav"), "--config", s.file("c.json")])
        #expect(
            badKey.status == 65 && badKey.stderr.contains("c.json")
                && badKey.stderr.contains("unknown VAD parameter 'hangover'"))
        let range = try CLI.run(["vad", "detect", s.file("x.wav"), "--frame-ms", "15"])
        #expect(range.status == 64 && range.stderr.contains("frame_ms"))
        let unknown = try CLI.run(["vad", "detect", s.file("x.wav"), "--param", "hangover=5"])
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown VAD parameter 'hangover'"))
        let outOfRange = try CLI.run(["vad", "detect", s.file("x.wav"), "--param", "exit_average_frames=9"])
        #expect(outOfRange.status == 64 && outOfRange.stderr.contains("exit_average_frames"))
    }

    @Test func anyParameterByItsJSONName() throws {
        let s = Scratch()
        try writeWAV(s.file("x.wav"), utterances(rate: 16_000), rate: 16_000)
        let r = try CLI.run([
            "vad", "detect", s.file("x.wav"), "--format", "json", "--param", "talker_window_s=3", "--param",
            "exit_average_frames=2",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        let c = o["configuration"] as! [String: Double]
        #expect(c["talker_window_s"] == 3 && c["exit_average_frames"] == 2)
    }
}

@Suite struct VADTuneCommand {
    /// Two labelled recordings, one with a reference, plus an unmatched audio and label file.
    static func corpus(_ s: Scratch) throws -> (audio: String, labels: String) {
        let audio = s.file("audio"), labels = s.file("labels")
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: labels, withIntermediateDirectories: true)
        for name in ["a", "b", "orphan"] {
            try writeWAV(audio + "/\(name).wav", utterances(rate: 16_000), rate: 16_000)
        }
        try writeWAV(audio + "/b.ref.wav", [Float](repeating: 0, count: 16_000 * 5), rate: 16_000)
        for name in ["a", "b", "lonely"] {
            try "1.000000\t2.000000\tspeech\n3.000000\t3.500000\tspeech\n".write(
                toFile: labels + "/\(name).txt", atomically: true, encoding: .utf8)
        }
        return (audio, labels)
    }

    @Test func writesTheBestConfigurationTheSweepAndPlots() throws {
        let s = Scratch()
        let (audio, labels) = try Self.corpus(s)
        // A grid file of its own (the baseline's values join its axes), one axis replaced by --set.
        try #"{"enter_db": [6, 8], "hangover_ms": [40]}"#.write(
            toFile: s.file("grid.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run([
            "vad", "tune", "--audio", audio, "--labels", labels, "--report", s.file("rep"), "--grid",
            s.file("grid.json"), "--set", "hangover_ms=50,200",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr.contains("skipped \(audio)/orphan.wav: no labels") && r.stderr.contains("lonely.txt: no audio"))
        // enter_db 6, 8 and the baseline's 10; hangover_ms 50, 200 and 100: 9 settings, one fold per file.
        #expect(r.stderr.contains("2 files (1 with a reference), 9 settings, 2 folds"), "\(r.stderr)")
        for f in [
            "summary.json", "best.json", "sweep.csv", "sweep.json", "per-file.csv", "index.html", "f1-vs-threshold.svg",
            "precision-recall.svg", "plots/a.svg", "plots/b.svg",
        ] {
            #expect(FileManager.default.fileExists(atPath: s.file("rep/" + f)), "\(f)")
        }
        #expect(try String(contentsOfFile: s.file("rep/sweep.csv"), encoding: .utf8).split(separator: "\n").count == 10)
        // best.json is a configuration `detect --config` accepts.
        let d = try CLI.run(["vad", "detect", audio + "/a.wav", "--config", s.file("rep/best.json")])
        #expect(d.status == 0 && parseLabels(d.text).count == 2, "\(d.stderr)")
    }

    @Test func objectiveAndFalseAlarmLimitChooseTheWinner() throws {
        let s = Scratch()
        let (audio, labels) = try Self.corpus(s)
        let r = try CLI.run([
            "vad", "tune", "--audio", audio, "--labels", labels, "--report", s.file("rep"),
            "--set", "enter_db=3,6,10,14", "--set", "hangover_ms=0,300", "--objective", "fa",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try String(contentsOfFile: s.file("rep/sweep.csv"), encoding: .utf8).split(separator: "\n")
            .dropFirst()
        let header = try String(contentsOfFile: s.file("rep/sweep.csv"), encoding: .utf8).split(separator: "\n")[0]
            .split(separator: ",")
        let fa = header.firstIndex(of: "false_alarm")!
        let lowest = rows.map { Double($0.split(separator: ",", omittingEmptySubsequences: false)[fa])! }.min()!
        // The objective chose the setting of lowest false alarm; best.json holds it if the cross-validated
        // gain cleared the folds' spread, else the baseline (the tuner keeps the defaults unless the
        // choice holds on the files it was not made on).
        let summary =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: s.file("rep/summary.json"))))
            as! [String: Any]
        let chosen = summary["chosen"] as! [String: Any]
        #expect(abs(((chosen["tuning"] as! [String: Any])["falseAlarm"] as! Double) - lowest) < 1e-4)
        let best =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: s.file("rep/best.json"))))
            as! [String: Any]
        let used = summary["use"] as! String == "baseline" ? summary["baseline"] : chosen
        let usedSetting = (used as! [String: Any])["setting"] as! [String: Any]
        for name in ["enter_db", "exit_db", "hangover_ms", "min_speech_ms"] {
            #expect(
                best[name] as? Double != nil && (best[name] as? Double) == (usedSetting[name] as? Double), "\(name)")
        }
    }

    /// Limits no setting meets: exit 1, the report names the limit and the closest settings, no
    /// best.json — unless --best-effort, which writes the closest, marked inside; a small corpus is
    /// warned about; --group-by needs a manifest column that exists.
    @Test func anImpossibleLimitExitsOneAndWritesNoBestJSON() throws {
        let s = Scratch()
        let (audio, labels) = try Self.corpus(s)
        let grid = [
            "--set", "enter_db=8,10", "--set", "hangover_ms=100", "--set", "exit_db=1.5", "--set", "min_speech_ms=10",
        ]
        let r = try CLI.run(
            ["vad", "tune", "--audio", audio, "--labels", labels, "--report", s.file("rep"), "--max-false-alarm", "0"]
                + grid)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.text.hasPrefix("No setting meets false alarm ≤ 0 %"), "\(r.text)")
        #expect(r.text.contains("closest enter_db=") && r.text.contains("(no best.json)"))
        #expect(!FileManager.default.fileExists(atPath: s.file("rep/best.json")))
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: s.file("rep/summary.json"))))
                as? [String: Any])
        #expect(summary["use"] as? String == "none" && summary["chosen"] is NSNull)
        #expect((summary["constraints"] as? [String: Any])?["maxFalseAlarm"] as? Double == 0)
        let warnings = try #require(summary["warnings"] as? [String])
        #expect(warnings.contains { $0.hasPrefix("a small corpus: 2 files (fewer than 10)") }, "\(warnings)")
        // Best effort: the closest, marked.
        let b = try CLI.run(
            [
                "vad", "tune", "--audio", audio, "--labels", labels, "--report", s.file("rep2"), "--max-false-alarm",
                "0", "--best-effort",
            ] + grid)
        #expect(b.status == 1)
        let best = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: s.file("rep2/best.json"))))
                as? [String: Any])
        #expect((best["_best_effort"] as? String ?? "").hasPrefix("false alarm"), "\(best)")
        #expect(try CLI.run(["vad", "detect", audio + "/a.wav", "--config", s.file("rep2/best.json")]).status == 0)
        // --group-by: a column of the manifest.
        try "name,talker\na,x\nb,y\n".write(toFile: audio + "/manifest.csv", atomically: true, encoding: .utf8)
        let g = try CLI.run(
            ["vad", "tune", "--audio", audio, "--labels", labels, "--report", s.file("rep3"), "--group-by", "room"]
                + grid)
        #expect(g.status == 64 && g.stderr.contains("no column 'room' for --group-by"), "\(g.stderr)")
        let ok = try CLI.run(
            [
                "vad", "tune", "--audio", audio, "--labels", labels, "--report", s.file("rep4"), "--group-by", "talker",
                "--no-limits",
            ] + grid)
        // b has a reference: the barge-in policy's 4 × 3 values are swept beside the 2 settings.
        #expect(ok.status == 0 && ok.stderr.contains("24 settings, 2 folds"), "\(ok.stderr)")
    }

    @Test func malformedLabelLinesNameTheFileAndLine() throws {
        let s = Scratch()
        let (audio, labels) = try Self.corpus(s)
        try "1.0\t2.0\tspeech\nsoon\tlater\n".write(toFile: labels + "/a.txt", atomically: true, encoding: .utf8)
        let r = try CLI.run(["vad", "tune", "--audio", audio, "--labels", labels, "--report", s.file("rep")])
        #expect(r.status == 65 && r.stderr.contains(labels + "/a.txt:2:"), "\(r.stderr)")
    }

    @Test(.enabled(if: EvalKit.hasVAD, "needs the VAD evaluation kit (../shared/eval/vad)"))
    func metricsEqualScorePy() throws {
        let kit = EvalKit.vad!
        let s = Scratch()
        let dir = s.file("items")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let names = ["001", "017", "035", "040"]  // clean, hum, real speech in hum, barge-in with a reference
        let all = try FileManager.default.contentsOfDirectory(atPath: kit + "/dev")
        var used: [String] = []
        for prefix in names {
            guard
                let wav = all.first(where: {
                    $0.hasPrefix(String(prefix.prefix(4))) && $0.hasSuffix(".wav") && !$0.hasSuffix(".ref.wav")
                })
            else { continue }
            let base = String(wav.dropLast(4))
            used.append(base)
            for ext in [".wav", ".txt", ".ref.wav"]
            where FileManager.default.fileExists(atPath: "\(kit)/dev/\(base)\(ext)") {
                try FileManager.default.createSymbolicLink(
                    atPath: "\(dir)/\(base)\(ext)", withDestinationPath: "\(kit)/dev/\(base)\(ext)")
            }
        }
        #expect(used.count == 4)
        // score.py takes each item's duration from the manifest (or from soundfile, if installed).
        try FileManager.default.createSymbolicLink(
            atPath: "\(dir)/manifest.csv", withDestinationPath: "\(kit)/dev/manifest.csv")
        let t = try CLI.run([
            "vad", "tune", "--audio", dir, "--labels", dir, "--report", s.file("rep"), "--set", "enter_db=10",
        ])
        #expect(t.status == 0, "\(t.stderr)")
        let best =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: s.file("rep/best.json"))))
            as! [String: Any]
        let ours = best["scores"] as! [String: Any]
        // The same detector through `vad detect`, scored by score.py.
        try FileManager.default.createDirectory(atPath: s.file("hyp"), withIntermediateDirectories: true)
        for base in used {
            var args = ["vad", "detect", "\(dir)/\(base).wav", "-o", s.file("hyp/\(base).txt")]
            if FileManager.default.fileExists(atPath: "\(dir)/\(base).ref.wav") {
                args += ["--reference", "\(dir)/\(base).ref.wav"]
            }
            #expect(try CLI.run(args).status == 0)
        }
        let score = try runTool(
            "/usr/bin/env",
            ["python3", "\(kit)/score.py", dir, s.file("hyp"), "--json", s.file("score.json"), "--quiet"])
        #expect(score.status == 0, "\(score.err)")
        let theirs =
            (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: s.file("score.json"))))
            as! [String: Any])["overall"] as! [String: Any]
        for (mine, key) in [
            ("f1", "f1"), ("precision", "precision"), ("recall", "recall"), ("false_alarm", "false_alarm"),
            ("miss", "miss"),
            ("onset_detect", "onset_detect"), ("lat_p50_ms", "lat_median_ms"), ("lat_p90_ms", "lat_p90_ms"),
            ("fresh_lat_p50_ms", "fresh_lat_median_ms"), ("fresh_lat_p90_ms", "fresh_lat_p90_ms"),
            ("ft_per_min", "ft_per_min"),
        ] {
            let a = ours[mine] as? Double, b = theirs[key] as? Double
            #expect(
                a != nil && b != nil && abs(a! - b!) < 1e-6,
                "\(mine): ours \(String(describing: a)), score.py \(String(describing: b))")
        }
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            "needs chromium (make test-deps installs it)"))
    func plotsRenderInABrowser() throws {
        let s = Scratch()
        let (audio, labels) = try Self.corpus(s)
        #expect(
            try CLI.run([
                "vad", "tune", "--audio", audio, "--labels", labels, "--report", s.file("rep"), "--set",
                "enter_db=8,10",
            ]).status == 0)
        // The file plot shows what the detector uses: the score and each band's level, floor and threshold.
        let plot = try String(contentsOfFile: s.file("rep/plots/b.svg"), encoding: .utf8)
        for title in [
            "score, dB over noise floor", "< 150 Hz, dB", "300–600 Hz, dB", "> 5000 Hz, dB", "expected echo",
        ] {
            #expect(plot.contains(SVG.escape(title)), "\(title)")
        }
        let height = plot.firstMatch(of: /height="(\d+)"/).map { String($0.1) } ?? "0"
        for (svg, size) in [
            ("plots/b.svg", "1200,\(height)"), ("precision-recall.svg", "760,520"), ("f1-vs-threshold.svg", "760,520"),
        ] {
            let png = s.file(svg.replacingOccurrences(of: "/", with: "_") + ".png")
            let r = try runTool(
                "/usr/bin/chromium",
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--screenshot=\(png)", "--window-size=\(size)", "file://" + s.file("rep/" + svg),
                ])
            #expect(r.status == 0, "\(r.err)")
            // A rendered plot: a PNG of the requested size with a good deal of drawn content.
            let data = try Data(contentsOf: URL(fileURLWithPath: png))
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == Int(size.split(separator: ",")[0])!)
            #expect(data.count > 8_000, "\(svg) rendered to only \(data.count) bytes")
        }
    }
}
