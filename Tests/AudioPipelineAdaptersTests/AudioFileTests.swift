import AudioPipelineAdapters
import AudioPipelineCore
import CSndFile
import Foundation
import Testing
import _AudioPipelineTestSupport

@Suite struct ReadingFormats {
    /// Files made by sox (an independent writer) in every container the issue names.
    static let soxFormats: [(ext: String, container: String, encodingArgs: [String], lossy: Bool)] = [
        ("wav", "wav", ["-b", "16"], false), ("flac", "flac", ["-b", "16"], false), ("ogg", "ogg", [], true),
        ("aiff", "aiff", ["-b", "16"], false), ("caf", "caf", ["-b", "16"], false),
        ("w64", "w64", ["-b", "16"], false),
        ("wav", "wav", ["-e", "floating-point", "-b", "32"], false), ("aiff", "aiff", ["-b", "24"], false),
    ]

    @Test(arguments: 0..<soxFormats.count)
    func readsWhatSoxWrites(index: Int) throws {
        let f = Self.soxFormats[index]
        let dir = TempDir()
        let path = dir.file("tone.\(f.ext)")
        try #require(
            try run(
                "sox",
                ["-n", "-r", "22050", "-c", "2"] + f.encodingArgs + [path, "synth", "1", "sine", "440", "gain", "-6"])
                == 0)
        let (desc, samples) = try readAllFloats(path)
        #expect(desc.container == f.container)
        #expect(desc.format.sampleRate.hz == 22050)
        #expect(desc.format.channels == 2)
        let frames = samples.count / 2
        #expect(f.lossy ? abs(frames - 22050) < 2000 : frames == 22050)
        let peak = samples.map { abs($0) }.max() ?? 0
        #expect(abs(SignalStatistics.dBFS(Double(peak)) + 6) < (f.lossy ? 1.0 : 0.05))
    }

    @Test func readsRF64WrittenByLibsndfile() throws {
        let dir = TempDir()
        let path = dir.file("x.rf64")
        var info = SF_INFO(
            frames: 0, samplerate: 8000, channels: 1, format: Int32(SF_FORMAT_RF64 | SF_FORMAT_PCM_16), sections: 0,
            seekable: 0)
        let h = try #require(sf_open(path, Int32(SFM_WRITE), &info))
        let data: [Int16] = (0..<800).map { Int16($0 * 40 - 16000) }
        _ = data.withUnsafeBufferPointer { sf_writef_short(h, $0.baseAddress, 800) }
        sf_close(h)
        let desc = try AudioFileReader(path: path).description
        #expect(desc.container == "rf64")
        #expect(try readAllInt16(path) == data)
    }

    @Test func readsRawWithAnExplicitFormat() throws {
        let dir = TempDir()
        let path = dir.file("x.raw")
        let data: [Int16] = [0, 1, -1, 32767, -32768, 1234]
        try #require(
            FileManager.default.createFile(atPath: path, contents: data.withUnsafeBytes { Data($0) }),
            "writing a test fixture")
        let raw = RawFormat(format: try StreamFormat(sampleRate: SampleRate(16000), channels: 1), encoding: .pcm16)
        #expect(try readAllInt16(path, raw: raw) == data)
        let (desc, floats) = try readAllFloats(path, raw: raw)
        #expect(desc.container == "raw" && desc.encoding == "pcm16")
        #expect(floats == data.map { Float($0) / 32768 })
        #expect(throws: AudioPipelineError.self) { _ = try AudioFileReader(path: path) }  // no format given
    }

    @Test(arguments: [1, 7, 4096])
    func blockSizeDoesNotChangeWhatIsRead(block: Int) throws {
        let path = repositoryRoot + "/samples/music-style-44k1-stereo.flac"
        let (_, whole) = try readAllFloats(path, block: 1 << 20)
        let (_, blocked) = try readAllFloats(path, block: block)
        #expect(firstDifference(blocked, whole) == nil)
    }
}

