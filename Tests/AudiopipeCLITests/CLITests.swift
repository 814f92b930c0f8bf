import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation
import Testing
import _AudioPipelineTestSupport

/// End-to-end: runs the built `audiopipe` as a user would.
struct CLI {
    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The `audiopipe` binary beside the test bundle (SwiftPM builds it because the test target
    /// depends on it).
    static let binary: String = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("audiopipe").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir.deleteLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/audiopipe").path
    }()

    static func run(_ args: [String], stdin: Data? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = stdin == nil ? FileHandle.nullDevice : inp
        try p.run()
        if let stdin {
            inp.fileHandleForWriting.write(stdin)
            try inp.fileHandleForWriting.close()
        }
        // stderr drained on its own thread, so a full stderr pipe cannot block the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let e = Box(), done = DispatchSemaphore(value: 0)
        let errFD = err.fileHandleForReading.fileDescriptor
        Thread {
            e.data = readToEnd(errFD)
            done.signal()
        }.start()
        let o = readToEnd(out.fileHandleForReading.fileDescriptor)
        done.wait()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: o, stderr: String(decoding: e.data, as: UTF8.self))
    }
}

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
let phone = root + "/samples/phone-capture-48k-f32-stereo.wav"
let mic = root + "/samples/mic-16k-pcm16-mono.wav"
let flac = root + "/samples/music-style-44k1-stereo.flac"

final class Scratch {
    let path = NSTemporaryDirectory() + "audiopipe-cli-" + UUID().uuidString
    init() { try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ n: String) -> String { path + "/" + n }
    var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

@Suite struct VersionOption {
    /// The version, the commit ("unknown" in a build from the working tree; `make dist` stamps it,
    /// checked by make check-dist) and the vector code this CPU's checks chose.
    @Test func saysTheVersionTheCommitAndTheVectorPath() throws {
        let r = try CLI.run(["--version"])
        #expect(r.status == 0)
        #expect(r.text == "audiopipe \(BuildInfo.version) (commit unknown) vector: \(VectorKernel.bestDescription)\n")
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            info.contains("GenuineIntel") || info.contains("AuthenticAMD")
        else { return }
        let fir = info.contains(" avx2") && info.contains(" fma"), b64 = info.contains(" ssse3")
        let firName = info.contains(" avx512f") ? "AVX-512" : "AVX2+FMA"
        let expected =
            fir && b64
            ? "\(firName) (resampler), SSSE3 (base64)"
            : b64 ? "SSSE3 (base64), portable Swift (resampler)" : "portable Swift"
        #expect(VectorKernel.bestDescription == expected)
    }
}

@Suite struct InfoCommand {
    @Test func describesEverySample() throws {
        let r = try CLI.run(["info", phone, mic, flac])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("float32") && r.text.contains("48000 Hz") && r.text.contains("flac"))
    }

    @Test func jsonAgreesWithTheFile() throws {
        let r = try CLI.run(["info", "--json", phone])
        #expect(r.status == 0)
        let arr = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]])
        let o = try #require(arr.first)
        #expect(o["sampleRate"] as? Int == 48000)
        #expect(o["channels"] as? Int == 2)
        #expect(o["encoding"] as? String == "float32")
        #expect(o["container"] as? String == "wav")
        let frames = try #require(o["frames"] as? Int)
        #expect(abs((o["durationSeconds"] as? Double ?? 0) - Double(frames) / 48000) < 1e-9)
        #expect(o["clippedSamples"] as? Int == 0)
        #expect((o["peakDBFS"] as? Double ?? 0) < 0)
        #expect((o["perChannel"] as? [Any])?.count == 2)
    }

    @Test func levelsAgreeWithSoxStats() throws {
        // sox's `stats` is the tool users compare with: same peak and RMS in dB.
        let text = try runTool("/usr/bin/env", ["sox", mic, "-n", "stats"]).err
        func soxValue(_ key: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(key) }.flatMap { Double($0.split(separator: " ").last!) }
        }
        let r = try CLI.run(["info", "--json", mic])
        let o = try #require((try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]])?.first)
        #expect(abs((o["peakDBFS"] as! Double) - soxValue("Pk lev dB")!) < 0.01)
        #expect(abs((o["rmsDBFS"] as! Double) - soxValue("RMS lev dB")!) < 0.01)
    }

    @Test func badFilesFailOneByOneWithTheirNames() throws {
        let s = Scratch()
        try #require(
            FileManager.default.createFile(atPath: s.file("empty.wav"), contents: Data()), "writing a test fixture")
        let r = try CLI.run(["info", mic, s.file("empty.wav"), s.file("missing.wav")])
        #expect(r.status == 65, "first failure decides: empty file is bad data")
        #expect(r.text.contains("mic-16k"), "good files are still described")
        #expect(r.stderr.contains("empty.wav: file is empty"))
        #expect(r.stderr.contains("missing.wav: no such file"))
    }
}

