import AudioPipelineCore
import Foundation

/// Reading the small text inputs of the jobs (configurations, grids, profile templates, label files,
/// traces) and streaming the large ones (captured sessions, line by line), with one error mapping:
/// missing, unreadable or a directory → `inputUnavailable` (exit 66); too large, not UTF-8 → `invalidData`
/// (exit 65). `-` is standard input; FIFOs and process substitutions are read like it.
public enum TextInput {
    /// Largest whole-file input read at once (a device that never ends, such as `/dev/zero`, stops here).
    public static let maximumBytes = 256 << 20

    /// Opens `path` for reading. `what` names the input in messages ("the label file").
    public static func open(_ path: String, what: String) throws(AudioPipelineError) -> Int32 {
        if path == "-" { return STDIN_FILENO }
        let fd = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            switch e {
            case ENOENT, ENOTDIR: throw AudioPipelineError(.inputUnavailable, "\(path): no such file (\(what))")
            case EACCES: throw AudioPipelineError(.inputUnavailable, "\(path): permission denied (\(what))")
            default:
                throw AudioPipelineError(
                    .inputUnavailable, "\(path): cannot read \(what): \(String(cString: strerror(e)))")
            }
        }
        var st = stat()
        if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            Foundation.close(fd)
            throw AudioPipelineError(.inputUnavailable, "\(path): is a directory, not \(what)")
        }
        // A device may never end (`/dev/zero`): refused as the audio inputs refuse it, before reading.
        if fstat(fd, &st) == 0 && [S_IFCHR, S_IFBLK].contains(st.st_mode & S_IFMT) {
            Foundation.close(fd)
            throw AudioPipelineError(
                .inputUnavailable,
                "\(path): is a device, not a file or a pipe (it may never end); give \(what) as a file")
        }
        return fd
    }

    /// The whole of `path` as bytes.
    public static func bytes(_ path: String, what: String, limit: Int = maximumBytes) throws(AudioPipelineError)
        -> [UInt8]
    {
        let fd = try open(path, what: what)
        defer { if fd != STDIN_FILENO { Foundation.close(fd) } }
        var out: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try read(fd, into: &block, path: path)
            if n == 0 { return out }
            out.append(contentsOf: block[0..<n])
            if out.count > limit {
                throw AudioPipelineError(.invalidData, "\(path): \(what) is larger than \(limit >> 20) MiB")
            }
        }
    }

    /// The whole of `path` as UTF-8 text (a leading byte-order mark is dropped).
    public static func text(_ path: String, what: String, limit: Int = maximumBytes) throws(AudioPipelineError)
        -> String
    {
        var b = try bytes(path, what: what, limit: limit)
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }
        guard let s = String(validating: b, as: UTF8.self) else {
            throw AudioPipelineError(.invalidData, "\(path): \(what) is not UTF-8 text")
        }
        return s
    }

    /// One `read(2)` into `block`, retried on interruption; 0 at end of input.
    static func read(_ fd: Int32, into block: inout [UInt8], path: String) throws(AudioPipelineError) -> Int {
        while true {
            let n = block.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw AudioPipelineError(.ioFailure, "\(path): read failed: \(String(cString: strerror(errno)))")
        }
    }
}

/// Reads a text input line by line with constant memory: one read buffer, lines handed out as byte
/// slices (without the `\n` or `\r\n`). A line longer than `maximumLineBytes` is not buffered: it is
/// reported once (`.tooLong`) and skipped to its end, so one huge line cannot exhaust memory.
public final class LineReader {
    /// One line, or the news that it was too long.
    public enum Line {
        /// The line's bytes (valid until the next read) and its number, from 1.
        case text(UnsafeRawBufferPointer, number: Int)
        /// A line longer than `maximumLineBytes` (skipped): its length and number.
        case tooLong(bytes: Int, number: Int)
    }

    /// The input's path (`-`: standard input).
    public let path: String
    /// The longest line handed out, bytes.
    public let maximumLineBytes: Int
    private let fd: Int32
    /// Room for the longest line plus its line break, so a full buffer always means "too long".
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var start = 0, end = 0
    private var atEOF = false
    private var lineNumber = 0
    /// Bytes read so far (for progress).
    public private(set) var bytesRead = 0