@Suite struct ReadingBadFiles {
    @Test func namesTheFileAndTheProblem() throws {
        let dir = TempDir()
        func expectError(_ path: String, _ code: AudioPipelineError.Code, _ fragment: String) {
            do {
                _ = try AudioFileReader(path: path)
                Issue.record("\(path) opened")
            } catch {
                #expect(error.code == code, "\(error.message)")
                #expect(error.message.hasPrefix(path), "\(error.message)")
                #expect(error.message.localizedCaseInsensitiveContains(fragment), "\(error.message)")
            }
        }
        expectError(dir.file("missing.wav"), .inputUnavailable, "no such file")
        try #require(
            FileManager.default.createFile(atPath: dir.file("empty.wav"), contents: Data()), "writing a test fixture")
        expectError(dir.file("empty.wav"), .invalidData, "empty")
        try #require(
            FileManager.default.createFile(atPath: dir.file("text.wav"), contents: Data("hello, not audio\n".utf8)),
            "writing a test fixture")
        expectError(dir.file("text.wav"), .invalidData, "decode")
        let sample = try Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/samples/mic-16k-pcm16-mono.wav"))
        try #require(
            FileManager.default.createFile(atPath: dir.file("trunc.wav"), contents: sample.prefix(30)),
            "writing a test fixture")
        expectError(dir.file("trunc.wav"), .invalidData, "decode")
        expectError(dir.path, .inputUnavailable, "directory")
        // A header declaring 0 channels.
        var zero = sample.prefix(44)
        zero[22] = 0
        zero[23] = 0
        try #require(
            FileManager.default.createFile(atPath: dir.file("zero.wav"), contents: zero + sample.dropFirst(44)),
            "writing a test fixture")
        expectError(dir.file("zero.wav"), .invalidData, "channel count is zero")
        // A PCM header whose sample width disagrees with its frame size (7 bits, 2-byte frames):
        // libsndfile would read it as 8-bit, twice as many frames.
        var seven = sample.prefix(44)
        seven[34] = 7
        let sevenPath = dir.file("bits7.wav")
        try #require(FileManager.default.createFile(atPath: sevenPath, contents: seven + sample.dropFirst(44)))
        expectError(sevenPath, .invalidData, "header is absurd: 7-bit samples in 2-byte frames of 1 channel")
        // Headers declaring 1 Hz and 999 Hz (a second of audio would be hours of it): absurd; 1000 Hz reads.
        for (hz, opens) in [(1, false), (999, false), (1000, true)] {
            var rated = sample.prefix(44)
            withUnsafeBytes(of: UInt32(hz).littleEndian) { rated.replaceSubrange(24..<28, with: $0) }
            withUnsafeBytes(of: UInt32(hz * 2).littleEndian) { rated.replaceSubrange(28..<32, with: $0) }
            let path = dir.file("rate\(hz).wav")
            try #require(FileManager.default.createFile(atPath: path, contents: rated + sample.dropFirst(44)))
            if opens {
                #expect(try AudioFileReader(path: path).format.sampleRate.hz == hz)
            } else {
                expectError(path, .invalidData, "header is absurd: sample rate \(hz) Hz")
            }
        }
    }
}

/// libsndfile keeps a failed open's error in one process-wide variable, and every open clears it:
/// opened side by side (a batch's workers), a file that is not audio must still say why, not
/// "No Error" (`SndFileOpen`; without its lock, 3 of 300 such files in a 2-job `convert` did).
@Suite struct OpeningSideBySide {
    @Test func eachFailedOpenKeepsItsOwnReason() throws {
        let dir = TempDir()
        let bad = dir.file("text.wav")
        try #require(FileManager.default.createFile(atPath: bad, contents: Data("not audio\n".utf8)))
        let good = repositoryRoot + "/samples/mic-16k-pcm16-mono.wav"
        let rounds = 400
        let reasons = Reasons()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for _ in 0..<rounds {
                if worker % 2 == 0 {
                    _ = try? AudioFileReader(path: good)
                    continue
                }
                let reason: String
                do throws(AudioPipelineError) {
                    _ = try AudioFileReader(path: bad)
                    reason = "opened"
                } catch {
                    reason = error.message
                }
                reasons.add(reason)
            }
        }
        let all = reasons.all
        #expect(all.count == 2 * rounds)
        let wrong = all.filter { !$0.hasSuffix(": cannot decode: Format not recognised") }
        #expect(wrong.isEmpty, "\(wrong.count) of \(all.count): \(Set(wrong))")
    }

    /// The workers' reasons, gathered under a lock.
    final class Reasons: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ reason: String) { lock.withLock { list.append(reason) } }
        var all: [String] { lock.withLock { list } }
    }
}