@Suite struct ConvertCommand {
    @Test func phoneCaptureToVoiceAPIFormat() throws {
        let s = Scratch()
        let out = s.file("mic16k.wav")
        let r = try CLI.run(["convert", phone, out, "--rate", "16000", "--channels", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let reader = try AudioFileReader(path: out)
        #expect(
            reader.format.sampleRate.hz == 16000 && reader.format.channels == 1
                && reader.description.encoding == "pcm16")
        let inFrames = try #require(try AudioFileReader(path: phone).description.frames)
        #expect(reader.description.frames == (inFrames + 2) / 3, "ceil(n / 3)")
        #expect(s.contents == ["mic16k.wav"], "no temporary file left")
    }

    @Test func pcm16ToPCM16IsBitExact() throws {
        let s = Scratch()
        let out = s.file("copy.wav")
        #expect(try CLI.run(["convert", mic, out]).status == 0)
        let a = try AudioFileReader(path: mic), b = try AudioFileReader(path: out)
        var x = [Int16](repeating: 0, count: 1 << 16), y = x
        let n = try x.withUnsafeMutableBufferPointer { try a.read(into: $0) }
        let m = try y.withUnsafeMutableBufferPointer { try b.read(into: $0) }
        #expect(n == m && x == y)
    }

    @Test func iosModeMatchesTheIOSCodeOnARealFile() throws {
        let s = Scratch()
        let out = s.file("ios.wav")
        #expect(
            try CLI.run(["convert", phone, out, "--channels", "1", "--channel", "1", "--compat", "ios"]).status == 0)
        // Oracle: left channel of the float file through the iOS expression.
        let src = try AudioFileReader(path: phone)
        var f = [Float](repeating: 0, count: 2 * 200_000)
        let n = try f.withUnsafeMutableBufferPointer { try src.read(into: $0) }
        let expected = (0..<n).map { Int16(max(-1.0, min(1.0, f[2 * $0])) * Float(Int16.max)) }
        let got = try AudioFileReader(path: out)
        var y = [Int16](repeating: 0, count: 200_000)
        let m = try y.withUnsafeMutableBufferPointer { try got.read(into: $0) }
        #expect(m == n && Array(y[0..<m]) == expected)
    }