    /// A reader of `path`; `what` names it in messages.
    /// - Throws: `AudioPipelineError` naming the path when it cannot be opened.
    public init(path: String, what: String, maximumLineBytes: Int) throws(AudioPipelineError) {
        self.path = path
        self.maximumLineBytes = maximumLineBytes
        fd = try TextInput.open(path, what: what)
        capacity = max(1 << 16, maximumLineBytes + 2)
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        if fd != STDIN_FILENO { close(fd) }
        buffer.deallocate()
    }

    /// The first `count` bytes (fewer at the end of input), without consuming them.
    public func peek(_ count: Int) throws(AudioPipelineError) -> [UInt8] {
        while end - start < count && !atEOF && end < capacity { try refill() }
        return Array(UnsafeBufferPointer(start: buffer + start, count: min(end - start, count)))
    }

    /// Everything not yet consumed, as one block (for inputs that turn out to be one document).
    public func readToEnd(limit: Int) throws(AudioPipelineError) -> [UInt8] {
        var out = Array(UnsafeBufferPointer(start: buffer + start, count: end - start))
        start = end
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while !atEOF {
            let n = try TextInput.read(fd, into: &block, path: path)
            if n == 0 { atEOF = true; break }
            out.append(contentsOf: block[0..<n])
            bytesRead += n
            if out.count > limit { throw AudioPipelineError(.invalidData, "\(path): larger than \(limit >> 20) MiB") }
        }
        return out
    }

    /// Calls `body` for every line until the input ends.
    public func forEachLine(_ body: (Line) throws(AudioPipelineError) -> Void) throws(AudioPipelineError) {
        while true {
            if let newline = find(0x0A, from: start) {
                lineNumber += 1
                try emit(from: start, to: newline, body)
                start = newline + 1
                continue
            }
            if atEOF {
                if start < end {
                    lineNumber += 1
                    try emit(from: start, to: end, body)
                }
                start = end
                return
            }
            if end - start > maximumLineBytes {
                try skipLongLine(body)
                continue
            }
            try refill()
        }
    }

    private func find(_ byte: UInt8, from a: Int) -> Int? {
        guard a < end, let p = memchr(buffer + a, Int32(byte), end - a) else { return nil }
        return buffer.distance(to: p.assumingMemoryBound(to: UInt8.self))
    }

    private func emit(from a: Int, to b: Int, _ body: (Line) throws(AudioPipelineError) -> Void)
        throws(AudioPipelineError)
    {
        var stop = b
        if stop > a && buffer[stop - 1] == 0x0D { stop -= 1 }
        if stop - a > maximumLineBytes { return try body(.tooLong(bytes: stop - a, number: lineNumber)) }
        try body(.text(UnsafeRawBufferPointer(start: buffer + a, count: stop - a), number: lineNumber))
    }

    /// The current line is over the limit: count it to its end without keeping it.
    private func skipLongLine(_ body: (Line) throws(AudioPipelineError) -> Void) throws(AudioPipelineError) {
        lineNumber += 1
        var length = 0
        while true {
            if let newline = find(0x0A, from: start) {
                length += newline - start
                start = newline + 1
                break
            }
            length += end - start
            start = end
            if atEOF { break }
            try refill()
        }
        try body(.tooLong(bytes: length, number: lineNumber))
    }

    /// Moves what is left to the front and reads more.
    private func refill() throws(AudioPipelineError) {
        if start > 0 {
            let left = end - start
            if left > 0 { buffer.update(from: buffer + start, count: left) }
            end = left
            start = 0
        }
        while true {
            let n = read(fd, buffer + end, capacity - end)
            if n > 0 { end += n; bytesRead += n; return }
            if n == 0 { atEOF = true; return }
            if errno == EINTR { continue }
            throw AudioPipelineError(.ioFailure, "\(path): read failed: \(String(cString: strerror(errno)))")
        }
    }
}
