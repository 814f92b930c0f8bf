import AudioPipelineCore
import Foundation

/// The results file of a batch: JSON Lines, one `BatchResult` per finished file, each line written
/// with one `write(2)` on a descriptor opened for appending, so lines from several workers never
/// interleave and a crash loses at most the line being written.
final class ResultsFile: @unchecked Sendable {
    let path: String?
    private let fd: Int32
    private let lock = NSLock()
    private(set) var error: AudioPipelineError?
    /// A file this run made that holds no result yet: removed if the run is interrupted
    /// (`TemporaryFiles`), as an empty report says nothing (SIGINT left a 0-byte one).
    private var empty = false

    /// Opens `path` (nil: no file). Without `append` an existing file is started anew, with it
    /// added to — either only if it is empty or a results file (its first line a result): anything
    /// else is refused (73), never overwritten or appended to (`--resume --report notes.txt` added
    /// result lines to the notes).
    init(path: String?, append: Bool) throws(AudioPipelineError) {
        self.path = path
        guard let path else { fd = -1; return }
        if !Self.isResultsFileOrEmpty(path) {
            throw AudioPipelineError(
                .outputFailed,
                "\(path): exists and is not a results file (its first line is not a batch result); "
                    + "remove it or choose another --report path")
        }
        let existed = access(path, F_OK) == 0
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (append ? 0 : O_TRUNC), 0o666)
        guard fd >= 0 else {
            throw AudioPipelineError(
                .outputFailed, "\(path): cannot open the results file: \(String(cString: strerror(errno)))")
        }
        if !existed {
            empty = true
            TemporaryFiles.register(path)
        }
        // A line cut short by a crash: end it, so the next line starts on its own.
        var st = stat()
        if append, fstat(fd, &st) == 0, st.st_size > 0 {
            let r = open(path, O_RDONLY | O_CLOEXEC)
            var last: UInt8 = 0
            if r >= 0, pread(r, &last, 1, st.st_size - 1) == 1, last != 0x0A { _ = write(fd, "\n", 1) }
            if r >= 0 { close(r) }
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Whether `path` is absent, an empty regular file, a device or FIFO (written, not replaced), or
    /// a file whose first line decodes as a `BatchResult`.
    static func isResultsFileOrEmpty(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 else { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 1 << 20)) ?? Data()
        let line = head.prefix { $0 != 0x0A }
        return (try? JSONDecoder().decode(BatchResult.self, from: Data(line))) != nil
    }

    func append(_ result: BatchResult) {
        guard fd >= 0 else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(result) else { return }
        line.append(0x0A)
        lock.lock()
        defer { lock.unlock() }
        do {
            try line.withUnsafeBytes { b in try FileDescriptorIO.writeAll(fd, b, path: path!) }
            if empty {
                TemporaryFiles.unregister(path!)
                empty = false
            }
        } catch let e as AudioPipelineError {
            error = error ?? e
        } catch {}
    }

    /// The last result of every input in an existing results file (lines that do not parse — a
    /// line cut short by a crash — are ignored).
    static func read(_ path: String?) throws(AudioPipelineError) -> [String: BatchResult] {
        guard let path, FileManager.default.fileExists(atPath: path) else { return [:] }
        // Line by line (a results file of a million files is a few hundred MB).
        let reader = try LineReader(path: path, what: "the results file", maximumLineBytes: 1 << 20)
        var last: [String: BatchResult] = [:]
        let decoder = JSONDecoder()
        try reader.forEachLine { line in
            guard case .text(let bytes, _) = line, bytes.count > 0 else { return }
            if let r = try? decoder.decode(BatchResult.self, from: Data(bytes)) { last[r.input] = r }
        }
        return last
    }

    /// Whether `item` was done by an earlier run: ok, the same options, the input unchanged (size and
    /// modification time), and its output still there.
    static func isDone(_ item: BatchItem, _ previous: BatchResult?, digest: String) -> Bool {
        guard let p = previous, p.status == "ok", p.optionsDigest == digest, p.output == item.output else {
            return false
        }
        var st = stat()
        guard stat(item.input.path, &st) == 0, Int64(st.st_size) == p.inputSize, mtime(st) == p.inputMtime else {
            return false
        }
        return item.output.map { FileManager.default.fileExists(atPath: $0) } ?? true
    }

    static func mtime(_ st: stat) -> Double { Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9 }
}

/// Where a batch's outputs go: the input tree mirrored under an output directory.
public enum OutputTree {
    /// The input's relative directory and name, with the new extension.
    public static let defaultTemplate = "{dir}/{stem}.{ext}"