    @Test func stdinToStdoutRaw() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: mic))
        let r = try CLI.run(["convert", "-", "-", "--type", "raw"], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == input.dropFirst(44), "raw PCM16 of a canonical 44-byte-header WAV")
        #expect(r.stderr.contains("frames"), "the report goes to stderr when stdout carries audio")
    }

    @Test func monoIsDuplicatedToEveryChannel() throws {
        let s = Scratch()
        #expect(try CLI.run(["convert", mic, s.file("st.wav"), "-c", "2", "-r", "24000"]).status == 0)
        #expect(try CLI.run(["convert", mic, s.file("mono.wav"), "-r", "24000"]).status == 0)
        let stereo = try AudioFileReader(path: s.file("st.wav"))
        #expect(stereo.format.channels == 2)
        var st = [Int16](repeating: 0, count: 200_000), mo = st
        let n = try st.withUnsafeMutableBufferPointer { try stereo.read(into: $0) }
        let m = try mo.withUnsafeMutableBufferPointer { try AudioFileReader(path: s.file("mono.wav")).read(into: $0) }
        #expect(n == m && n > 0)
        let left: [Int16] = (0..<n).map { st[2 * $0] }, right: [Int16] = (0..<n).map { st[2 * $0 + 1] }
        let mono = Array(mo[0..<n])
        #expect(left == mono)
        #expect(right == mono)
    }

    @Test func wavToAPipeHasAStreamingHeader() throws {
        let r = try CLI.run(["convert", mic, "-", "--type", "wav"])
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = [UInt8](r.stdout)
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Array(bytes[36..<40]) == Array("data".utf8) && Array(bytes[40..<44]) == [0xFF, 0xFF, 0xFF, 0xFF])
        // The samples after the header are the file's own PCM (a canonical 44-byte-header WAV).
        let original = try Data(contentsOf: URL(fileURLWithPath: mic))
        #expect(r.stdout.dropFirst(44) == original.dropFirst(44))
        // And our reader reads the stream back from stdin.
        let info = try CLI.run(["info", "--json", "-"], stdin: r.stdout)
        let o = try #require((try JSONSerialization.jsonObject(with: info.stdout) as? [[String: Any]])?.first)
        #expect(o["frames"] as? Int == (original.count - 44) / 2)
        let flac = try CLI.run(["convert", mic, "-", "--type", "flac"])
        #expect(flac.status == 64 && flac.stderr.contains("pipe"))
    }

    @Test func writesFLACAndRawByExtension() throws {
        let s = Scratch()
        #expect(try CLI.run(["convert", phone, s.file("a.flac"), "-r", "24000", "-c", "1"]).status == 0)
        #expect(try AudioFileReader(path: s.file("a.flac")).description.container == "flac")
        #expect(try CLI.run(["convert", phone, s.file("a.raw"), "-r", "24000", "-c", "1"]).status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: s.file("a.raw"))[.size] as! Int
        let flacFrames = try #require(try AudioFileReader(path: s.file("a.flac")).description.frames)
        #expect(size == 2 * flacFrames)
    }

    @Test func jsonReport() throws {
        let s = Scratch()
        let r = try CLI.run([
            "convert", flac, s.file("o.wav"), "-r", "16000", "-c", "1", "--json", "--resampler", "src-medium",
        ])
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(o["framesIn"] as? Int == 110_250)
        #expect(o["framesOut"] as? Int == 40_000)
        #expect(o["resampler"] as? String == "src-medium")
    }
}

@Suite struct ConvertBadInput {
    /// Runs a failing conversion and checks: exit code, one line naming `names`, no output left.
    func expectFailure(
        _ args: [String], status: Int32, names: String, says: String, in s: Scratch, keeps existing: [String] = []
    ) throws {
        let r = try CLI.run(["convert"] + args)
        #expect(r.status == status, "\(args): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count >= 1)
        #expect(r.stderr.contains(names), "\(r.stderr)")
        #expect(r.stderr.localizedCaseInsensitiveContains(says), "\(r.stderr)")
        #expect(s.contents == existing.sorted(), "nothing left behind: \(s.contents)")
    }

