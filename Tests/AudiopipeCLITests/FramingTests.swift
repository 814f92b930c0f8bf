import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
/// What every hand-written fixture's audio decodes to, written down from the base64 by hand:
/// "AAABAAIAAwA=" = 0 1 2 3, "BAAFAP//AIA=" = 4 5 −1 −32768, "/38AgA==" = 32767 −32768.
let fixtureSamples: [Int16] = [0, 1, 2, 3, 4, 5, -1, -32768, 32767, -32768]

func samples(_ path: String) throws -> [Int16] {
    let r = try AudioFileReader(path: path)
    var all: [Int16] = []
    var buf = [Int16](repeating: 0, count: 4096)
    while true {
        let n = try buf.withUnsafeMutableBufferPointer { try r.read(into: $0) }
        if n == 0 { break }
        all += buf[0..<n]
    }
    return all
}

func deframeJSON(_ args: [String]) throws -> (CLI.Result, [String: Any]) {
    let r = try CLI.run(["deframe"] + args + ["--json"])
    let o = (try? JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]) ?? [:]
    return (r, o)
}

@Suite struct FrameDeframeRoundTrip {
    static let profiles = [
        "openai-realtime", "gemini-live", "datagrid", "atoms", "deepgram",
        "custom:" + fixtures + "/custom-profile.json",
    ]

    /// frame then deframe gives back the PCM bit for bit, for every profile and chunk size.
    @Test(arguments: profiles, [10.0, 20.0, 33.0, 100.0])
    func isBitIdentical(profile: String, chunkMs: Double) throws {
        let s = Scratch()
        let rate = profile == "openai-realtime" || profile == "atoms" ? 24000 : 16000
        // An input already in the profile's format, so framing converts nothing.
        let source = s.file("in.wav")
        #expect(try CLI.run(["convert", phone, source, "-r", "\(rate)", "-c", "1"]).status == 0)
        let ext = profile == "deepgram" ? "bin" : "jsonl"
        let messages = s.file("m.\(ext)")
        let f = try CLI.run(["frame", source, "--profile", profile, "--chunk-ms", "\(chunkMs)", "-o", messages])
        #expect(f.status == 0, "\(f.stderr)")
        let back = s.file("back.wav")
        let (d, o) = try deframeJSON([messages, "-o", back, "--direction", "client", "--profile", profile])
        #expect(d.status == 0, "\(d.stderr)")
        #expect(o["rate"] as? Int == rate)
        #expect(firstDifference(try samples(back), try samples(source)) == nil)
        let chunk = Int((Double(rate) * chunkMs / 1000).rounded())
        let frames = try samples(source).count
        #expect(o["audioMessages"] as? Int == (frames + chunk - 1) / chunk)
    }

    @Test func messagesAreByteExact() throws {
        let s = Scratch()
        let source = s.file("in.wav")
        #expect(try CLI.run(["convert", mic, source, "-r", "24000"]).status == 0)
        let out = s.file("m.jsonl")
        #expect(try CLI.run(["frame", source, "--profile", "openai-realtime", "-o", out]).status == 0)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        let first = String(lines[0])
        #expect(first.hasPrefix(#"{"type":"input_audio_buffer.append","audio":""#) && first.hasSuffix(#""}"#))
        // The base64 is exactly the first 20 ms (480 samples) of PCM16 little-endian.
        let pcm = try samples(source).prefix(480)
        let expected = Data(pcm.flatMap { withUnsafeBytes(of: $0.littleEndian) { Array($0) } }).base64EncodedString()
        #expect(first == #"{"type":"input_audio_buffer.append","audio":""# + expected + #""}"#)
    }