    /// The output of `input`: `directory/` + `template` with `{dir}` (the input's relative
    /// directory, empty at the top), `{stem}` (its name without extension), `{name}` and `{ext}`
    /// (the new extension). The default template is `{dir}/{stem}.{ext}`.
    public static func path(for input: BatchInput, directory: String, ext: String, template: String = defaultTemplate)
        -> String
    {
        if let given = input.output { return given }
        let (dir, name) = PathParts.split(PathParts.normalized(input.relativePath))
        let stem = PathParts.stem(name)
        // One pass over the template (four `replacingOccurrences` per file were a tenth of the plan).
        var s = "", rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            s += rest[..<open]
            switch rest[rest.index(after: open)..<close] {
            case "dir": s += dir
            case "stem": s += stem
            case "name": s += name
            case "ext": s += ext
            default: s += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        s += rest
        // Never outside the directory: `.`, `..` and empty components are dropped.
        let parts = s.split(separator: "/").filter { $0 != "." && $0 != ".." }
        let base = PathParts.normalized(directory)  // `-o calls16k/` names calls16k/a.wav, not calls16k//a.wav
        return (base == "/" ? "" : base) + "/" + parts.joined(separator: "/")
    }

    /// Removes what a killed earlier run left of these outputs: their temporary files
    /// (`.NAME.tmp-PID-…`, see `AtomicOutput`) that no live writer holds locked.
    static func removeStaleTemporaries(of items: [BatchItem]) {
        var names: [String: Set<String>] = [:]
        for case let output? in items.map(\.output) {
            let (dir, name) = PathParts.split(PathParts.normalized(output))
            names[dir.isEmpty ? "." : dir, default: []].insert(name)
        }
        for (dir, outputs) in names {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: dir) else { continue }
            for entry in entries where entry.hasPrefix(".") {
                guard let r = entry.range(of: ".tmp-", options: .backwards),
                    outputs.contains(String(entry[entry.index(after: entry.startIndex)..<r.lowerBound])),
                    AtomicOutput.isAbandoned(dir + "/" + entry)
                else { continue }
                unlink(dir + "/" + entry)
            }
        }
    }

    /// The items of a batch: each input with its output (`ext` nil: no output). Refuses, before
    /// anything runs, two inputs that would write the same output and an output that is an input.
    public static func plan(
        _ inputs: [BatchInput], directory: String?, ext: String?, template: String = defaultTemplate
    ) throws(AudioPipelineError) -> [BatchItem] {
        guard !inputs.isEmpty else {
            throw AudioPipelineError(
                .invalidConfiguration, "no input files (check the paths, --recursive, --include and --exclude)")
        }
        guard let ext else { return inputs.map { BatchItem(input: $0, output: nil) } }
        guard let directory, directory != "-" else {
            throw AudioPipelineError(.invalidConfiguration, "a batch writes files: give an output directory, -o DIR")
        }
        try checkTemplate(template)
        let items = inputs.map {
            BatchItem(input: $0, output: path(for: $0, directory: directory, ext: ext, template: template))
        }
        var seen: [String: String] = [:]
        var paths = SamePathGuard.Canonicalizer()
        let inputPaths = Set(inputs.map { paths.canonical($0.path) })
        for item in items {
            let out = paths.canonical(item.output!)
            if let other = seen[out] {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "\(other) and \(item.input.path) would both be written to \(item.output!); rename one or use --name"
                )
            }
            if inputPaths.contains(out) {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "\(item.output!): output is the input file \(item.input.path); choose another -o")
            }
            seen[out] = item.input.path
        }
        return items
    }

    /// The placeholders a `--name` template may hold.
    public static let placeholders = ["dir", "stem", "name", "ext"]

    /// Refuses a template with a placeholder it does not know (`{nmae}` would be written as is,
    /// into one file name for every input) or that names no file (`{dir}/`).
    static func checkTemplate(_ template: String) throws(AudioPipelineError) {
        let known = placeholders.map { "{\($0)}" }.joined(separator: " ")
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(where: { $0 == "{" || $0 == "}" }), after[close] == "}" else {
                throw AudioPipelineError(
                    .invalidConfiguration, "--name '\(template)': a '{' without its '}' (placeholders: \(known))")
            }
            let word = String(rest[rest.index(after: open)..<close])
            guard placeholders.contains(word) else {
                throw AudioPipelineError(
                    .invalidConfiguration, "--name '\(template)': unknown placeholder {\(word)} (known: \(known))")
            }
            rest = rest[rest.index(after: close)...]
        }
        let last = template.split(separator: "/").last.map(String.init) ?? ""
        guard !template.hasSuffix("/"), !["", ".", "..", "{dir}"].contains(last) else {
            throw AudioPipelineError(
                .invalidConfiguration, "--name '\(template)': names a directory, not a file (end it with {stem}.{ext})")
        }
    }

    /// Every directory above each of `paths`, as `makeParent` names them.
    static func parents(of paths: [String]) -> Set<String> {
        var parents: Set<String> = []
        for path in paths {
            var d = PathParts.split(PathParts.normalized(path)).directory
            while !d.isEmpty, d != "/", d != ".", parents.insert(d).inserted {
                d = PathParts.split(d).directory
            }
        }
        return parents
    }

    /// Creates the directories above `path`, each registered to be removed if the run leaves it
    /// empty (`TemporaryFiles.registerDirectory`).
    static func makeParent(of path: String) throws(AudioPipelineError) {
        let dir = PathParts.split(PathParts.normalized(path)).directory
        guard !dir.isEmpty, !FileManager.default.fileExists(atPath: dir) else { return }
        var missing: [String] = []
        var d = dir
        while !d.isEmpty, d != "/", d != ".", !FileManager.default.fileExists(atPath: d) {
            missing.append(d)
            d = PathParts.split(d).directory
        }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            missing.forEach(TemporaryFiles.registerDirectory)
        } catch {
            // Another worker may have made it in the meantime.
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue { return }
            throw AudioPipelineError(.outputFailed, "\(dir): cannot create the output directory")
        }
    }
}
