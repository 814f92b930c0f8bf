import AudioPipelineCore
import Foundation

/// A buffered byte output (JSON Lines, CSV, reports, length-prefixed messages) on `AtomicOutput`:
/// written beside the target and renamed by `commit()`, or straight to `-` and special files.
/// Every write is checked (a full disk or a closed pipe is an error naming the path).
public final class ByteOutput {
    /// The file the bytes go to (its temporary until `commit()`).
    public let output: AtomicOutput
    /// The target path.
    public var path: String { output.path }
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 16
    /// Bytes written so far (buffered ones included).
    public private(set) var bytesWritten = 0

    /// A byte output at `path` (`-`: standard output).
    /// - Throws: `AudioPipelineError` naming the path when it cannot be created.
    public init(path: String) throws(AudioPipelineError) {
        output = try AtomicOutput(path: path)
        buffer.reserveCapacity(Self.capacity)
    }

    /// Appends `bytes`; writes through when the buffer is full.
    /// - Throws: `AudioPipelineError` naming the path.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(AudioPipelineError) {
        buffer.append(contentsOf: bytes)
        bytesWritten += bytes.count
        if buffer.count >= Self.capacity { try flush() }
    }

    /// Appends `bytes`; writes through when the buffer is full.
    /// - Throws: `AudioPipelineError` naming the path.
    public func write(_ bytes: ArraySlice<UInt8>) throws(AudioPipelineError) {
        buffer.append(contentsOf: bytes)
        bytesWritten += bytes.count
        if buffer.count >= Self.capacity { try flush() }
    }

    /// Appends `text` as UTF-8; writes through when the buffer is full.
    /// - Throws: `AudioPipelineError` naming the path.
    public func write(_ text: String) throws(AudioPipelineError) {
        buffer.append(contentsOf: text.utf8)
        bytesWritten += text.utf8.count
        if buffer.count >= Self.capacity { try flush() }
    }

    /// Hands the buffered bytes to the file.
    public func flush() throws(AudioPipelineError) {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBufferPointer { (b) throws(AudioPipelineError) in
            try FileDescriptorIO.writeAll(output.fileDescriptor, UnsafeRawBufferPointer(b), path: path)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and makes the output final.
    public func commit() throws(AudioPipelineError) {
        do {
            try flush()
        } catch {
            output.discard()
            throw error
        }
        try output.commit()
    }

    /// Writes a whole text to `path` atomically.
    public static func write(_ text: String, to path: String) throws(AudioPipelineError) {
        let out = try ByteOutput(path: path)
        try out.write(text)
        try out.commit()
    }
}

/// Checked writes to a file descriptor.
public enum FileDescriptorIO {
    /// Writes every byte, retrying short writes and interruptions; any error names `path`.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(AudioPipelineError) {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Foundation.write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                let name = path == "-" ? "stdout" : path
                if errno == EPIPE { throw AudioPipelineError(.brokenPipe, "\(name): the reader closed the pipe") }
                throw AudioPipelineError(.ioFailure, "\(name): write failed: \(String(cString: strerror(errno)))")
            }
            left -= n
            p += n
        }
    }
}