@Suite struct NonFiniteSamples {
    /// NaN in a float file reads as 0 and ±inf as ±full scale (1), counted, the first one's frame
    /// kept — wherever they fall: inside an eight-sample group, at a block's tail, at the very end.
    @Test func areReadAsZeroOrFullScaleAndCounted() throws {
        let dir = TempDir()
        var x = (0..<1003).map { Float(sin(Double($0) * 0.1)) * 0.5 }
        let bad: [(Int, Float)] = [(9, .nan), (10, .infinity), (500, -.infinity), (1001, .nan), (1002, .nan)]
        for (k, v) in bad { x[k] = v }
        let w = try AudioFileWriter(
            path: dir.file("f.wav"), type: .wav, encoding: .float32,
            format: StreamFormat(sampleRate: SampleRate(16000), channels: 1))
        try x.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try w.write(p) }
        try w.commit()
        for block in [1003, 100, 7] {
            let r = try AudioFileReader(path: dir.file("f.wav"))
            var all: [Float] = [], buf = [Float](repeating: 0, count: block)
            while true {
                let n = try buf.withUnsafeMutableBufferPointer { try r.read(into: $0) }
                if n == 0 { break }
                all += buf[0..<n]
            }
            #expect(r.nonFiniteSamples == bad.count && r.firstNonFiniteFrame == 9, "block \(block)")
            var expected = x
            for (k, v) in bad { expected[k] = v.isNaN ? 0 : v > 0 ? 1 : -1 }
            #expect(all == expected, "block \(block)")
        }
    }
}

@Suite struct HeaderOnlyFiles {
    /// A WAV header whose data chunk announces a second of audio, and no audio after it: the reader
    /// says how much is missing (from the header's block align, as no frame is there to count).
    @Test(arguments: [(1, 1, 16), (1, 2, 16), (3, 1, 32)] as [(UInt16, UInt16, UInt16)])
    func sayHowMuchIsMissing(format: UInt16, channels: UInt16, bits: UInt16) throws {
        let dir = TempDir()
        let align = channels * bits / 8
        let rate: UInt32 = 16_000
        var d = Data("RIFF".utf8)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        u32(36 + rate * UInt32(align))
        d.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(format)
        u16(channels)
        u32(rate)
        u32(rate * UInt32(align))
        u16(align)
        u16(bits)
        d.append(contentsOf: Array("data".utf8))
        u32(rate * UInt32(align))  // a second announced
        try d.write(to: URL(fileURLWithPath: dir.file("h.wav")))
        let r = try AudioFileReader(path: dir.file("h.wav"))
        var buf = [Float](repeating: 0, count: 1024)
        #expect(try buf.withUnsafeMutableBufferPointer { try r.read(into: $0) } == 0)
        #expect(r.missingFrames == 16_000, "format \(format), \(channels) channels")
    }
}

@Suite struct WritingRoundTrips {
    static let cases: [(OutputFileType, SampleEncoding, Int)] = [
        (.wav, .pcm16, 1), (.wav, .pcm16, 2), (.wav, .float32, 2), (.flac, .pcm16, 1), (.flac, .pcm16, 2),
        (.raw, .pcm16, 1),
        (.raw, .float32, 3),
    ]

    /// (Writing through the atomic output — nothing at the target before commit, an uncommitted
    /// writer leaves nothing — is tested with `AudioOutput` in AudioPipelineWorkflowsTests.)
    @Test(arguments: cases)
    func writesAndReadsBackExactly(type: OutputFileType, encoding: SampleEncoding, channels: Int) throws {
        let dir = TempDir()
        let path = dir.file("out." + type.rawValue)
        let format = try StreamFormat(sampleRate: SampleRate(24000), channels: channels)
        let w = try AudioFileWriter(path: path, type: type, encoding: encoding, format: format)
        let written = try writeRandomFrames(to: w, encoding: encoding, channels: channels)
        try w.commit()
        #expect(dir.contents == ["out." + type.rawValue])
        #expect(try readBackDifference(path, written: written, type: type, encoding: encoding, format: format) == nil)
    }

    @Test func refusesWhatCannotBeWritten() throws {
        let f = try StreamFormat(sampleRate: SampleRate(8000), channels: 1)
        #expect(throws: AudioPipelineError.self) {
            _ = try AudioFileWriter(path: "/tmp/x.flac", type: .flac, encoding: .float32, format: f)
        }
        #expect(throws: AudioPipelineError.self) {
            _ = try AudioFileWriter(path: "/no/such/dir/x.wav", type: .wav, encoding: .pcm16, format: f)
        }
        #expect(throws: AudioPipelineError.self) {
            _ = try AudioFileWriter(path: "/tmp/x.wav", type: .wav, encoding: .pcm24, format: f)
        }
    }
}

extension AudioFileWriter: AudioSinkUnderTest {}