    @Test func geminiAndCustomTemplatesCarryTheRate() throws {
        let s = Scratch()
        #expect(try CLI.run(["frame", mic, "--profile", "gemini-live", "-o", s.file("g.jsonl")]).status == 0)
        let g = try String(contentsOfFile: s.file("g.jsonl"), encoding: .utf8)
        #expect(
            g.hasPrefix(#"{"realtimeInput":{"audio":{"data":""#)
                && g.contains(#"","mimeType":"audio/pcm;rate=16000"}}}"#))
        #expect(
            try CLI.run([
                "frame", mic, "--profile", "custom:" + fixtures + "/custom-profile.json", "-o", s.file("c.jsonl"),
            ]).status == 0)
        #expect(
            try String(contentsOfFile: s.file("c.jsonl"), encoding: .utf8).hasPrefix(
                #"{"kind":"mic","rate":16000,"pcm":""#))
    }

    @Test func commitAndControlMessages() throws {
        let s = Scratch()
        let src = s.file("in.wav")
        #expect(try CLI.run(["convert", mic, src, "-r", "24000"]).status == 0)
        let r = try CLI.run(["frame", src, "--profile", "openai-realtime", "--commit", "-o", s.file("c.jsonl")])
        #expect(r.status == 0)
        #expect(
            try String(contentsOfFile: s.file("c.jsonl"), encoding: .utf8).hasSuffix(
                #"{"type":"input_audio_buffer.commit"}"# + "\n"))
        // Under 100 ms of audio: OpenAI rejects the commit, so frame refuses (and writes nothing).
        let short = s.file("short.wav")
        #expect(try CLI.run(["convert", src, short]).status == 0)
        let tiny = s.file("tiny.raw")
        try #require(
            // 50 ms at 24 kHz
            FileManager.default.createFile(atPath: tiny, contents: Data(count: 2 * 1200)), "writing a test fixture")
        let refused = try CLI.run([
            "frame", tiny, "--in-rate", "24000", "--in-channels", "1", "--in-encoding", "pcm16", "--profile",
            "openai-realtime", "--commit", "-o", s.file("t.jsonl"),
        ])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("100 ms"))
        #expect(!FileManager.default.fileExists(atPath: s.file("t.jsonl")))
        let d = try CLI.run(["frame", mic, "--profile", "datagrid", "--control", "-o", s.file("d.jsonl")])
        #expect(d.status == 0)
        let lines = try String(contentsOfFile: s.file("d.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.first == #"{"type":"start","payload":{}}"# && lines.last == #"{"type":"stop"}"#)
    }

    @Test func wrongRateForAFixedRateProfileIsAUsageError() throws {
        let r = try CLI.run(["frame", mic, "--profile", "openai-realtime", "--rate", "16000", "-o", "/tmp/x.jsonl"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("24000"))
    }
}

@Suite struct DeframeFixtures {
    /// (fixture, profile, interruptions, turn ends, errors, unknown types)
    static let cases: [(String, String, Int, Int, Int, Int)] = [
        ("openai-server.jsonl", "openai-realtime", 1, 1, 1, 1),
        ("gemini-server.jsonl", "gemini-live", 1, 1, 0, 0),
        ("datagrid-server.jsonl", "datagrid", 1, 1, 1, 0),
        ("atoms-server.jsonl", "atoms", 1, 1, 1, 0),
        ("custom-server.jsonl", "custom:" + fixtures + "/custom-profile.json", 1, 1, 1, 0),
    ]

    @Test(arguments: cases)
    func decodesHandWrittenServerMessages(c: (String, String, Int, Int, Int, Int)) throws {
        let s = Scratch()
        let out = s.file("agent.wav")
        let (r, o) = try deframeJSON([fixtures + "/" + c.0, "-o", out, "--profile", c.1])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try samples(out) == fixtureSamples)
        #expect(o["interruptions"] as? Int == c.2)
        #expect(o["turnEnds"] as? Int == c.3)
        #expect((o["errors"] as? [String])?.count == c.4)
        #expect((o["unknownTypes"] as? [String: Int])?.values.reduce(0, +) ?? 0 == c.5)
        #expect(o["rate"] as? Int == (c.1.hasPrefix("custom") ? 22050 : 24000))
    }

    @Test(arguments: ["openai-server.jsonl", "gemini-server.jsonl", "datagrid-server.jsonl"])
    func detectsTheProfile(file: String) throws {
        let s = Scratch()
        let (r, o) = try deframeJSON([fixtures + "/" + file, "-o", s.file("a.wav")])
        #expect(r.status == 0)
        #expect(
            o["profile"] as? String
                == String(file.split(separator: "-").first!).replacingOccurrences(of: "openai", with: "openai-realtime")
                .replacingOccurrences(of: "gemini", with: "gemini-live"))
    }

    @Test func readsTheOlderGeminiMediaChunks() throws {
        let s = Scratch()
        let (r, o) = try deframeJSON([
            fixtures + "/gemini-client-legacy.jsonl", "-o", s.file("m.wav"), "--profile", "gemini-live", "--direction",
            "client",
        ])
        #expect(r.status == 0)
        #expect(o["rate"] as? Int == 16000)
        #expect(try samples(s.file("m.wav")) == Array(fixtureSamples.prefix(8)))
    }

    /// The trace cannot be written (a full disk: /dev/full): neither output is left, the WAV neither.
    @Test func aFailedTraceLeavesNoAudioEither() throws {
        let s = Scratch()
        let r = try CLI.run(["deframe", fixtures + "/session.har", "-o", s.file("a.wav"), "--trace", "/dev/full"])
        #expect(r.status == 74 && r.stderr.contains("/dev/full"), "\(r.status) \(r.stderr)")
        #expect(s.contents.isEmpty, "\(s.contents)")
    }

    @Test func harExportWithTimesAndTrace() throws {
        let s = Scratch()
        let (r, o) = try deframeJSON([fixtures + "/session.har", "-o", s.file("a.wav"), "--trace", s.file("t.csv")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(o["profile"] as? String == "openai-realtime")
        #expect(o["audioMessages"] as? Int == 3)
        #expect(o["otherDirection"] as? Int == 1)
        #expect((o["utterances"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["r1", "r2"])
        #expect(try samples(s.file("a.wav")) == fixtureSamples)
        let trace = try String(contentsOfFile: s.file("t.csv"), encoding: .utf8).split(separator: "\n").map(String.init)
        // 4 samples at 24 kHz = 0.1667 ms; arrivals 100, 120, 1000 ms after the first message.
        #expect(
            trace == [
                "seq,send_ms,arrival_ms,duration_ms,media_ms,utt",
                "0,100.000,100.000,0.167,100.000,0",
                "1,120.000,120.000,0.167,100.167,0",
                "2,1000.000,1000.000,0.083,1000.000,1",
            ])
        let (c, co) = try deframeJSON([fixtures + "/session.har", "-o", s.file("mic.wav"), "--direction", "client"])
        #expect(c.status == 0)
        #expect(co["rate"] as? Int == 24000)
        #expect(try samples(s.file("mic.wav")) == [0, 1])
    }
}

@Suite struct DeframeBadInput {
    func run(_ lines: [String], _ extra: [String] = [], in s: Scratch) throws -> CLI.Result {
        let path = s.file("in.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return try CLI.run(["deframe", path, "-o", s.file("out.wav"), "--profile", "openai-realtime"] + extra)
    }

    let good = #"{"type":"response.output_audio.delta","response_id":"r","delta":"AAABAA=="}"#

    static let cases: [(String, String)] = [
        // truncated
        (#"{"type":"response.output_audio.delta","response_id":"r","delta":"AAAB"#, "line 2: invalid JSON"),
        (
            #"{"type":"response.output_audio.delta","delta":"AA!A"}"#,
            "line 2: invalid base64 audio: invalid character at byte 2"
        ),
        (#"{"type":"response.output_audio.delta","delta":"AAAB"}"#, "line 2: 3 bytes of audio is an odd count"),
        (
            #"{"type":"response.output_audio.delta","response_id":"r"}"#,
            "line 2: response.output_audio.delta has no string \"delta\""
        ),
        ("not json at all", "line 2: invalid JSON"),
        // A HAR-style entry without its message (it was skipped as an unknown type "receive").
        (#"{"type":"receive","time":1.5,"opcode":1}"#, "line 2: a \"receive\" entry without its message"),
        (#"{"type":"receive","time":1.5,"data":7}"#, "\"data\" is not a string"),
    ]

    @Test(arguments: cases)
    func namesTheLineAndLeavesNoWAV(bad: String, message: String) throws {
        let s = Scratch()
        let r = try run([good, bad, good], in: s)
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(s.contents == ["in.jsonl"], "no partial WAV")
        let lenient = try run([good, bad, good], ["--lenient", "--json"], in: s)
        #expect(lenient.status == 0)
        let o = try #require(try JSONSerialization.jsonObject(with: lenient.stdout) as? [String: Any])
        #expect((o["skipped"] as? [String])?.count == 1)
        #expect(try samples(s.file("out.wav")) == [0, 1, 0, 1])
    }

    @Test func rateChangeMidStream() throws {
        let s = Scratch()
        let path = s.file("g.jsonl")
        let a =
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"AAABAA=="}}]}}}"#
        let b =
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=16000","data":"AAABAA=="}}]}}}"#
        try [a, b].joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLI.run(["deframe", path, "-o", s.file("o.wav")])
        #expect(r.status == 65)
        #expect(r.stderr.contains("line 2: the audio rate changes from 24000 Hz to 16000 Hz"))
    }

    @Test func aFiftyMegabyteLineIsRefused() throws {
        let s = Scratch()
        let path = s.file("big.jsonl")
        var big = Data((good + "\n").utf8)
        big.append(Data(repeating: UInt8(ascii: "A"), count: 50 << 20))
        big.append(Data(("\n" + good + "\n").utf8))
        try #require(FileManager.default.createFile(atPath: path, contents: big), "writing a test fixture")
        let r = try CLI.run(["deframe", path, "-o", s.file("o.wav"), "--profile", "openai-realtime"])
        #expect(r.status == 65)
        #expect(r.stderr.contains("line 2") && r.stderr.contains("MiB"))
        #expect(!FileManager.default.fileExists(atPath: s.file("o.wav")))
    }

    @Test func neverWritesOntoTheInput() throws {
        let s = Scratch()
        let path = s.file("cap.jsonl")
        try ([good, good].joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let r = try CLI.run(["deframe", path, "-o", path, "--profile", "openai-realtime"])
        #expect(r.status == 64 && r.stderr.contains("output is the input"))
        let t = try CLI.run(["deframe", path, "-o", s.file("o.wav"), "--trace", path])
        #expect(t.status == 64)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let f = try CLI.run(["frame", mic, "--profile", "gemini-live", "-o", mic])
        #expect(f.status == 64)
    }

    @Test func unknownTypesAreCountedNotFatal() throws {
        let s = Scratch()
        let r = try run([good, #"{"type":"x.y"}"#, #"{"type":"x.y"}"#, good], ["--json"], in: s)
        #expect(r.status == 0)
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect((o["unknownTypes"] as? [String: Int])?["x.y"] == 2)
    }

    @Test func emptyUndetectableAndAudiolessInputs() throws {
        let s = Scratch()
        try #require(
            FileManager.default.createFile(atPath: s.file("e.jsonl"), contents: Data()), "writing a test fixture")
        #expect(try CLI.run(["deframe", s.file("e.jsonl"), "-o", s.file("o.wav")]).status == 65)
        try #"{"hello":"world"}"#.write(toFile: s.file("u.jsonl"), atomically: true, encoding: .utf8)
        let u = try CLI.run(["deframe", s.file("u.jsonl"), "-o", s.file("o.wav")])
        #expect(u.status == 65 && u.stderr.contains("--profile"))
        let none = try CLI.run([
            "deframe", fixtures + "/openai-server.jsonl", "-o", s.file("o.wav"), "--direction", "client",
        ])
        #expect(none.status == 65 && none.stderr.contains("no client audio"))
        #expect(!FileManager.default.fileExists(atPath: s.file("o.wav")))
        let trace = try CLI.run([
            "deframe", fixtures + "/openai-server.jsonl", "-o", s.file("o.wav"), "--trace", s.file("t.csv"),
        ])
        #expect(trace.status == 64 && trace.stderr.contains("arrival times"))
    }
}

/// README's custom-template example: an API that is not built in (ElevenLabs Conversational AI:
/// `{"user_audio_chunk": base64}` up, `audio_event.audio_base_64` down, `interruption` events).
@Suite struct CustomTemplateExample {
    let profile = "custom:" + fixtures + "/elevenlabs-profile.json"

    @Test func framesTheClientMessagesAndDeframesTheAgent() throws {
        let s = Scratch()
        #expect(try CLI.run(["frame", mic, "--profile", profile, "-o", s.file("m.jsonl")]).status == 0)
        let first = try String(contentsOfFile: s.file("m.jsonl"), encoding: .utf8).split(separator: "\n")[0]
        #expect(first.hasPrefix(#"{"user_audio_chunk":""#) && first.hasSuffix(#""}"#))
        let (back, o) = try deframeJSON([
            s.file("m.jsonl"), "-o", s.file("b.wav"), "--profile", profile, "--direction", "client",
        ])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(o["rate"] as? Int == 16000)
        let (r, server) = try deframeJSON([
            fixtures + "/elevenlabs-server.jsonl", "-o", s.file("a.wav"), "--profile", profile,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try samples(s.file("a.wav")) == fixtureSamples)
        #expect(server["interruptions"] as? Int == 1)
        #expect((server["controls"] as? [String: Int])?["agent_response"] == 1)
        #expect((server["unknownTypes"] as? [String: Int])?["conversation_initiation_metadata"] == 1)
    }
}
