import Foundation
import Testing
import _AudioPipelineTestSupport

@Suite struct BenchCommand {
    let quick = ["bench", "--iterations", "300", "--warmup", "20"]

    @Test func jsonHasTheMachineAndEveryPathStageAndLatencyEntry() throws {
        let s = Scratch()
        let r = try CLI.run(quick + ["--json", "--csv", s.file("rows.csv"), "--plot", s.file("latency.svg")])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let machine = try #require(json["machine"] as? [String: Any])
        for key in ["cpu", "cores", "vectorPath", "os", "build"] { #expect(machine[key] != nil, "\(key)") }
        let paths = try #require(json["paths"] as? [String: Any])
        var entries = 0
        for name in ["mic", "speaker"] {
            let path = try #require(paths[name] as? [String: Any])
            let rows =
                [try #require(path["total"] as? [String: Any])]
                + (try #require(path["stages"] as? [[String: Any]])) + (try #require(path["peers"] as? [[String: Any]]))
            for row in rows {
                for key in ["p50", "p90", "p99", "p999", "max"] { #expect((row[key] as? Double ?? 0) > 0, "\(key)") }
                #expect(row.keys.contains("allocationsPerChunk"))
                entries += 1
            }
        }
        // The CSV has a line per row, the SVG draws both paths.
        let csv = try String(contentsOfFile: s.file("rows.csv"), encoding: .utf8).split(separator: "\n")
        #expect(csv.first?.hasPrefix("path,kind,name,peer_of,p50_ns") == true)
        #expect(csv.count == entries + 1)
        let svg = try String(contentsOfFile: s.file("latency.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n"))
        // One panel per path, a distribution per stage.
        #expect(svg.contains("mic path:") && svg.contains("speaker path:") && svg.contains("<path"))
        for stage in [
            "total —", "convert —", "resample (in convert) —", "quantise (in convert) —", "chunk+frame —",
            "vad (not in total) —", "decode —", "widen —", "jitter —", "peer ios-code",
        ] {
            #expect(svg.contains(stage), "\(stage)")
        }
        #expect(s.contents == ["latency.svg", "rows.csv"])  // no temporaries left
    }

    @Test func theTableNamesTheSettingsAndPeers() throws {
        let r = try CLI.run(
            quick + [
                "--profile", "gemini-live", "--device-rate", "44100", "--device-channels", "2", "--chunk-ms", "40",
                "--resampler", "native-fast", "--kernels", "portable", "--compat", "ios",
                "--with-reference", "--tick-ms", "20",
            ])
        #expect(r.status == 0, "\(r.stderr)")
        for word in [
            "profile=gemini-live", "deviceRate=44100", "deviceChannels=2", "chunkMilliseconds=40.0",
            "resampler=native-fast portable", "kernels=portable", "compat=ios", "withReference=true",
            "portable Swift (resampler)", "44100 Hz × 2", "vs src-fastest", "vs jsonserialization", "ios-code",
        ] {
            // (Lines longer than 100 columns wrap, indented.)
            #expect(r.text.replacingOccurrences(of: "\n  ", with: " ").contains(word), "\(word)")
        }
    }

    @Test func ditherIsMeasuredAndRefusedWithIOSCompat() throws {
        let r = try CLI.run(quick + ["--dither", "tpdf", "--no-peers"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("dither=tpdf") && r.text.contains("quantise"))
        let ios = try CLI.run(quick + ["--dither", "tpdf", "--compat", "ios"])
        #expect(ios.status == 64 && ios.stderr.contains("dither"), "\(ios.stderr)")
    }

    @Test func aCustomTemplatesServerRuleGivesTheSpeakerPathItsMessage() throws {
        let template = root + "/Tests/AudiopipeCLITests/Fixtures/custom-profile.json"
        let r = try CLI.run(quick + ["--profile", "custom:" + template, "--device-rate", "24000", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let speaker = try #require((json["paths"] as? [String: Any])?["speaker"] as? [String: Any])
        #expect(speaker["total"] is [String: Any])
        let decode = try #require((speaker["stages"] as? [[String: Any]])?.first)
        #expect((decode["description"] as? String)?.contains("no fast path") == true)
        let deepgram = try CLI.run(quick + ["--profile", "deepgram", "--no-peers"])
        #expect(deepgram.status == 0 && deepgram.text.contains("not measured"), "\(deepgram.stderr)")
    }

    @Test func budgetsExitOneWhenExceeded() throws {
        let over = try CLI.run(quick + ["--budget", "mic.p50<1ns,speaker.p99<1s"])
        #expect(over.status == 1, "\(over.stderr)")
        #expect(over.stderr.contains("budget exceeded: mic.p50<1ns"))
        #expect(!over.stderr.contains("speaker.p99<1s"))
        let within = try CLI.run(quick + ["--budget", "mic.p50<1s,speaker.decode.p99<1s", "--quiet"])
        #expect(within.status == 0, "\(within.stderr)")
    }

    /// Fast enough, and where the time goes: rows within 100 columns (every column with --wide), the
    /// total's coverage said, × realtime from the p50, and the verdict in text and JSON, passing or not.
    @Test func theReportAnswersFastEnoughAndWhereTheTimeGoes() throws {
        let s = Scratch()
        let r = try CLI.run(quick + ["--budget", "mic.p99<1s,speaker.p50<1ns", "--json", "--plot", s.file("p.svg")])
        #expect(r.status == 1 && r.stderr.contains("budget exceeded: speaker.p50<1ns"), "\(r.stderr)")
        #expect(s.contents == ["p.svg"], "a failed budget is not a failed run: the plot stays")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let verdict = try #require(json["verdict"] as? [String: Any])
        #expect(verdict["passed"] as? Bool == false)
        let checks = try #require(verdict["budgets"] as? [[String: Any]])
        #expect(checks.map { $0["budget"] as? String } == ["mic.p99<1s", "speaker.p50<1ns"])
        #expect(checks.map { $0["passed"] as? Bool } == [true, false])
        #expect((verdict["realTime"] as? [[String: Any]])?.count == 2)
        let mic = try #require((json["paths"] as? [String: Any])?["mic"] as? [String: Any])
        let total = try #require(mic["total"] as? [String: Any])
        let p50 = try #require(total["p50"] as? Double)
        #expect(abs((total["realtime"] as? Double ?? 0) - 20e6 / p50) < 1e-6 * 20e6 / p50, "× realtime from the p50")
        let stages = try #require(mic["stages"] as? [[String: Any]])
        #expect(stages.map { $0["partOf"] as? String } == ["total", "convert", "convert", "total", nil])

        let passing = try CLI.run(quick + ["--budget", "mic.p99<1s"])
        #expect(passing.status == 0, "\(passing.stderr)")
        #expect(passing.text.contains("budget: within (1 of 1 met)") && passing.text.contains("mic.p99<1s"))
        // The real-time verdict is there; which way it goes is timing (a debug build on a loaded
        // machine may not keep up), which the benchmark suite measures, not a test.
        #expect(passing.text.contains("real time (p99.9 of a 20.0 ms chunk)"))
        #expect(passing.text.contains(": keeps up") || passing.text.contains("CANNOT keep up"), "\(passing.text)")
        #expect(passing.text.contains("vad (not in total)"))
        #expect(passing.text.contains("total = convert + chunk+frame; vad runs beside the path"))
        let lines = passing.text.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 100 }, "\(lines.filter { $0.count > 100 })")
        let none = try CLI.run(quick)
        #expect(none.text.contains("budget: none given"), "\(none.text)")
        let wide = try CLI.run(quick + ["--wide"])
        #expect(wide.status == 0 && wide.text.contains("chunks/s") && wide.text.contains("spread"))
        #expect(wide.text.split(separator: "\n").contains { $0.count > 100 })
    }

    /// Three back-to-back runs of one build (`bench --json`, this machine) compared pairwise flag
    /// nothing; a 20 % slowdown of any one of our stages injected into one of them is flagged.
    @Test func compareFlagsOnlyWhatIsBeyondTheNoise() throws {
        let s = Scratch()
        let runs = (1...3).map { root + "/Tests/AudiopipeCLITests/Fixtures/bench-rerun-\($0).json" }
        for a in runs {
            for b in runs where b != a {
                let c = try CLI.run(["bench", "compare", a, b])
                #expect(c.status == 0 && c.text.contains("no regression"), "\(a) → \(b):\n\(c.text)")
            }
        }
        let base = try Data(contentsOf: URL(fileURLWithPath: runs[0]))
        let keys = [
            ("mic", "total"), ("mic", "quantise"), ("mic", "chunk+frame"), ("speaker", "widen"),
            ("speaker", "decode"), ("speaker", "jitter"), ("speaker", "convert"),
        ]
        for (path, stage) in keys {
            var json = try #require(try JSONSerialization.jsonObject(with: base) as? [String: Any])
            var paths = json["paths"] as! [String: Any]
            var p = paths[path] as! [String: Any]
            if stage == "total" {
                var t = p["total"] as! [String: Any]
                t["p50"] = (t["p50"] as! Double) * 1.2
                p["total"] = t
            } else {
                var rows = p["stages"] as! [[String: Any]]
                let i = try #require(rows.firstIndex { $0["name"] as? String == stage })
                rows[i]["p50"] = (rows[i]["p50"] as! Double) * 1.2
                p["stages"] = rows
            }
            paths[path] = p
            json["paths"] = paths
            try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: s.file("slow.json")))
            let c = try CLI.run(["bench", "compare", runs[0], s.file("slow.json")])
            #expect(c.status == 1, "\(path).\(stage) 20 % slower:\n\(c.text)")
            let flagged = c.text.split(separator: "\n").filter { $0.contains("REGRESSION") }
            #expect(flagged.count == 1 && flagged[0].hasPrefix("\(path).\(stage) "), "\(flagged)")
        }
    }

    @Test func badSettingsAreUsageErrors() throws {
        for (args, word) in [
            (["--chunk-ms", "0"], "--chunk-ms"), (["--device-rate", "0"], "--device-rate"),
            (["--device-channels", "0"], "--device-channels"), (["--profile", "nope"], "nope"),
            (["--resampler", "sox"], "sox"), (["--kernels", "fast"], "--kernels"), (["--budget", "mic.p99<1h"], "1h"),
            (["--budget", "mic.wobble.p99<1ms"], "wobble"), (["--duration", "nan"], "--duration"),
            (["--iterations", "0"], "--iterations"), (["--cpu", "-3"], "--cpu"), (["--tick-ms", "0"], "tick"),
        ] {
            let r = try CLI.run(["bench"] + args)
            #expect(r.status == 64, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(word), "\(args): \(r.stderr)")
        }
    }

    @Test func compareFlagsARegressionBeyondTheSpread() throws {
        let s = Scratch()
        let r = try CLI.run(quick + ["--json", "--no-peers"])
        #expect(r.status == 0, "\(r.stderr)")
        try r.stdout.write(to: URL(fileURLWithPath: s.file("base.json")))
        let same = try CLI.run(["bench", "compare", s.file("base.json"), s.file("base.json")])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.text.contains("no regression"))
        // The same report with the mic path twice as slow.
        var json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        var paths = json["paths"] as! [String: Any]
        var mic = paths["mic"] as! [String: Any]
        var total = mic["total"] as! [String: Any]
        total["p50"] = (total["p50"] as! Double) * 2
        total["spread"] = 0.05
        mic["total"] = total
        paths["mic"] = mic
        json["paths"] = paths
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: s.file("slow.json")))
        let slow = try CLI.run(["bench", "compare", s.file("base.json"), s.file("slow.json")])
        #expect(slow.status == 1, "\(slow.stderr)")
        #expect(slow.text.contains("mic.total") && slow.text.contains("REGRESSION"))
        let bad = try CLI.run(["bench", "compare", s.file("base.json"), s.file("missing.json")])
        #expect(bad.status == 66, "\(bad.stderr)")
        try "{}".write(toFile: s.file("empty.json"), atomically: true, encoding: .utf8)
        let notReport = try CLI.run(["bench", "compare", s.file("empty.json"), s.file("base.json")])
        #expect(notReport.status == 65 && notReport.stderr.contains("empty.json"), "\(notReport.stderr)")
    }
}
