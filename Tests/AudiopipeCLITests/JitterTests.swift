import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

/// The team's evaluation kits (../shared/eval next to the repository, or AUDIOPIPE_EVAL_DIR).
enum EvalKit {
    static let root: String? = {
        if let e = ProcessInfo.processInfo.environment["AUDIOPIPE_EVAL_DIR"] { return e }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<5 {
            dir.deleteLastPathComponent()
            let candidate = dir.appendingPathComponent("shared/eval").path
            if FileManager.default.fileExists(atPath: candidate + "/jitter/score.py") { return candidate }
        }
        return FileManager.default.fileExists(atPath: "/work/shared/eval/jitter/score.py") ? "/work/shared/eval" : nil
    }()
    static var jitter: String? { root.map { $0 + "/jitter" } }
    static var vad: String? { root.map { $0 + "/vad" } }
    static var hasJitter: Bool { jitter != nil }
    static var hasVAD: Bool { vad.map { FileManager.default.fileExists(atPath: $0 + "/score.py") } ?? false }
}

/// A playout log row.
private struct LogRow { var seq: Int; var play, offset, length, out: Double }

private func readLog(_ path: String) throws -> [LogRow] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map { line in
        let f = line.split(separator: ",").map { Double($0)! }
        return LogRow(seq: Int(f[0]), play: f[1], offset: f[2], length: f[3], out: f[4])
    }
}

@Suite struct JitterSimulateCommand {
    /// A small hand-made trace: 20 ms packets, jitter, one lost and one reordered packet, a barge-in.
    static func smallTrace(_ s: Scratch, unsorted: Bool = false) -> (trace: String, flush: String) {
        var rows: [String] = []
        for k in 0..<150 {
            let utt = k < 100 ? 0 : 1
            let media = utt == 0 ? 200.0 + Double(k) * 20 : 4000.0 + Double(k - 100) * 20
            let jitter = Double((k * 37) % 23)
            var arrival = String(format: "%.3f", media + 40 + jitter)
            if k == 17 { arrival = "" }  // lost
            if k == 30 { arrival = String(format: "%.3f", media + 40 + 35) }  // overtaken by 31
            rows.append(String(format: "%d,%.3f,%@,20,%.3f,%d", k, media, arrival, media, utt))
        }
        if unsorted { rows.swapAt(10, 11); rows.swapAt(60, 90) }
        let trace = s.file("t.csv"), flush = s.file("t.flush.csv")
        try! ("seq,send_ms,arrival_ms,duration_ms,media_ms,utt\n" + rows.joined(separator: "\n") + "\n").write(
            toFile: trace, atomically: true, encoding: .utf8)
        try! "flush_ms,through_utt\n1500.000,0\n".write(toFile: flush, atomically: true, encoding: .utf8)
        return (trace, flush)
    }

    /// The flush file found beside a trace is an input: an output onto it is refused, as with --flush.
    @Test func neverWritesOverTheFlushFileBesideTheTrace() throws {
        let s = Scratch()
        let (trace, flush) = Self.smallTrace(s)
        let before = try String(contentsOfFile: flush, encoding: .utf8)
        let r = try CLI.run(["jitter", "simulate", trace, "-o", flush])
        #expect(r.status == 64 && r.stderr.contains(flush), "\(r.status) \(r.stderr)")
        #expect(try String(contentsOfFile: flush, encoding: .utf8) == before)
    }

