import Foundation
import Testing
import _AudioPipelineTestSupport

private func json(_ path: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
}

/// `vad tune` on recordings with far-end references tunes what barge-in lives by (issue 31, item 7):
/// the session simulator's false barge-ins, latency and misses, the client's policy swept too,
/// with the same cross-validation, limits and best.json — which `session simulate --config` reads.
@Suite struct VADTuneBargeIns {
    /// samples/vad: one barge-in recording with its reference, two without.
    static let corpus = repositoryRoot + "/samples/vad"

    @Test func withReferencesItTunesBargeInsAndThePolicy() throws {
        let s = Scratch()
        let r = try CLI.run([
            "vad", "tune", "--audio", Self.corpus, "--report", s.file("rep"), "--set", "enter_db=8,10,12", "--json",
        ])
        #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("1 of 3 files have a far-end reference"), "\(r.stderr)")
        let summary = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        #expect(summary["objective"] as? String == "barge-in")
        // The policy axes were added: 3 enter_db values × the other default axes × 4 × 3 policies.
        let settings = try #require(summary["settings"] as? Int)
        #expect(settings % 12 == 0 && settings >= 12 * 3 * 2)
        let baseline = try #require(summary["baseline"] as? [String: Any])
        let setting = try #require(baseline["setting"] as? [String: Double])
        #expect(setting["min_barge_in_ms"] == 0 && setting["ignore_first_ms"] == 0)
        let figures = try #require(baseline["tuning"] as? [String: Any])
        for key in ["falseBargeInsPerMinute", "missedBargeIns", "bargeInLatencyP90Ms"] {
            #expect(figures[key] is Double, "\(key): \(figures)")
        }
        let constraints = try #require(summary["constraints"] as? [String: Any])
        #expect(constraints["maxFalseBargeInsPerMinute"] as? Double == 0.5)
        // The sweep's table has the barge-in columns, the policy's axes among its parameters.
        let csv = try String(contentsOfFile: s.file("rep/sweep.csv"), encoding: .utf8)
        let header = csv.split(separator: "\n")[0]
        #expect(header.contains("min_barge_in_ms") && header.contains("false_barge_in_per_min"), "\(header)")
        let page = try String(contentsOfFile: s.file("rep/index.html"), encoding: .utf8)
        #expect(page.contains("false barge-ins / min") && page.contains("the least barge-in cost"))
        if r.status == 0 {
            let best = try json(s.file("rep/best.json"))
            let policy = try #require(best["barge_in"] as? [String: Double])
            #expect(policy.keys.sorted() == ["ignore_first_ms", "min_barge_in_ms"])
        }
    }

    @Test func anImpossibleBargeInLimitExitsOneAndWritesNoBestJSON() throws {
        let s = Scratch()
        let r = try CLI.run([
            "vad", "tune", "--audio", Self.corpus, "--report", s.file("rep"), "--set", "enter_db=10",
            "--max-barge-in-latency-ms", "0",
        ])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.text.contains("No setting meets") && r.text.contains("barge-in latency p90 ≤ 0 ms"), "\(r.text)")
        #expect(!FileManager.default.fileExists(atPath: s.file("rep/best.json")))
        let bad = try CLI.run([
            "vad", "tune", "--audio", Self.corpus, "--report", s.file("rep2"), "--max-missed-barge-ins", "2",
        ])
        #expect(bad.status == 64 && bad.stderr.contains("--max-missed-barge-ins must be in 0…1"), "\(bad.stderr)")
        // Without references, the barge-in limits bind nothing and are not claimed.
        let noRef = s.file("noref")
        try FileManager.default.createDirectory(atPath: noRef, withIntermediateDirectories: true)
        for f in ["keyboard.wav", "keyboard.txt", "pink-noise.wav", "pink-noise.txt"] {
            try FileManager.default.copyItem(atPath: Self.corpus + "/" + f, toPath: noRef + "/" + f)
        }
        let plain = try CLI.run([
            "vad", "tune", "--audio", noRef, "--report", s.file("rep3"), "--set", "enter_db=10", "--json",
            "--max-barge-in-latency-ms", "0",
        ])
        let summary = try JSONSerialization.jsonObject(with: plain.stdout) as! [String: Any]
        #expect(summary["objective"] as? String == "f1")
        let constraints = try #require(summary["constraints"] as? [String: Any])
        #expect(constraints["maxBargeInLatencyMs"] == nil && constraints["maxFalseAlarm"] != nil, "\(constraints)")
    }

    /// best.json's `barge_in` is the policy `session simulate --config` runs (an option overrides it);
    /// `vad detect --config` reads the same file; a bad value in it is named (exit 65).
    @Test func sessionSimulateReadsThePolicyFromTheConfig() throws {
        let s = Scratch()
        var runs = 0
        func simulate(_ extra: [String]) throws -> [String: Any] {
            runs += 1
            let r = try CLI.run(
                [
                    "session", "simulate", "--recorded", Self.corpus + "/bargein.wav", "--reference",
                    Self.corpus + "/bargein.ref.wav", "--user-labels", Self.corpus + "/bargein.txt", "--json", "-q",
                    "-o", s.file("sim\(runs)"),
                ] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        }
        let plain = try simulate([])
        #expect((plain["interrupts"] as! [Any]).count >= 1)
        // A policy that ignores every response's first 10 minutes: no barge-in at all.
        try #"{"enter_db": 10, "barge_in": {"min_barge_in_ms": 0, "ignore_first_ms": 600000}}"#
            .write(toFile: s.file("policy.json"), atomically: true, encoding: .utf8)
        let quiet = try simulate(["--config", s.file("policy.json")])
        #expect((quiet["interrupts"] as! [Any]).isEmpty)
        let overridden = try simulate(["--config", s.file("policy.json"), "--ignore-first-ms", "0"])
        #expect((overridden["interrupts"] as! [Any]).count == (plain["interrupts"] as! [Any]).count)
        let detect = try CLI.run(["vad", "detect", Self.corpus + "/bargein.wav", "--config", s.file("policy.json")])
        #expect(detect.status == 0, "\(detect.stderr)")
        try #"{"barge_in": {"min_barge_in_ms": -5}}"#.write(
            toFile: s.file("bad.json"), atomically: true, encoding: .utf8)
        let bad = try CLI.run([
            "session", "simulate", "--recorded", Self.corpus + "/bargein.wav", "--reference",
            Self.corpus + "/bargein.ref.wav", "--user-labels", Self.corpus + "/bargein.txt", "--config",
            s.file("bad.json"),
            "-o", s.file("bad"),
        ])
        #expect(bad.status == 65 && bad.stderr.contains("bad.json: barge_in.min_barge_in_ms -5"), "\(bad.stderr)")
    }
}
