// Helpers shared by the test targets (not a product; underscored: not API).

import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// Deterministic random numbers for tests (SplitMix64), so failures reproduce.
public struct TestRNG: RandomNumberGenerator {
    var inner: SplitMix64
    public init(seed: UInt64) { inner = SplitMix64(seed: seed) }
    public mutating func next() -> UInt64 { inner.next() }
}

/// Splits `total` into random block sizes in `1...maxBlock`, with runs of 1 included.
public func randomBlocks(total: Int, maxBlock: Int, rng: inout TestRNG) -> [Int] {
    var sizes: [Int] = []
    var left = total
    while left > 0 {
        let s = Bool.random(using: &rng) && Bool.random(using: &rng) ? 1 : Int.random(in: 1...maxBlock, using: &rng)
        let take = min(s, left)
        sizes.append(take)
        left -= take
    }
    return sizes
}

/// Runs a stage over `input` cut into `blocks` (sizes in the stage's input units), with an output
/// buffer of exactly `maxOutputCount` per call, and returns everything it produced (then finish).
public func runInBlocks<S: StreamingStage>(_ stage: inout S, _ input: [S.Input], blocks: [Int]) -> [S.Output]
where S.Output: Numeric {
    var out: [S.Output] = []
    var offset = 0
    let inStride = stage.inputStride, outStride = stage.outputStride
    input.withUnsafeBufferPointer { inp in
        for b in blocks {
            var slice = UnsafeBufferPointer(rebasing: inp[offset..<offset + b * inStride])
            var scratch = [S.Output](repeating: 0, count: max(stage.maxOutputCount(forInput: b), 1) * outStride)
            while !slice.isEmpty {
                let r = scratch.withUnsafeMutableBufferPointer { stage.process(slice, into: $0) }
                out.append(contentsOf: scratch[0..<r.produced * outStride])
                slice = UnsafeBufferPointer(rebasing: slice[(r.consumed * inStride)...])
                if r.consumed == 0 && r.produced == 0 { break }
            }
            offset += b * inStride
        }
    }
    out.append(contentsOf: stage.processAll([], finishing: true))
    return out
}

/// Compares two sequences and describes the first difference (never prints whole arrays).
public func firstDifference<T: Equatable>(_ a: [T], _ b: [T]) -> String? {
    if a.count != b.count { return "lengths differ: \(a.count) vs \(b.count)" }
    for i in a.indices where a[i] != b[i] { return "first difference at \(i): \(a[i]) vs \(b[i])" }
    return nil
}

/// A fresh temporary directory, removed when the value is dropped.
public final class TempDir {
    public let path: String
    public init() {
        path = NSTemporaryDirectory() + "audiopipe-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    public func file(_ name: String) -> String { path + "/" + name }
    /// The directory's entries, sorted.
    public var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

/// Runs a program and returns its status, stdout and stderr (stderr goes through a file, so the
/// program can never block on a full pipe nobody reads).
public func runTool(
    _ executable: String, _ args: [String], environment: [String: String]? = nil, stdin: Data? = nil
) throws -> (status: Int32, out: String, err: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = args
    if let environment { p.environment = environment }
    let errPath = NSTemporaryDirectory() + "audiopipe-tool-\(UUID().uuidString).err"
    guard FileManager.default.createFile(atPath: errPath, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
    defer { try? FileManager.default.removeItem(atPath: errPath) }
    let out = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle(forWritingAtPath: errPath)
    p.standardInput = stdin == nil ? FileHandle.nullDevice : inp
    try p.run()
    if let stdin {
        inp.fileHandleForWriting.write(stdin)
        try inp.fileHandleForWriting.close()
    }
    let outData = readToEnd(out.fileHandleForReading.fileDescriptor)
    p.waitUntilExit()
    let errData = FileManager.default.contents(atPath: errPath) ?? Data()
    return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// Everything readable from `fd` until end of file, retrying reads a signal interrupted: Foundation's
/// `readDataToEndOfFile` traps on EINTR, and `Process` installs a SIGCHLD handler, so a child that
/// exits in a parallel test could crash this one.
public func readToEnd(_ fd: Int32) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            data.append(contentsOf: buffer[0..<n])
        } else if n == 0 || errno != EINTR {
            return data
        }
    }
}

/// Whether a program is on the PATH.
public func toolExists(_ tool: String) -> Bool { (try? runTool("/usr/bin/env", ["which", tool]))?.status == 0 }

/// Reads a whole file as interleaved floats.
public func readAllFloats(_ path: String, raw: RawFormat? = nil, block: Int = 4096) throws -> (
    AudioFileDescription, [Float]
) {
    let r = try AudioFileReader(path: path, raw: raw)
    var all: [Float] = []
    var buf = [Float](repeating: 0, count: block * r.format.channels)
    while true {
        let n = try buf.withUnsafeMutableBufferPointer { try r.read(into: $0) }
        if n == 0 { break }
        all += buf[0..<n * r.format.channels]
    }
    return (r.description, all)
}

/// Reads a whole file as interleaved 16-bit PCM.
public func readAllInt16(_ path: String, raw: RawFormat? = nil) throws -> [Int16] {
    let r = try AudioFileReader(path: path, raw: raw)
    var all: [Int16] = []
    var buf = [Int16](repeating: 0, count: 4096 * r.format.channels)
    while true {
        let n = try buf.withUnsafeMutableBufferPointer { try r.read(into: $0) }
        if n == 0 { break }
        all += buf[0..<n * r.format.channels]
    }
    return all
}

/// The repository root (for samples/ and the evaluation kits beside it).
public let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A streaming audio writer under test (`AudioFileWriter`, `AudioOutput`).
public protocol AudioSinkUnderTest {
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
    func write(_ samples: UnsafeBufferPointer<Float>) throws
}

/// Writes 10 001 random frames to `sink` in uneven blocks (1, 999, 4096, the rest) and returns what
/// was written: PCM16, or floats that are not all on the PCM grid.
public func writeRandomFrames(to sink: some AudioSinkUnderTest, encoding: SampleEncoding, channels: Int) throws -> (
    pcm: [Int16], floats: [Float]
) {
    let frames = 10_001
    var g = SystemRandomNumberGenerator()
    let pcm: [Int16] = (0..<frames * channels).map { _ in Int16.random(in: .min ... .max, using: &g) }
    let floats: [Float] = pcm.map { Float($0) / 32768 + 1e-7 }
    var offset = 0
    for size in [1, 999, 4096, frames - 1 - 999 - 4096] {
        let range = offset * channels..<(offset + size) * channels
        if encoding == .pcm16 {
            try pcm[range].withUnsafeBufferPointer { try sink.write($0) }
        } else {
            try floats[range].withUnsafeBufferPointer { try sink.write($0) }
        }
        offset += size
    }
    return (pcm, floats)
}

/// Reads `path` back and describes the first difference from what was written (nil: identical).
public func readBackDifference(
    _ path: String, written: (pcm: [Int16], floats: [Float]), type: OutputFileType,
    encoding: SampleEncoding, format: StreamFormat
) throws -> String? {
    let raw = type == .raw ? RawFormat(format: format, encoding: encoding) : nil
    if encoding == .pcm16 { return firstDifference(try readAllInt16(path, raw: raw), written.pcm) }
    return firstDifference(try readAllFloats(path, raw: raw).1, written.floats)
}
