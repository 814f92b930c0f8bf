import AudioPipelineCore
import CFileWriteback
import Foundation

/// The one rule for every file a job writes: **nothing is lost**.
///
/// - A regular file (or a path that does not exist yet) is written to a temporary file beside it,
///   `.NAME.tmp-PID-RANDOM`, and renamed onto it by `commit()`: until then an existing file is
///   untouched, and a job that fails (or is interrupted, see `TemporaryFiles`) leaves nothing behind.
/// - `-` is standard output, written directly; so is any other name of it (`/dev/stdout`, a link to
///   it: `StandardOutput`), which is never renamed over.
/// - An existing path that is not a regular file — a FIFO, a character device such as `/dev/null`,
///   `/dev/stdout`, or a symlink to one — is opened and written directly, never renamed over (renaming
///   would replace the device with a regular file).
///
/// The file descriptor is owned here; writers (`ByteOutput`, the audio writer) write through it.
/// Dropped without `commit()`, the temporary file is removed.
public final class AtomicOutput: @unchecked Sendable {
    /// The path as given (used in messages).
    public let path: String
    /// Where the bytes go until `commit()`.
    public let fileDescriptor: Int32
    /// True when the descriptor can seek (a regular file or a seekable standard output): writers
    /// that finish a header by seeking back (WAV, FLAC) need it.
    public let isSeekable: Bool
    /// The temporary file, when the output is a regular file.
    public let temporaryPath: String?
    /// The output is a regular file that exists: `commit()` renames over it.
    public let replacesFile: Bool
    private let ownsDescriptor: Bool
    private var finished = false

