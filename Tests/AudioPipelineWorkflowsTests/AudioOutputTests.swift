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