    @Test func writesAPlayoutLogThatObeysTheFormatRules() throws {
        let s = Scratch()
        let (trace, flush) = Self.smallTrace(s)
        let r = try CLI.run(["jitter", "simulate", trace, "--flush", flush, "-o", s.file("log.csv"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try readLog(s.file("log.csv"))
        #expect(!rows.isEmpty)
        var arrival: [Int: Double] = [:], media: [Int: Double] = [:]
        for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            if let a = Double(f[2]) { arrival[Int(f[0])!] = a }
            media[Int(f[0])!] = Double(f[4])!
        }
        var lastEnd = -Double.infinity, lastMedia = -Double.infinity
        for row in rows {
            #expect(row.seq != 17, "the lost packet was played")
            #expect(arrival[row.seq].map { row.play >= $0 - 0.01 } ?? false, "seq \(row.seq) played before it arrived")
            #expect(row.play >= lastEnd - 0.01, "overlapping output at seq \(row.seq)")
            #expect(row.length > 0 && row.out > 0 && row.offset >= 0 && row.offset + row.length <= 20.01)
            let m = media[row.seq]! + row.offset
            #expect(m >= lastMedia - 0.01 || row.seq >= 100, "media went backwards at seq \(row.seq)")
            lastEnd = row.play + row.out
            lastMedia = m
            // Utterance 0 was cancelled at 1500 ms: nothing of it later than 20 ms after.
            if row.seq < 100 { #expect(row.play + row.out <= 1520.01) }
        }
        #expect(rows.contains { $0.seq == 31 } && rows.contains { $0.seq == 30 })
        #expect(rows.contains { $0.seq == 149 })
        let o = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        #expect(o["flushes"] as? Int == 1 && (o["flushedMs"] as? Double ?? 0) > 0)
    }

    @Test func rowsOutOfSeqOrderAreAccepted() throws {
        let s = Scratch(), u = Scratch()
        let a = Self.smallTrace(s), b = Self.smallTrace(u, unsorted: true)
        #expect(try CLI.run(["jitter", "simulate", a.trace, "--flush", a.flush, "-o", s.file("a.csv")]).status == 0)
        #expect(try CLI.run(["jitter", "simulate", b.trace, "--flush", b.flush, "-o", u.file("b.csv")]).status == 0)
        #expect(
            try String(contentsOfFile: s.file("a.csv"), encoding: .utf8)
                == String(contentsOfFile: u.file("b.csv"), encoding: .utf8))
    }

    @Test func findsTheSiblingFlushFile() throws {
        let s = Scratch()
        let (trace, _) = Self.smallTrace(s)
        let r = try CLI.run(["jitter", "simulate", trace, "-o", s.file("log.csv"), "--json"])
        let o = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        #expect(o["flushes"] as? Int == 1)
    }

    static let header = "seq,send_ms,arrival_ms,duration_ms,media_ms,utt\n"
    static let badTraces: [(name: String, text: String, message: String)] = [
        ("malformed number", header + "0,0,10,20,0,0\n1,20,3x,20,20,0\n", ":3: arrival_ms '3x' is not a number"),
        ("field count", header + "0,0,10,20,0,0\n1,20,30,20\n", ":3: 4 fields, the header has 6"),
        ("duplicate seq", header + "0,0,10,20,0,0\n0,20,30,20,20,0\n", ":3: duplicate seq 0 (first on line 2)"),
        ("zero duration", header + "0,0,10,0,0,0\n", ":2: duration_ms 0.0 must be positive"),
        ("negative duration", header + "0,0,10,-20,0,0\n", ":2: duration_ms -20.0 must be positive"),
        ("huge duration", header + "0,0,10,1e9,0,0\n", ":2: duration_ms 1000000000.0 is over a minute for one packet"),
        (
            "arrival before send", header + "0,0,10,20,0,0\n1,20,15,20,20,0\n",
            ":3: packet 1 arrives (15.0 ms) before it was sent (20.0 ms)"
        ),
        ("missing column", "seq,send_ms,duration_ms\n0,0,20\n", ":1: missing column 'arrival_ms'"),
        ("no rows", header, ": the trace has no packets"),
    ]

    @Test func badTracesGetTheFileAndLine() throws {
        let s = Scratch()
        for bad in Self.badTraces {
            let path = s.file("bad.csv")
            try bad.text.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try CLI.run(["jitter", "simulate", path, "-o", s.file("log.csv")])
            #expect(r.status == 65, "\(bad.name)")
            #expect(r.stderr.contains(path + bad.message), "\(bad.name): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: s.file("log.csv")))
        }
    }

    @Test func badFlushFilesGetTheFileAndLine() throws {
        let s = Scratch()
        let (trace, flush) = Self.smallTrace(s)
        for (text, message) in [
            ("flush_ms,through_utt\n100,7\n", ":2: flush names utterance 7, which is not in \(trace)"),
            ("flush_ms,through_utt\n100,0\nsoon,1\n", ":3: flush_ms 'soon' is not a time ≥ 0"),
            ("flush_ms,through_utt\n-5,0\n", ":2: flush_ms '-5' is not a time ≥ 0"),
        ] {
            try text.write(toFile: flush, atomically: true, encoding: .utf8)
            let r = try CLI.run(["jitter", "simulate", trace, "--flush", flush, "-o", s.file("log.csv")])
            #expect(r.status == 65 && r.stderr.contains(flush + message), "\(r.stderr)")
        }
        let missing = try CLI.run(["jitter", "simulate", s.file("nope.csv"), "-o", s.file("log.csv")])
        #expect(missing.status == 66 && missing.stderr.contains("nope.csv"))
        let policy = try CLI.run(["jitter", "simulate", trace, "--policy", "slow", "-o", s.file("log.csv")])
        #expect(policy.status == 64)
    }

    @Test(.enabled(if: EvalKit.hasJitter, "needs the jitter evaluation kit (../shared/eval/jitter)"))
    func devTracesScoreValidCausalAndFlushClean() throws {
        let kit = EvalKit.jitter!
        let s = Scratch()
        for (name, tick) in [("d15_bargein_20", "10"), ("d12_burst_20", "20"), ("d07_ge5_100", "10")] {
            let log = s.file(name + ".log.csv")
            let r = try CLI.run([
                "jitter", "simulate", "\(kit)/dev/\(name).csv", "--flush", "\(kit)/dev/\(name).flush.csv", "-o", log,
                "--tick-ms", tick,
            ])
            #expect(r.status == 0, "\(r.stderr)")
            let score = try runTool(
                "/usr/bin/env", ["python3", "\(kit)/score.py", "score", "\(kit)/dev/\(name).csv", log])
            #expect(score.status == 0, "\(score.err)")
            let o = try JSONSerialization.jsonObject(with: Data(score.out.utf8)) as! [String: Any]
            #expect(o["valid"] as? Bool == true, "\(name): \(o["errors"] ?? "")")
            #expect(o["stale_ms"] as? Double == 0 && (o["flush_tail_ms_max"] as? Double ?? 99) <= 20, "\(name)")
            if name.contains("burst") { #expect(o["late_loss_pct"] as? Double == 0, "\(name)") }
        }
        // Causality through the documented plug-in wrapper.
        let cmd = "AUDIOPIPE=\(CLI.binary) \(repositoryRoot)/scripts/jitter-plugin.sh {trace} {flush} {out} {tick}"
        let causal = try runTool(
            "/usr/bin/env",
            ["python3", "\(kit)/score.py", "check-causal", "\(kit)/dev/d15_bargein_20.csv", "--cmd", cmd])
        #expect(causal.status == 0 && causal.out.contains("causality check: PASS"), "\(causal.out)\(causal.err)")
    }
}

@Suite struct JitterPlayCommand {
    /// A HAR-style JSON Lines capture: response r1 (tone in 20 ms chunks, real-time paced until 100.39 s),
    /// a barge-in at 0.4 s (speech_started), late chunks of r1 still in flight, then response r2.
    static func session(_ s: Scratch) -> String {
        func b64(_ samples: [Int16]) -> String {
            samples.withUnsafeBytes { Data($0).base64EncodedString() }
        }
        var lines: [String] = []
        func add(_ t: Double, _ message: String) {
            let data = message.replacingOccurrences(of: "\"", with: "\\\"")
            lines.append(
                "{\"type\":\"receive\",\"time\":\(String(format: "%.3f", t)),\"opcode\":1,\"data\":\"\(data)\"}")
        }
        let chunk = (0..<480).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 24000)) }
        for k in 0..<18 {
            add(
                100 + 0.05 + Double(k) * 0.02,
                "{\"type\":\"response.output_audio.delta\",\"response_id\":\"r1\",\"delta\":\"\(b64(chunk))\"}")
        }
        add(100.4, "{\"type\":\"input_audio_buffer.speech_started\"}")
        for k in 18..<20 {
            add(
                100.42 + Double(k - 18) * 0.005,
                "{\"type\":\"response.output_audio.delta\",\"response_id\":\"r1\",\"delta\":\"\(b64(chunk))\"}")
        }
        for k in 0..<25 {
            add(
                101.5 + Double(k) * 0.02,
                "{\"type\":\"response.output_audio.delta\",\"response_id\":\"r2\",\"delta\":\"\(b64(chunk))\"}")
        }
        let path = s.file("session.jsonl")
        try! (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func writesWhatTheUserHeardWithTheBargeInCut() throws {
        let s = Scratch()
        let session = Self.session(s)
        let r = try CLI.run(["jitter", "play", session, "-o", s.file("heard.wav"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        #expect(o["interruptions"] as? Int == 1 && o["flushes"] as? Int == 1)
        #expect(o["stalePackets"] as? Int == 2)
        #expect(o["latePackets"] as? Int == 0 && o["underruns"] as? Int == 0)
        let reader = try AudioFileReader(path: s.file("heard.wav"))
        #expect(reader.format.sampleRate.hz == 24_000)
        var audio = [Int16](repeating: 0, count: 24_000 * 4)
        let got = try audio.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in try reader.read(into: p)
        }
        audio.removeLast(audio.count - got)
        // Output starts at the first arrival's tick (100.05 s → 100.05 s on the tick grid).
        func rms(_ from: Double, _ to: Double) -> Double {
            let a = Int(from * 24_000), b = min(audio.count, Int(to * 24_000))
            guard b > a else { return 0 }
            return (audio[a..<b].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(b - a)).squareRoot()
        }
        // (times relative to the first tick at 100.05 s)
        #expect(rms(0.10, 0.30) > 4000, "r1 plays")
        #expect(rms(0.40, 1.40) == 0, "silence after the barge-in until r2")
        #expect(rms(1.55, 1.85) > 4000, "r2 plays")
        // r1 stopped within 20 ms of the interruption at 100.4 s.
        let cut = Int((100.4 + 0.02 - 100.05) * 24_000)
        #expect(audio[cut..<Int(1.4 * 24_000)].allSatisfy { $0 == 0 })
    }

    @Test func needsArrivalTimes() throws {
        let s = Scratch()
        let r = try CLI.run(["jitter", "play", fixtures + "/openai-server.jsonl", "-o", s.file("h.wav")])
        #expect(r.status == 64 && r.stderr.contains("arrival times"))
        #expect(s.contents.isEmpty)
    }
}
