import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation
import Testing
import _AudioPipelineTestSupport

extension AudioOutput: AudioSinkUnderTest {}

/// Every audio file a job writes goes through `AudioOutput`: complete or not at all.
@Suite struct AudioOutputs {
    static let cases: [(OutputFileType, SampleEncoding, Int)] = [
        (.wav, .pcm16, 1), (.wav, .pcm16, 2), (.wav, .float32, 2), (.flac, .pcm16, 1), (.flac, .pcm16, 2),
        (.raw, .pcm16, 1),
        (.raw, .float32, 3),
    ]

    @Test(arguments: cases)
    func writesAndReadsBackExactly(type: OutputFileType, encoding: SampleEncoding, channels: Int) throws {
        let dir = TempDir()
        let path = dir.file("out." + type.rawValue)
        let format = try StreamFormat(sampleRate: SampleRate(24000), channels: channels)
        let w = try AudioOutput(path: path, type: type, encoding: encoding, format: format)
        let written = try writeRandomFrames(to: w, encoding: encoding, channels: channels)
        #expect(!FileManager.default.fileExists(atPath: path), "nothing at the target before commit")
        try w.commit()
        #expect(dir.contents == ["out." + type.rawValue], "no temporary file left")
        #expect(try readBackDifference(path, written: written, type: type, encoding: encoding, format: format) == nil)
    }

    @Test func anUncommittedWriterLeavesNothingAndKeepsTheOldFile() throws {
        let dir = TempDir()
        let target = dir.file("keep.wav")
        try #require(
            FileManager.default.createFile(atPath: target, contents: Data("precious".utf8)), "writing a test fixture")
        do {
            let w = try AudioOutput(
                path: target, type: .wav, encoding: .pcm16,
                format: try StreamFormat(sampleRate: SampleRate(8000), channels: 1))
            try [Int16](repeating: 1, count: 100).withUnsafeBufferPointer { try w.write($0) }
            #expect(dir.contents.count == 2, "temporary file beside the target while writing")
        }
        #expect(dir.contents == ["keep.wav"])
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
    }

    /// A long output that replaces a file is handed to the disk while it is written
    /// (`AtomicOutput.startWriteback`), not all at once by the rename: before `commit()` the
    /// writeback of all but the last chunk has been started; the file replaces the old one byte for
    /// byte. A new file and a device written in place start none. (What it saves is measured by
    /// `make bench-convert`.)
    @Test func aLongOutputIsWrittenBackWhileItIsWritten() throws {
        let dir = TempDir()
        let path = dir.file("long.raw")
        try #require(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)), "a file to replace")
        let format = try StreamFormat(sampleRate: SampleRate(48000), channels: 1)
        let w = try AudioOutput(path: path, type: .raw, encoding: .pcm16, format: format)
        let blocks = 12, samples = 1 << 19  // 1 MiB a block
        for k in 0..<blocks {
            let block = (0..<samples).map { Int16(truncatingIfNeeded: $0 &* 7 &+ k) }
            try block.withUnsafeBufferPointer { try w.write($0) }
        }
        let started = w.output.writebackStarted
        #expect(started >= 8 << 20 && started <= 12 << 20, "writeback started for \(started) bytes")
        try w.commit()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == blocks * samples * 2 && dir.contents == ["long.raw"])
        let mismatches = data.withUnsafeBytes { raw -> Int in
            let got = raw.bindMemory(to: Int16.self)
            var bad = 0
            for k in 0..<blocks {
                for i in 0..<samples where got[k * samples + i] != Int16(truncatingIfNeeded: i &* 7 &+ k) { bad += 1 }
            }
            return bad
        }
        #expect(mismatches == 0)
        let block = [Int16](repeating: 1, count: 5 << 20)
        for other in [dir.file("new.raw"), "/dev/null"] {
            let w = try AudioOutput(path: other, type: .raw, encoding: .pcm16, format: format)
            try block.withUnsafeBufferPointer { try w.write($0) }
            #expect(w.output.writebackStarted == 0, "\(other)")
            try w.commit()
        }
    }

    /// A special file is written in place, never renamed over (as root, a rename would replace the
    /// device with a regular file).
    @Test func writesDevicesInPlace() throws {
        let w = try AudioOutput(
            path: "/dev/null", type: .wav, encoding: .pcm16,
            format: try StreamFormat(sampleRate: SampleRate(8000), channels: 1))
        try [Int16](repeating: 1, count: 100).withUnsafeBufferPointer { try w.write($0) }
        try w.commit()
        var st = stat()
        #expect(stat("/dev/null", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR)
    }

    /// A temporary name fits a file-name component even for a 255-byte output name.
    @Test func longNamesStillGetATemporaryFile() throws {
        let dir = TempDir()
        let name = String(repeating: "n", count: 251) + ".wav"
        let w = try AudioOutput(
            path: dir.file(name), type: .wav, encoding: .pcm16,
            format: try StreamFormat(sampleRate: SampleRate(8000), channels: 1))
        try w.commit()
        #expect(dir.contents == [name])
    }
}
