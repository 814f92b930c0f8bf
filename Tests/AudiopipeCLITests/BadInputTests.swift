import Foundation
import Testing
import _AudioPipelineTestSupport

/// The bad-input cases of issue 32, each as a user meets it.
@Suite struct BadInputs {
    /// A 16 kHz mono WAV header of `format` (1 PCM, 3 float) and `bits`, whose data chunk announces
    /// `announced` bytes, followed by `payload`.
    static func wav(format: UInt16 = 1, bits: UInt16 = 16, announced: UInt32, payload: Data = Data()) -> Data {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8))
        u32(36 + announced)
        d.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(format)
        u16(1)
        u32(16_000)
        u32(16_000 * UInt32(bits / 8))
        u16(bits / 8)
        u16(bits)
        d.append(contentsOf: Array("data".utf8))
        u32(announced)
        return d + payload
    }

    /// A header whose data chunk promises a second of audio that never came: a warning (as a
    /// truncated file), with --strict exit 65 and no output — from a file or from stdin.
    @Test func aHeaderOnlyWAVIsTruncated() throws {
        let s = Scratch()
        try Self.wav(announced: 32_000).write(to: URL(fileURLWithPath: s.file("h.wav")))
        let c = try CLI.run(["convert", s.file("h.wav"), s.file("o.wav")])
        #expect(c.status == 0 && c.stderr.contains("truncated: the header announces 16000 more frames"), "\(c.stderr)")
        let strict = try CLI.run(["convert", s.file("h.wav"), s.file("p.wav"), "--strict"])
        #expect(strict.status == 65 && strict.stderr.contains("truncated") && !s.contents.contains("p.wav"))
        let info = try CLI.run(["info", s.file("h.wav")])
        #expect(info.stderr.contains("truncated"), "\(info.stderr)")
        let piped = try CLI.run(["convert", "-", s.file("q.wav"), "--strict"], stdin: Self.wav(announced: 32_000))
        #expect(piped.status == 65 && piped.stderr.contains("stdin: truncated"), "\(piped.stderr)")
        // An empty data chunk that promises nothing is a whole (empty) file.
        try Self.wav(announced: 0).write(to: URL(fileURLWithPath: s.file("e.wav")))
        let empty = try CLI.run(["convert", s.file("e.wav"), s.file("r.wav"), "--strict"])
        #expect(empty.status == 0 && !empty.stderr.contains("truncated"), "\(empty.stderr)")
    }

    /// ±inf saturate to ±full scale (NaN is 0), counted and warned like NaN.
    @Test func infinitiesSaturate() throws {
        let s = Scratch()
        let x: [Float] = [0.5, .infinity, -.infinity, .nan, -0.25, 1]
        let payload = x.withUnsafeBytes { Data($0) }
        try Self.wav(format: 3, bits: 32, announced: UInt32(payload.count), payload: payload)
            .write(to: URL(fileURLWithPath: s.file("f.wav")))
        let c = try CLI.run(["convert", s.file("f.wav"), s.file("p.wav"), "--json"])
        #expect(c.status == 0, "\(c.stderr)")
        #expect(c.stderr.contains("3 samples are NaN or infinite") && c.stderr.contains("±full scale"), "\(c.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: c.stdout) as? [String: Any])
        #expect(report["nanSamples"] as? Int == 3)
        #expect(try readAllInt16(s.file("p.wav")) == [16384, 32767, -32768, 0, -8192, 32767])
        #expect(try CLI.run(["convert", s.file("f.wav"), s.file("q.wav"), "-e", "float32"]).status == 0)
        #expect(try readAllFloats(s.file("q.wav")).1 == [0.5, 1, -1, 0, -0.25, 1])
        let strict = try CLI.run(["convert", s.file("f.wav"), s.file("r.wav"), "--strict"])
        #expect(strict.status == 65 && !s.contents.contains("r.wav"))
    }

    @Test func aDirectoryAsTheInputOfInOutIsNamed() throws {
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("adir.wav"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: mic, toPath: s.file("adir.wav/a.wav"))
        let r = try CLI.run(["convert", s.file("adir.wav"), s.file("out.wav")])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("adir.wav is a directory: a batch writes files: give an output directory, -o DIR"))
        #expect(s.contents == ["adir.wav"])
        let many = try CLI.run(["convert", mic, phone, s.file("x.wav")])
        #expect(many.status == 64 && many.stderr.contains("3 inputs"), "\(many.stderr)")
    }

    @Test func outOfRangeValuesNameTheirOption() throws {
        let chunk = try CLI.run([
            "frame", mic, "--profile", "openai-realtime", "--chunk-ms", "0.001", "-o", "/dev/null",
        ])
        #expect(chunk.status == 64 && chunk.stderr.contains("--chunk-ms"), "\(chunk.stderr)")
        let rate = try CLI.run(["frame", mic, "--profile", "deepgram", "--rate", "0", "-o", "/dev/null"])
        #expect(rate.status == 64 && rate.stderr.contains("--rate"), "\(rate.stderr)")
    }

    /// A report that cannot be written fails the run, which then leaves no output.
    @Test func aReportThatCannotBeWrittenLeavesNoOutput() throws {
        let s = Scratch()
        let session = root + "/samples/agent-session.jsonl"
        for (command, outputs) in [
            ("deframe '\(session)' -o '\(s.file("out.wav"))' --trace '\(s.file("t.csv"))' --json", ["out.wav"]),
            ("convert '\(mic)' '\(s.file("c.wav"))'", ["c.wav"]),
            ("frame '\(mic)' --profile gemini-live -o '\(s.file("m.jsonl"))' --json", ["m.jsonl"]),
        ] {
            let r = try runTool("/bin/sh", ["-c", "'\(CLI.binary)' \(command) > /dev/full"])
            #expect(r.status == 74, "\(command): \(r.err)")
            for o in outputs { #expect(!s.contents.contains(o), "\(command): \(s.contents)") }
        }
        #expect(s.contents.isEmpty, "\(s.contents)")
        // Written whole when the report is.
        let ok = try runTool(
            "/bin/sh", ["-c", "'\(CLI.binary)' deframe '\(session)' -o '\(s.file("a.wav"))' > /dev/null"])
        #expect(ok.status == 0 && s.contents == ["a.wav"], "\(ok.err)")
    }

    /// An output that is standard output by another name (`/dev/stdout`, `/dev/fd/1`, a link to
    /// either) is treated as `-`: the audio alone on stdout, the summary on stderr; a link is never
    /// replaced by a file.
    @Test func standardOutputByAnotherNameGetsOnlyTheAudio() throws {
        let s = Scratch()
        try FileManager.default.createSymbolicLink(atPath: s.file("link.wav"), withDestinationPath: "/dev/stdout")
        for name in ["/dev/stdout", "/dev/fd/1", s.file("link.wav")] {
            // stdout a pipe
            let piped = try CLI.run(["convert", mic, name, "--type", "wav"])
            #expect(piped.status == 0, "\(name): \(piped.stderr)")
            #expect(piped.stderr.contains("-> \(name)"), "the summary on stderr: \(piped.stderr)")
            try piped.stdout.write(to: URL(fileURLWithPath: s.file("piped.wav")))
            #expect(try readAllInt16(s.file("piped.wav")) == (try readAllInt16(mic)), "\(name): the audio alone")
            // stdout a file (seekable: a whole header). Not /dev/stdout itself here: were it ever
            // renamed over again, the test would replace the system's /dev/stdout with a file.
            if name == "/dev/stdout" { continue }
            let file = try runTool(
                "/bin/sh", ["-c", "'\(CLI.binary)' convert '\(mic)' '\(name)' --type wav > '\(s.file("file.wav"))'"])
            #expect(file.status == 0 && file.err.contains("-> \(name)"), "\(name): \(file.err)")
            #expect(try readAllInt16(s.file("file.wav")) == (try readAllInt16(mic)), "\(name)")
        }
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: s.file("link.wav"))
        #expect(link == "/dev/stdout", "the link is still a link")
        #expect(s.contents == ["file.wav", "link.wav", "piped.wav"], "no temporary file: \(s.contents)")
    }
}