    /// Opens the output. Throws `outputFailed` (exit 73) when the directory is missing or not
    /// writable, naming the path.
    public init(path: String) throws(AudioPipelineError) {
        self.path = path
        if StandardOutput.isStandardOutput(path) {
            fileDescriptor = STDOUT_FILENO
            ownsDescriptor = false
            temporaryPath = nil
            replacesFile = false
            isSeekable = lseek(STDOUT_FILENO, 0, SEEK_CUR) >= 0
            return
        }
        var st = stat()
        let exists = stat(path, &st) == 0
        if exists && (st.st_mode & S_IFMT) != S_IFREG {
            if (st.st_mode & S_IFMT) == S_IFDIR {
                throw AudioPipelineError(.outputFailed, "\(path): is a directory; give a file name")
            }
            // A device, FIFO or socket: write it in place.
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw AudioPipelineError(
                    .outputFailed, "\(path): cannot open for writing: \(String(cString: strerror(errno)))")
            }
            fileDescriptor = fd
            ownsDescriptor = true
            temporaryPath = nil
            replacesFile = false
            isSeekable = lseek(fd, 0, SEEK_CUR) >= 0
            return
        }
        let (directory, name) = Self.split(path)
        // Else the temporary file is made and the rename onto "" or "DIR/" fails at the very end,
        // after the other outputs of the run were put in place.
        guard !name.isEmpty else {
            throw AudioPipelineError(
                .outputFailed,
                path.isEmpty
                    ? "an empty output path: give a file name, or - for standard output"
                    : "\(path): names a directory, not a file; give a file name")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            let exists = FileManager.default.fileExists(atPath: directory)
            throw AudioPipelineError(
                .outputFailed,
                exists
                    ? "\(path): \(directory) is a file, not a directory"
                    : "\(path): directory \(directory) does not exist")
        }
        let temporary = directory + "/" + Self.temporaryName(for: name)
        // Registered before it exists, so an interruption between open and registration cannot leak it.
        TemporaryFiles.register(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            TemporaryFiles.unregister(temporary)
            throw AudioPipelineError(.outputFailed, "\(path): cannot create a file in \(directory): \(reason)")
        }
        // Held while we write it: a temporary file nobody holds a lock on was left by a process that
        // is gone (killed, in any PID namespace of this host), and a resumed batch may remove it.
        _ = flock(fd, LOCK_EX | LOCK_NB)
        fileDescriptor = fd
        ownsDescriptor = true
        temporaryPath = temporary
        replacesFile = exists
        isSeekable = true
    }

    /// How many bytes of the temporary file `startWriteback` has handed to the disk so far.
    public private(set) var writebackStarted: Int64 = 0
    /// How much a temporary file grows between two `startWriteback` calls that start its writeback.
    static let writebackChunk: Int64 = 4 << 20

    /// When the output replaces an existing regular file, starts the kernel writing what the
    /// temporary file gained since the last start, once that is `writebackChunk` or more; returns
    /// without waiting. Called after each block of a long output.
    ///
    /// Why: replacing a file by rename makes ext4 (auto_da_alloc) start the writeback of the whole
    /// new file inside `rename`, so that a crash leaves the old file or the new one; with the
    /// `discard` mount option the replaced file's blocks are then freed behind that write. Started as
    /// the file grows, the disk writes it while the job computes: the rename of a 58 MB output took
    /// 27–33 ms, with this 15–17 ms (a C loop writing 58 MB, this machine; whole jobs in
    /// docs/design/resampling.md). A new file is left alone: nothing would write it back before the
    /// job ends, and starting it there cost a 10-minute 24 → 48 kHz conversion 5–12 ms. No durability
    /// is promised or lost: nothing waits for the disk. A failure is ignored (the write reports a
    /// full disk itself).
    public func startWriteback() {
        guard replacesFile, !finished else { return }
        let end = Int64(lseek(fileDescriptor, 0, SEEK_CUR))
        guard end - writebackStarted >= Self.writebackChunk else { return }
        _ = cfw_start_writeback(fileDescriptor, writebackStarted, end - writebackStarted)
        writebackStarted = end
    }

    /// Whether the temporary file at `path` was left by a writer that is gone: nobody holds its lock.
    static func isAbandoned(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    deinit { discard() }

    /// Makes the output final: closes it and renames the temporary file onto the target.
    public func commit() throws(AudioPipelineError) {
        guard !finished else { return }
        finished = true
        if ownsDescriptor && close(fileDescriptor) != 0 {
            let reason = String(cString: strerror(errno))
            if let temporaryPath { TemporaryFiles.remove(temporaryPath) }
            throw AudioPipelineError(.ioFailure, "\(path): closing failed: \(reason)")
        }
        guard let temporaryPath else { return }
        try TemporaryFiles.publish(temporaryPath, as: path)
    }

    /// Gives the output up: closes it and removes the temporary file (an existing target is kept).
    public func discard() {
        guard !finished else { return }
        finished = true
        if ownsDescriptor { close(fileDescriptor) }
        if let temporaryPath { TemporaryFiles.remove(temporaryPath) }
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// `.NAME.tmp-PID-RANDOM`, with NAME shortened so the whole fits a file-name component (255 bytes).
    static func temporaryName(for name: String) -> String {
        let suffix = ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var stem = Array(name.utf8)
        let room = 255 - 1 - suffix.utf8.count
        if stem.count > room { stem = Array(stem.prefix(room)) }
        return "." + String(decoding: stem, as: UTF8.self) + suffix
    }
}

/// Temporary files and directories of outputs in progress, so that an interrupted run removes them
/// (`removeAll()`, called by the signal handler) and a finished one publishes them atomically.
///
/// Publishing (`rename`) and removal hold one lock, so an interruption either finds the temporary
/// file (and removes it) or finds it already renamed into place — never half of each.
public enum TemporaryFiles {
    nonisolated(unsafe) private static var paths: Set<String> = []
    /// Directories a run made for its outputs: removed when they are left empty (`rmdir`).
    nonisolated(unsafe) private static var directories: Set<String> = []
    private static let lock = NSLock()
    /// While `publishingLast` runs on a thread: the outputs its job finished there, in order, not yet
    /// renamed (per thread, so other work of the process — a batch's workers, tests run in parallel —
    /// publishes as ever).
    nonisolated(unsafe) private static var heldByThread: [ObjectIdentifier: [(temporary: String, target: String)]] = [:]
    private static var held: [(temporary: String, target: String)]? {
        get { heldByThread[ObjectIdentifier(Thread.current)] }
        set { heldByThread[ObjectIdentifier(Thread.current)] = newValue }
    }

    /// Records a temporary path to remove if the process is interrupted.
    public static func register(_ path: String) {
        lock.lock()
        paths.insert(path)
        lock.unlock()
    }

    /// Records a directory made for outputs, to remove if it is empty when the run fails or is
    /// interrupted (`removeEmptyDirectories`): every file of a batch failing left an empty `-o DIR`.
    public static func registerDirectory(_ path: String) {
        lock.lock()
        directories.insert(path)
        lock.unlock()
    }

    /// Removes the registered directories among `candidates` that are empty, the deepest first (a
    /// directory holding an output, or anything else, stays). A run passes the directories above its
    /// own outputs: the registry is the process's, and another run in it (a batch beside this one in
    /// an app, tests in parallel) may have just made its output directory and not yet written into
    /// it — removing every empty registered directory once failed such a run's next file.
    public static func removeEmptyDirectories(among candidates: Set<String>) {
        lock.lock()
        defer { lock.unlock() }
        removeEmpty(among: candidates)
    }

    /// Removes the registered directories that are empty (those among `candidates`, when given), the
    /// deepest first. Under `lock`.
    private static func removeEmpty(among candidates: Set<String>? = nil) {
        for d in directories.sorted(by: { $0.count > $1.count })
        where (candidates?.contains(d) ?? true) && (rmdir(d) == 0 || errno == ENOENT) {
            directories.remove(d)
        }
    }

    /// Forgets a temporary path (renamed into place, or removed).
    public static func unregister(_ path: String) {
        lock.lock()
        paths.remove(path)
        lock.unlock()
    }

    /// Renames a registered temporary file or directory onto `target` and forgets it (inside
    /// `publishingLast`: once its job and report are done). Never after a signal arrived: the run
    /// ends as interrupted instead (`Interruption`), so an output finished while the signal was on its
    /// way is not left behind.
    public static func publish(_ temporary: String, as target: String) throws(AudioPipelineError) {
        lock.lock()
        defer { lock.unlock() }
        if let signal = Interruption.received { exitRemovingAll(signal) }
        if held != nil { return held!.append((temporary, target)) }
        try rename(temporary, target)
    }

    /// Runs `job` — a command's work and its report — holding back the outputs it commits on this
    /// thread, then publishes them; when `job` throws (a report that cannot be written: a full disk, a closed
    /// standard output), removes them instead. So a run that fails at its last step leaves nothing,
    /// as one that fails earlier (`holding` false: as ever). A batch inside publishes its files one
    /// by one (`publishingEach`).
    public static func publishingLast<T>(when holding: Bool = true, _ job: () throws -> T) throws -> T {
        guard holding else { return try job() }
        lock.lock()
        held = []
        lock.unlock()
        let result: T
        do {
            result = try job()
        } catch {
            lock.lock()
            for h in held ?? [] {
                paths.remove(h.temporary)
                try? FileManager.default.removeItem(atPath: h.temporary)
            }
            held = nil
            lock.unlock()
            throw error
        }
        lock.lock()
        defer { lock.unlock() }
        if let signal = Interruption.received { exitRemovingAll(signal) }
        let outputs = held ?? []
        held = nil
        for (k, h) in outputs.enumerated() {
            do { try rename(h.temporary, h.target) } catch {
                for later in outputs[(k + 1)...] {
                    paths.remove(later.temporary)
                    try? FileManager.default.removeItem(atPath: later.temporary)
                }
                throw error
            }
        }
        return result
    }

    /// Runs `body` publishing each output as it is committed, also inside `publishingLast`: a batch's
    /// files are done one by one (its results file says which), whatever happens to the rest.
    public static func publishingEach<T>(_ body: () throws(AudioPipelineError) -> T) throws(AudioPipelineError) -> T {
        lock.lock()
        let saved = held
        held = nil
        lock.unlock()
        defer {
            lock.lock()
            held = saved
            lock.unlock()
        }
        return try body()
    }

    /// Renames a temporary output onto its target (the lock held), or removes it and says why not.
    private static func rename(_ temporary: String, _ target: String) throws(AudioPipelineError) {
        paths.remove(temporary)
        if isDirectory(temporary) && isDirectory(target) { return try replaceDirectory(target, with: temporary) }
        guard Foundation.rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw AudioPipelineError(.outputFailed, "\(target): cannot move the finished output into place: \(reason)")
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// A finished report directory in place of an earlier one: rename(2) cannot replace a
    /// directory that is not empty, so the old one is moved aside first, and back if the new one
    /// cannot take its place; it is removed only once the new one is there.
    private static func replaceDirectory(_ target: String, with temporary: String) throws(AudioPipelineError) {
        let (parent, name) = AtomicOutput.split(target)
        let old = parent + "/" + AtomicOutput.temporaryName(for: name + ".old")
        guard Foundation.rename(target, old) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw AudioPipelineError(.outputFailed, "\(target): cannot replace the old report: \(reason)")
        }
        guard Foundation.rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Foundation.rename(old, target)
            try? FileManager.default.removeItem(atPath: temporary)
            throw AudioPipelineError(.outputFailed, "\(target): cannot move the finished report into place: \(reason)")
        }
        try? FileManager.default.removeItem(atPath: old)
    }

    /// Removes one temporary file or directory and forgets it.
    public static func remove(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        paths.remove(path)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs `body` — making a file or directory inside a registered temporary directory — under the
    /// lock the interruption's removal holds, so the two never interleave (files made while a signal
    /// removed a report's temporary directory kept it from going: `session simulate --rooms` left
    /// one behind); after a signal, removes everything and ends the process instead.
    public static func creatingInside<T>(_ body: () throws(AudioPipelineError) -> T) throws(AudioPipelineError) -> T {
        lock.lock()
        defer { lock.unlock() }
        if let signal = Interruption.received { exitRemovingAll(signal) }
        return try body()
    }

    /// Removes every temporary output still registered and keeps the lock: called on the way out of
    /// the process (a signal), so nothing can be published after it.
    public static func removeAllAndHold() {
        lock.lock()
        removeAll()
    }

    /// Removes every temporary output (the lock held) and ends the process as interrupted by `signal`.
    private static func exitRemovingAll(_ signal: Int32) -> Never {
        removeAll()
        _exit(128 + signal)
    }

    private static func removeAll() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
        paths.removeAll()
        removeEmpty()
    }
}
