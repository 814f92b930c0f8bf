import AudioPipelineCore
import Foundation

/// A byte output (JSON Lines, CSV, length-prefixed messages) with the same safety as
/// `AudioFileWriter`: written to `.NAME.tmp-…` beside the target and renamed by `commit()`; dropped
/// without commit, the temporary file is deleted. "-" writes standard output. Writes are buffered.
public final class AtomicOutputFile {
    public let path: String
    private let handle: FileHandle
    private let temporaryPath: String?
    private var buffer: [UInt8] = []
    private var committed = false
    public private(set) var bytesWritten = 0

    public init(path: String) throws(AudioPipelineError) {
        self.path = path
        buffer.reserveCapacity(1 << 16)
        if path == "-" {
            temporaryPath = nil
            handle = FileHandle.standardOutput
            return
        }
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw AudioPipelineError(.outputFailed, "\(path): directory \(dir) does not exist")
        }
        let tmp = dir + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard FileManager.default.createFile(atPath: tmp, contents: nil), let h = FileHandle(forWritingAtPath: tmp) else {
            throw AudioPipelineError(.outputFailed, "\(path): cannot create a file in \(dir)")
        }
        temporaryPath = tmp
        handle = h
    }

    deinit {
        if !committed, let temporaryPath {
            try? handle.close()
            unlink(temporaryPath)
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(AudioPipelineError) {
        buffer.append(contentsOf: bytes)
        bytesWritten += bytes.count
        if buffer.count >= 1 << 16 { try flush() }
    }

    public func write(_ bytes: ArraySlice<UInt8>) throws(AudioPipelineError) {
        buffer.append(contentsOf: bytes)
        bytesWritten += bytes.count
        if buffer.count >= 1 << 16 { try flush() }
    }

    public func write(_ text: String) throws(AudioPipelineError) {
        buffer.append(contentsOf: text.utf8)
        bytesWritten += text.utf8.count
        if buffer.count >= 1 << 16 { try flush() }
    }

    private func flush() throws(AudioPipelineError) {
        guard !buffer.isEmpty else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw AudioPipelineError(.ioFailure, "\(path): write failed: \(error.localizedDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    public func commit() throws(AudioPipelineError) {
        try flush()
        guard let temporaryPath else { return }
        do { try handle.close() } catch { throw AudioPipelineError(.ioFailure, "\(path): closing failed: \(error.localizedDescription)") }
        guard rename(temporaryPath, path) == 0 else {
            throw AudioPipelineError(.outputFailed, "\(path): cannot move the finished file into place: \(String(cString: strerror(errno)))")
        }
        committed = true
    }
}
