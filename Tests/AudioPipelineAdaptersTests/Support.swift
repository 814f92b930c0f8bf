import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// A fresh temporary directory, removed when the value is dropped.
final class TempDir {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "audiopipe-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}

/// Runs a tool (sox …) and returns its exit status; output is discarded.
@discardableResult
func run(_ tool: String, _ args: [String]) throws -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [tool] + args
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    return p.terminationStatus
}

func toolExists(_ tool: String) -> Bool { (try? run("which", [tool])) == 0 }

/// Reads a whole file as interleaved floats.
func readAllFloats(_ path: String, raw: RawFormat? = nil, block: Int = 4096) throws -> (AudioFileDescription, [Float]) {
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

func readAllInt16(_ path: String, raw: RawFormat? = nil) throws -> [Int16] {
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

func firstDifference<T: Equatable>(_ a: [T], _ b: [T]) -> String? {
    if a.count != b.count { return "lengths differ: \(a.count) vs \(b.count)" }
    for i in a.indices where a[i] != b[i] { return "first difference at \(i): \(a[i]) vs \(b[i])" }
    return nil
}

/// The repository root (for samples/).
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()
