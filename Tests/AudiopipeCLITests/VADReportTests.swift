import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

private func wav(_ path: String, _ samples: [Float], rate: Int = 16_000) throws {
    let w = try AudioFileWriter(
        path: path, type: .wav, encoding: .pcm16,
        format: try StreamFormat(sampleRate: try SampleRate(rate), channels: 1))
    try samples.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try w.write(p) }
    try w.commit()
}

/// White noise of peak `noise` with tone bursts: each burst a span (s) and its partials (Hz, amplitude).
private func bursts(
    seconds: Double = 5, noise: Float = 0.001, _ spans: [(Double, Double, [(Double, Double)])], rate: Int = 16_000
) -> [Float] {
    var rng = TestRNG(seed: 17)  // the same noise every run: a failure can be replayed
    var x = (0..<Int(seconds * Double(rate))).map { _ in Float.random(in: -noise...noise, using: &rng) }
    for (a, b, partials) in spans {
        for k in Int(a * Double(rate))..<min(x.count, Int(b * Double(rate))) {
            let t = Double(k) / Double(rate)
            x[k] += Float(partials.reduce(0) { $0 + $1.1 * sin(2 * .pi * $1.0 * t) })
        }
    }
    return x
}

/// A voice-like complex (150 Hz and two harmonics: energy below 1 kHz) and a 2 kHz whistle.
private let low: [(Double, Double)] = [(150, 0.1), (300, 0.05), (450, 0.03)]
private let whistle: [(Double, Double)] = [(2000, 0.1)]
/// A buzz: the 11 harmonics of 100 Hz from 1.5 to 2.5 kHz (a fan's or a motor's), as loud as the
/// whistle. A pure whistle above 1 kHz is a ring, which opens no speech without a reference
/// (`VADDecider.ringGainMinimum`); eleven partials are not predicted from 2 ms before.
private let buzz: [(Double, Double)] = (15...25).map { (100 * Double($0), 0.1 / 11.0.squareRoot()) }

private func json(_ data: Data) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: data) as! [String: Any]
}