    @Test func missingEmptyCorruptAndUnsupportedInputs() throws {
        let s = Scratch()
        let out = s.file("out.wav")
        try expectFailure([s.file("nope.wav"), out], status: 66, names: "nope.wav", says: "no such file", in: s)
        try #require(
            FileManager.default.createFile(atPath: s.file("empty.wav"), contents: Data()), "writing a test fixture")
        try expectFailure(
            [s.file("empty.wav"), out], status: 65, names: "empty.wav", says: "empty", in: s, keeps: ["empty.wav"])
        try FileManager.default.removeItem(atPath: s.file("empty.wav"))
        let wav = try Data(contentsOf: URL(fileURLWithPath: mic))
        try #require(
            FileManager.default.createFile(atPath: s.file("trunc.wav"), contents: wav.prefix(20)),
            "writing a test fixture")
        try expectFailure(
            [s.file("trunc.wav"), out], status: 65, names: "trunc.wav", says: "cannot decode", in: s,
            keeps: ["trunc.wav"])
        try FileManager.default.removeItem(atPath: s.file("trunc.wav"))
        try #require(
            FileManager.default.createFile(atPath: s.file("notes.txt"), contents: Data("not audio at all".utf8)),
            "writing a test fixture")
        try expectFailure(
            [s.file("notes.txt"), out], status: 65, names: "notes.txt", says: "cannot decode", in: s,
            keeps: ["notes.txt"])
    }

    @Test func corruptDataPartWayLeavesNoPartialFileAndKeepsTheOldOutput() throws {
        let s = Scratch()
        // A FLAC whose audio frames are overwritten with garbage after the header.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: flac))
        for i in 8_000..<bytes.count where i % 3 == 0 { bytes[i] = UInt8(truncatingIfNeeded: i * 7919) }
        try #require(
            FileManager.default.createFile(atPath: s.file("bad.flac"), contents: bytes), "writing a test fixture")
        try #require(
            FileManager.default.createFile(atPath: s.file("out.wav"), contents: Data("old output".utf8)),
            "writing a test fixture")
        let r = try CLI.run(["convert", s.file("bad.flac"), s.file("out.wav")])
        #expect(r.status != 0)
        #expect(r.stderr.contains("bad.flac"), "\(r.stderr)")
        #expect(s.contents == ["bad.flac", "out.wav"])
        #expect(try String(contentsOfFile: s.file("out.wav"), encoding: .utf8) == "old output")
    }

    @Test func configurationErrors() throws {
        let s = Scratch()
        let out = s.file("o.wav")
        try expectFailure([mic, out, "--rate", "0"], status: 64, names: "--rate", says: "not positive", in: s)
        try expectFailure([mic, out, "--rate=-16000"], status: 64, names: "--rate", says: "not positive", in: s)
        try expectFailure([mic, out, "--rate", "800000"], status: 64, names: "--rate", says: "768000", in: s)
        try expectFailure([mic, mic], status: 64, names: "mic-16k-pcm16-mono.wav", says: "output is the input", in: s)
        try expectFailure(
            [mic, "/no/such/dir/o.wav"], status: 73, names: "/no/such/dir/o.wav", says: "does not exist", in: s)
        try expectFailure([mic, s.file("o.flac"), "-e", "float32"], status: 64, names: "o.flac", says: "FLAC", in: s)
        try expectFailure([mic, s.file("o.xyz")], status: 64, names: "o.xyz", says: "output type", in: s)
        try expectFailure(
            [mic, out, "--channel", "2"], status: 64, names: "mic-16k", says: "channel 2 does not exist", in: s)
        try expectFailure(
            [phone, out, "--channels", "3"], status: 64, names: "phone-capture", says: "cannot map 2 channels to 3",
            in: s)
        try expectFailure(
            [mic, out, "--compat", "ios", "--dither", "tpdf"], status: 64, names: "--dither", says: "ios", in: s)
        try #require(
            FileManager.default.createFile(atPath: s.file("x.raw"), contents: Data(count: 100)),
            "writing a test fixture")
        try expectFailure(
            [s.file("x.raw"), out], status: 64, names: "x.raw", says: "--in-rate", in: s, keeps: ["x.raw"])
        try expectFailure(
            [s.file("x.raw"), out, "--in-rate", "16000"], status: 64, names: "--in-channels", says: "raw", in: s,
            keeps: ["x.raw"])
    }

    @Test func unwritableDirectory() throws {
        guard getuid() != 0 else { return }  // root writes anywhere; covered by the missing-directory case
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("ro"), withIntermediateDirectories: false)
        chmod(s.file("ro"), 0o500)
        defer { chmod(s.file("ro"), 0o700) }
        let r = try CLI.run(["convert", mic, s.file("ro/o.wav")])
        #expect(r.status == 73)
    }
}

@Suite struct ProgressBar {
    /// A bar (%, × realtime, ETA) on a terminal; nothing on a pipe. `script` gives the child a
    /// pseudo-terminal.
    @Test func drawsOnlyOnATerminal() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"))
        let s = Scratch()
        let long = s.file("long.wav")
        try #require(
            try runTool(
                "/usr/bin/env",
                ["sox", "-n", "-r", "48000", "-c", "1", long, "synth", "120", "sine", "440", "gain", "-6"]
            ).status == 0)
        let args = ["convert", long, s.file("o.wav"), "-r", "16000", "--resampler", "src-best"]
        let command = ([CLI.binary] + args).joined(separator: " ")
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm"
        let tty = try runTool("/usr/bin/script", ["-qec", command, "/dev/null"], environment: env)
        #expect(tty.status == 0)
        #expect(
            tty.out.contains("realtime") && tty.out.contains("ETA") && tty.out.contains("%"), "\(tty.out.suffix(300))")
        let piped = try CLI.run(args)
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("ETA") && !piped.text.contains("ETA"))
    }
}