@Suite struct VADExplainCommand {
    /// Each segment says which bands opened it (the low complex in the low bands, the buzz in
    /// 1000–3000 Hz), the rule that confirmed it, and what closed it: the exit test after the half
    /// second of the complex; the steady-noise rule 600 ms into the buzz, held to the file's end.
    @Test func saysWhichBandsAndRulesOpenedAndClosedEachSegment() throws {
        let s = Scratch()
        // Louder noise (−55 dBFS) than the absolute minimum, and the talker gate off: only the exit
        // test can close the first segment.
        try wav(s.file("x.wav"), bursts(noise: 0.003, [(1, 1.5, low), (3, 5, buzz)]))
        let r = try CLI.run([
            "vad", "detect", s.file("x.wav"), "--explain", "--json", "-o", s.file("x.txt"), "--talker-gate-db", "0",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let segments = try json(r.stdout)["segments"] as! [[String: Any]]
        #expect(segments.count == 2)
        guard segments.count == 2 else { return }
        let first = segments[0]["explain"] as! [String: Any], second = segments[1]["explain"] as! [String: Any]
        let opened = first["opened"] as! [String: Any], closed = first["closed"] as! [String: Any]
        let bands = (opened["bands"] as! [[String: Any]]).map { $0["band"] as! String }
        #expect(Set(bands.prefix(2)) == ["< 300 Hz", "300–1000 Hz"], "\(bands)")
        #expect((opened["time"] as! Double) >= 1.0 && (opened["time"] as! Double) <= 1.03)
        // The onset check: two frames (or three, with a lead-in or a late start), named in the rule.
        let frames = opened["frames"] as? Int ?? 0
        #expect((opened["scoreDb"] as! Double) >= 10 && (2...3).contains(frames), "\(opened)")
        #expect((opened["rule"] as! String).contains("score ≥ enter_db 10"))
        #expect((opened["rule"] as! String).contains("\(frames) frames in a row"))
        #expect((opened["rule"] as! String).contains("onset_drop_db 3"))
        #expect(opened["echo"] is NSNull, "no reference, no echo summary")
        #expect(closed["reasons"] as? [String] == ["exit_threshold"], "\(closed)")
        #expect((closed["quietFrom"] as! Double) >= 1.5 && (closed["quietFrom"] as! Double) <= 1.56)
        #expect((closed["rule"] as! String).contains("hangover_ms 100"))
        let buzzBands = ((second["opened"] as! [String: Any])["bands"] as! [[String: Any]]).map {
            $0["band"] as! String
        }
        #expect(buzzBands.first == "1000–3000 Hz", "\(buzzBands)")
        let steady = second["closed"] as! [String: Any]
        #expect(steady["reasons"] as? [String] == ["steady_noise"], "\(steady)")
        let steadyAt = steady["time"] as! Double
        #expect(steadyAt >= 3.6 && steadyAt <= 3.7, "\(steady)")
        #expect((steady["rule"] as! String).contains("steady_noise_ms 600"), "\(steady)")
        #expect((steady["rule"] as! String).contains("1000–3000 Hz"), "\(steady)")
        #expect(try String(contentsOfFile: s.file("x.txt"), encoding: .utf8).split(separator: "\n").count == 2)
    }

    /// A 4 ms click opens nothing by default (the onset check); with the check off, it opens a
    /// segment that the transient rule closes at once (no hangover), and the explanation names it.
    @Test func namesTheTransientRule() throws {
        let s = Scratch()
        try wav(s.file("x.wav"), bursts(noise: 0.003, [(1.002, 1.006, [(2000, 0.3), (3100, 0.2)])]))
        let checked = try CLI.run(["vad", "detect", s.file("x.wav"), "--explain", "--json", "-o", s.file("y.txt")])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect((try json(checked.stdout)["segments"] as! [[String: Any]]).isEmpty)
        let r = try CLI.run([
            "vad", "detect", s.file("x.wav"), "--param", "onset_drop_db=0", "--explain", "--json", "-o",
            s.file("x.txt"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let segments = try json(r.stdout)["segments"] as! [[String: Any]]
        #expect(segments.count == 1)
        guard let explain = segments.first?["explain"] as? [String: Any],
            let closed = explain["closed"] as? [String: Any], let opened = explain["opened"] as? [String: Any]
        else { return }
        // Without a reference, the start test's gate is the onset gate.
        #expect((opened["rule"] as! String).contains("within talker_onset_gate_db 17 of the loudest recent speech"))
        #expect(closed["reasons"] as? [String] == ["transient"], "\(closed)")
        #expect((closed["time"] as! Double) <= 1.03)
        #expect((closed["rule"] as! String).contains("transient_ms 20"))
    }

    @Test func namesTheLevelRulesAndPrintsTextBesideTheLabels() throws {
        let s = Scratch()
        try wav(s.file("x.wav"), bursts([(1, 2, low)]))
        // Noise at about −68 dBFS; with absolute_dbfs −40 the level closes it; the talker gate too
        // (the noise is 40 dB below the burst).
        // (A held tone complex of 1 s: the steady-noise rule, which would end it after 600 ms, off.)
        let held = ["--param", "steady_noise_ms=0"]
        let r = try CLI.run(["vad", "detect", s.file("x.wav"), "--explain", "--json", "--absolute-dbfs=-40"] + held)
        #expect(r.status == 0, "\(r.stderr)")
        // Labels on stdout: the report goes to stderr.
        let report = try json(Data(r.stderr.utf8))
        let segment = (report["segments"] as! [[String: Any]])[0]
        let closed = (segment["explain"] as! [String: Any])["closed"] as! [String: Any]
        #expect(closed["reasons"] as? [String] == ["absolute_threshold", "talker_gate"], "\(closed)")
        // Text: the labels on stdout as always, the explanation on stderr.
        let t = try CLI.run(["vad", "detect", s.file("x.wav"), "--explain"] + held)
        #expect(t.status == 0 && t.text.split(separator: "\n").count == 1 && t.text.hasSuffix("\tspeech\n"))
        for part in [
            "opened at 1.0", "score ≥ enter_db 10",
            "bands at or over enter_db, else the largest (excess over noise floor ⊕ echo): < 300 Hz",
            "closed at 2.", "below absolute_dbfs -65", "talker_gate_db 20 below the loudest recent speech",
        ] {
            #expect(t.stderr.contains(part), "\(part) in \(t.stderr)")
        }
        // Without speech it says so; --explain with many files needs JSON outputs.
        try wav(s.file("quiet.wav"), bursts([]))
        let none = try CLI.run(["vad", "detect", s.file("quiet.wav"), "--explain", "-o", s.file("q.txt")])
        #expect(none.status == 0 && none.text.contains("0 segments") && none.text.contains("no speech"))
        let batch = try CLI.run(["vad", "detect", s.file("x.wav"), s.file("quiet.wav"), "--explain", "-o", s.file("o")])
        #expect(batch.status == 64 && batch.stderr.contains("--format json"))
        #expect(try CLI.run(["vad", "detect", "--help"]).text.contains("--explain"))
    }

    /// Explaining computes the bands of the whole file first, then decides: the same decisions as
    /// the streaming stage, with a far-end reference too.
    @Test func explainingChangesNoDecision() throws {
        let s = Scratch()
        let base = ["vad", "detect", root + "/samples/bargein-mic-16k.wav", "--reference"]
        let args = base + [root + "/samples/bargein-mic-16k.wav".replacingOccurrences(of: ".wav", with: ".ref.wav")]
        let plain = try CLI.run(args)
        let explained = try CLI.run(args + ["--explain", "-o", s.file("e.txt")])
        #expect(plain.status == 0 && explained.status == 0, "\(explained.stderr)")
        let labels = try String(contentsOfFile: s.file("e.txt"), encoding: .utf8)
        #expect(!plain.text.isEmpty && plain.text == labels)
        let segments = plain.text.split(separator: "\n").count
        #expect(explained.text.components(separatedBy: "  opened at ").count == segments + 1)
        #expect(explained.text.components(separatedBy: "  closed at ").count == segments + 1)
        // With a reference the start test's gate widens by the score's excess over enter_db: the
        // rule says by how much, as the decider applied it.
        let report = try CLI.run(args + ["--explain", "--json", "-o", s.file("j.txt")])
        #expect(report.status == 0, "\(report.stderr)")
        let opened = (try json(report.stdout)["segments"] as! [[String: Any]]).compactMap {
            ($0["explain"] as? [String: Any])?["opened"] as? [String: Any]
        }
        #expect(opened.count == segments)
        for o in opened where !(o["rule"] as! String).contains("sustained_enter_db") {
            let widened = (o["scoreDb"] as! Double) - 10
            let rule = o["rule"] as! String
            if widened >= 0.1 {
                #expect(rule.contains("within talker_gate_db 20 + "), "\(rule)")
                #expect(rule.contains(" dB (the score over enter_db) of the loudest recent speech"), "\(rule)")
            } else {
                #expect(rule.contains("within talker_gate_db 20 of the loudest"), "\(rule)")
            }
        }
    }
}

@Suite struct VADFrameTraceCommand {
    /// `--frames`: one row per frame with the header's columns; its `speech` column gives the
    /// labels' segments (a segment from the end of the first speech frame to the end of the first
    /// frame after it that is not), the decisions are the plain run's, and the echo columns say
    /// what the model rested on.
    @Test func everyFrameIsWrittenAndItsDecisionsAreTheLabels() throws {
        let s = Scratch()
        let mic = root + "/samples/vad/bargein.wav"
        let args = ["vad", "detect", mic, "--reference", root + "/samples/vad/bargein.ref.wav"]
        let plain = try CLI.run(args)
        let traced = try CLI.run(args + ["--frames", s.file("f.csv"), "-o", s.file("l.txt")])
        #expect(plain.status == 0 && traced.status == 0, "\(traced.stderr)")
        #expect(try String(contentsOfFile: s.file("l.txt"), encoding: .utf8) == plain.text)
        let rows = try String(contentsOfFile: s.file("f.csv"), encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = rows[0]
        #expect(header.count == 15 + 8 * 6 && header.contains("excess_gt5000") && header.contains("gain_lt150"))
        #expect(rows.count - 1 == 600, "a row per 10 ms frame of the 6 s file")
        #expect(rows.allSatisfy { $0.count == header.count })
        let column = { (name: String) in header.firstIndex(of: name)! }
        // The segments the speech column gives are the labels.
        var segments: [String] = []
        var start: String?
        for row in rows.dropFirst() {
            let speech = row[column("speech")] == "1"
            if speech && start == nil { start = row[0] }
            if !speech, let s = start {
                segments.append("\(s)-\(row[0])")
                start = nil
            }
        }
        let labels = plain.text.split(separator: "\n").map { line -> String in
            let f = line.split(separator: "\t")
            return String(format: "%.3f-%.3f", Double(f[0])!, Double(f[1])!)
        }
        #expect(labels.count == 2 && segments == labels)
        // The echo model: worst case first, the delay empty until found, then found and tracked.
        let stages = rows.dropFirst().map { $0[column("echo_stage")] }
        #expect(stages.first == "worst-case" && stages.last == "tracked")
        #expect(Set(stages).isSubset(of: ["worst-case", "window", "tracked"]))
        let delays = rows.dropFirst().map { $0[column("echo_delay_ms")] }
        #expect(delays.first == "" && Double(delays.last!) != nil)
        // A band's excess is its level over floor ⊕ (expected echo + margin), to the printed decimal.
        for row in rows.dropFirst().suffix(100) {
            let level = Double(row[column("level_1000_1800")])!, floor = Double(row[column("floor_1000_1800")])!
            let echo = Double(row[column("echo_1000_1800")])!, margin = Double(row[column("margin_1000_1800")])!
            let model = 10 * log10(pow(10, floor / 10) + pow(10, (echo + margin) / 10))
            #expect(abs(level - model - Double(row[column("excess_1000_1800")])!) < 0.2, "\(row[0])")
        }
    }

    /// Without a reference: the four bands and no echo columns. Bad uses say what is wrong; an error
    /// leaves no file behind.
    @Test func withoutAReferenceAndWhenMisused() throws {
        let s = Scratch()
        let mic = root + "/samples/vad/pink-noise.wav"
        let r = try CLI.run(["vad", "detect", mic, "--frames", s.file("f.csv"), "-o", s.file("l.txt")])
        #expect(r.status == 0, "\(r.stderr)")
        let header = try String(contentsOfFile: s.file("f.csv"), encoding: .utf8).prefix { $0 != "\n" }
        #expect(header.hasSuffix(",level_gt3000,floor_gt3000,excess_gt3000") && !header.contains("echo_stage"))
        let both = try CLI.run(["vad", "detect", mic, "--frames", "-"])
        #expect(both.status == 64 && both.stderr.contains("--frames -"))
        let named = try CLI.run(["vad", "detect", mic, "--frames", "/dev/stdout"])
        #expect(named.status == 64 && named.stderr.contains("--frames /dev/stdout"), "\(named.stderr)")
        let batch = try CLI.run(["vad", "detect", mic, mic, "--frames", s.file("g.csv"), "-o", s.file("out")])
        #expect(batch.status == 64 && batch.stderr.contains("--frames names one file"))
        try #"{"pipecat": {}}"#.write(toFile: s.file("p.json"), atomically: true, encoding: .utf8)
        let scores = try CLI.run([
            "vad", "detect", mic, "--frames", s.file("g.csv"), "--scores",
            root + "/samples/vad-scores/pipecat/pink-noise.csv", "--config", s.file("p.json"),
        ])
        #expect(scores.status == 64 && scores.stderr.contains("--frames are the energy VAD's"))
        // A reference that cannot be read: an error naming it, and neither output left.
        let bad = try CLI.run([
            "vad", "detect", mic, "--reference", s.file("missing.wav"), "--frames", s.file("g.csv"), "-o",
            s.file("m.txt"),
        ])
        #expect(bad.status != 0 && bad.stderr.contains("missing.wav"))
        #expect(!FileManager.default.fileExists(atPath: s.file("g.csv")))
        #expect(!FileManager.default.fileExists(atPath: s.file("m.txt")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path).sorted() == ["f.csv", "l.txt", "p.json"])
        #expect(try CLI.run(["vad", "detect", "--help"]).text.contains("--frames"))
    }
}

@Suite struct VADTuneWithoutLabels {
    /// `vad tune` on recordings without labels: exit code 66 and a message that says what it needs,
    /// the format, and how to make labels.
    @Test func saysWhatItNeedsAndHowToMakeIt() throws {
        let s = Scratch()
        let audio = s.file("rec")
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        for name in ["a", "b"] { try wav(audio + "/\(name).wav", bursts([(1, 2, low)])) }
        let how = [
            "Audacity label file NAME.txt", "next to the recording", "1.250000\t2.800000\tspeech",
            "audiopipe vad detect \(audio) --align -o LABELS", "LABELS/a.txt",
            "audiopipe vad tune --audio \(audio) --labels LABELS --report REPORT",
        ]
        // No --labels and no label file beside the recordings; a --labels that does not exist; one
        // whose files are named after nothing.
        try FileManager.default.createDirectory(atPath: s.file("other"), withIntermediateDirectories: true)
        try "1\t2\tspeech\n".write(toFile: s.file("other/c.txt"), atomically: true, encoding: .utf8)
        for (labels, first) in [
            ([String](), "\(audio): no label file NAME.txt for any of the 2 recordings in \(audio)"),
            (["--labels", s.file("none")], "\(s.file("none")): no such directory"),
            (
                ["--labels", s.file("other")],
                "1 .txt file, but none named after one of the 2 recordings in \(audio) (a.wav wants a.txt)"
            ),
        ] {
            let r = try CLI.run(["vad", "tune", "--audio", audio, "--report", s.file("rep")] + labels)
            #expect(r.status == 66, "\(r.stderr)")
            #expect(r.stderr.hasPrefix("audiopipe: ") && r.stderr.contains(first), "\(r.stderr)")
            for part in how { #expect(r.stderr.contains(part), "\(part)") }
            #expect(!FileManager.default.fileExists(atPath: s.file("rep")))
        }
        // The suggested command makes labels tune accepts.
        #expect(try CLI.run(["vad", "detect", audio, "--align", "-o", s.file("labels")]).status == 0)
        let t = try CLI.run([
            "vad", "tune", "--audio", audio, "--labels", s.file("labels"), "--report", s.file("rep"), "--set",
            "enter_db=10",
        ])
        #expect(t.status == 0, "\(t.stderr)")
        let empty = s.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let nothing = try CLI.run(["vad", "tune", "--audio", empty, "--report", s.file("rep2")])
        #expect(nothing.status == 66 && nothing.stderr.contains("no recording in it"))
    }
}

/// The report page in a real browser (headless Chromium): it renders, clicking a header sorts the
/// table, and every plot loads.
@Suite(
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
        "needs chromium (make test-deps installs it)"))
struct VADTuneReportPage {
    /// Six recordings from easy to hard (white noise of peak 0.001 to 0.2 under the same bursts), labels
    /// beside them, and a manifest with two conditions (one field quoted, with a comma).
    static func corpus(_ s: Scratch) throws -> String {
        let dir = s.file("corpus")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var manifest = "name,noise,detail\n"
        for (k, noise) in [0.001, 0.01, 0.03, 0.06, 0.1, 0.2].enumerated() {
            let name = "f\(k + 1)"
            try wav(dir + "/\(name).wav", bursts(noise: Float(noise), [(1, 2, low), (3, 3.5, low), (4, 4.3, whistle)]))
            try "1\t2\tspeech\n3\t3.5\tspeech\n4\t4.3\tspeech\n".write(
                toFile: dir + "/\(name).txt", atomically: true, encoding: .utf8)
            manifest += "\(name),\(k < 3 ? "quiet" : "loud"),\"peak \(noise), white\"\n"
        }
        try manifest.write(toFile: dir + "/manifest.csv", atomically: true, encoding: .utf8)
        return dir
    }

    /// The page's DOM after its scripts ran and everything loaded (`index.html?QUERY`).
    static func dom(_ page: String, query: String = "") throws -> String {
        let r = try runTool(
            "/usr/bin/chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000", "--dump-dom",
                "file://" + page + query,
            ])
        #expect(r.status == 0, "\(r.err)")
        return r.out
    }

    /// Column `k` of a table's body rows, as the cells' sort values (`data-v`, else their text).
    static func column(_ dom: String, table: String, _ k: Int) -> [String] {
        guard let start = dom.range(of: "<table id=\"\(table)\"") else { return [] }
        let rest = dom[start.upperBound...]
        let body = rest[rest.range(of: "<tbody>")!.upperBound..<rest.range(of: "</tbody>")!.lowerBound]
        return body.components(separatedBy: "<tr>").dropFirst().map { row in
            let cell = row.components(separatedBy: "<td")[k + 1]
            if let v = cell.range(of: "data-v=\"") {
                return String(cell[v.upperBound...].prefix { $0 != "\"" })
            }
            let text = cell[cell.index(after: cell.firstIndex(of: ">")!)...]
            return String(
                text.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression).prefix { $0 != "<" })
        }
    }

    @Test func rendersSortsAndLoadsItsPlots() throws {
        let s = Scratch()
        let dir = try Self.corpus(s)
        let t = try CLI.run([
            "vad", "tune", "--audio", dir, "--report", s.file("rep"), "--set", "enter_db=8,10,12",
            "--max-false-alarm", "0.5",
        ])
        #expect(t.status == 0, "\(t.stderr)")
        #expect(t.stderr.contains("manifest.csv: 2 conditions by noise"))
        let page = s.file("rep/index.html")
        // It opens with the choice and why, in words; the per-condition table from the manifest.
        let plain = try Self.dom(page)
        #expect(
            plain.contains("<b>Use the chosen setting:</b> <code>")
                || plain.contains("<b>Keep the baseline:</b> <code>"))
        #expect(plain.contains("The choice has the best F1 among the settings that meet false alarm ≤ 50 %"))
        #expect(plain.contains(" of 240 do on all files") && plain.contains("(6 folds): the cross-validated figures"))
        // The baseline and the choice side by side, on all files and cross-validated.
        #expect(plain.contains("<table id=\"comparison\">") && plain.contains("cross-validated (files it was not"))
        #expect(Self.column(plain, table: "conditions", 0).sorted() == ["loud", "quiet"])
        #expect(
            try String(contentsOfFile: s.file("rep/per-condition.csv"), encoding: .utf8).hasPrefix(
                "condition,files,f1,"))
        // Every image loaded (6 plots and 2 charts): the page's own check after the load event.
        #expect(plain.contains("data-images=\"8 of 8 loaded\""), "\(plain.suffix(400))")
        // Worst first: F1 ascending (column 2, after file and condition).
        let f1 = Self.column(plain, table: "files", 2).map { Double($0)! }
        #expect(f1.count == 6 && f1 == f1.sorted())
        // Clicking a header sorts by it; clicking again reverses (`?sort=` clicks the header).
        let miss = Self.column(plain, table: "files", 4).map { Double($0)! }
        #expect(Set(miss).count > 1, "the corpus must give files different miss rates: \(miss)")
        let up = try Self.dom(page, query: "?sort=files.miss")
        #expect(Self.column(up, table: "files", 4).map { Double($0)! } == miss.sorted())
        #expect(up.contains("data-key=\"files.miss\" data-dir=\"asc\"") || up.contains("data-dir=\"asc\""))
        let down = try Self.dom(page, query: "?sort=-files.miss")
        #expect(Self.column(down, table: "files", 4).map { Double($0)! } == miss.sorted(by: >))
        let names = try Self.dom(page, query: "?sort=-files.file")
        #expect(Self.column(names, table: "files", 0) == ["f6", "f5", "f4", "f3", "f2", "f1"])
        // Each row links to its plot, on the page.
        #expect(plain.contains("<a href=\"#plots/f1.svg\">f1</a>") && plain.contains("<h3 id=\"plots/f1.svg\">"))
        // A missing plot is named on the page (the check can fail).
        try FileManager.default.removeItem(atPath: s.file("rep/plots/f3.svg"))
        let broken = try Self.dom(page)
        #expect(broken.contains("data-images=\"7 of 8 loaded\"") && broken.contains("could not load plots/f3.svg"))
        // The page renders: a screenshot with a good deal drawn.
        let png = s.file("index.png")
        let shot = try runTool(
            "/usr/bin/chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--screenshot=\(png)",
                "--window-size=1280,1600", "file://" + page,
            ])
        #expect(shot.status == 0, "\(shot.err)")
        let data = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]) && data.count > 30_000, "\(data.count) bytes")
    }
}

@Suite struct ReportDirectories {
    /// A report replaces its directory whole: a directory holding anything but an earlier report
    /// (here the recordings themselves) is refused before any work, and nothing in it is touched.
    @Test func aReportNeverReplacesADirectoryThatIsNotOne() throws {
        let s = Scratch()
        let dir = try VADTuneReportPage.corpus(s)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        let r = try CLI.run(["vad", "tune", "--audio", dir, "--report", dir, "--set", "enter_db=10"])
        #expect(r.status == 73 && r.stderr.contains("not an audiopipe report"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == before)
        // A new directory, then the same one again: an earlier report is replaced.
        for _ in 0..<2 {
            let t = try CLI.run(["vad", "tune", "--audio", dir, "--report", s.file("rep"), "--set", "enter_db=10"])
            #expect(t.status == 0, "\(t.stderr)")
            #expect(FileManager.default.fileExists(atPath: s.file("rep/.audiopipe-report")))
        }
        #expect(s.contents == ["corpus", "rep"], "\(s.contents)")
    }
}
