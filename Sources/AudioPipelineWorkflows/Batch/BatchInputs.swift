import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// One input of a batch: where it is, and its path relative to the root it was found under (which
/// the output tree mirrors and the shards hash).
public struct BatchInput: Sendable, Hashable {
    /// The input's path.
    public var path: String
    /// `dir/name.wav` under a directory argument; the file name for a file argument.
    public var relativePath: String
    /// An output path the input list gave for it (else the batch derives one).
    public var output: String?

    /// An input at `path`, found as `relativePath`, with an output the input list gave.
    public init(path: String, relativePath: String, output: String? = nil) {
        self.path = path
        self.relativePath = relativePath
        self.output = output
    }
}

/// Which files a batch takes: paths (files and directories), an input list, glob filters.
public struct BatchSelection: Sendable {
    /// Files and directories to take.
    public var paths: [String] = []
    /// Descend into subdirectories of directory arguments.
    public var recursive = false
    /// Shell globs (`fnmatch`, matched against the relative path and the file name): a file must
    /// match one of `include` (when any is given) and none of `exclude`.
    public var include: [String] = []
    /// Globs of files to leave out (see `include`).
    public var exclude: [String] = []
    /// A list of inputs: one path a line, or CSV with an `input` column (and optionally `output`),
    /// or JSON Lines with an `input` key (and optionally `output`). `#` comments, blank lines,
    /// CRLF and a byte-order mark are fine.
    public var inputList: String?
    /// Extensions a directory walk takes (lower case, without the dot); other files are ignored.
    public var extensions: Set<String> = BatchSelection.audioExtensions
    /// A directory the walk never enters (the batch's own output directory).
    public var skipDirectory: String?
    /// When set, a far-end reference beside its recording (`NAME.ref.wav` by `NAME.wav`, the VAD
    /// kit's and `vad tune`'s convention) is not an input of its own: `vad detect` uses it with its
    /// recording. A reference with no recording beside it stays an input.
    public var references: ReferenceNaming?

    /// The audio extensions a directory walk takes by default.
    public static let audioExtensions: Set<String> = [
        "wav", "wave", "flac", "ogg", "oga", "aif", "aiff", "aifc", "caf", "w64", "rf64", "au", "snd", "mp3", "opus",
    ]
    /// The extensions of captured sessions (`deframe`, `jitter play`).
    public static let captureExtensions: Set<String> = ["jsonl", "ndjson", "har", "bin"]

    /// Nothing selected yet; audio extensions.
    public init() {}

    /// Whether `path` is a directory (`-` is standard input, never one).
    public static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return path != "-" && FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// The inputs, in a stable order (arguments in order; each directory's files sorted).
    public func collect() throws(AudioPipelineError) -> [BatchInput] {
        var out: [BatchInput] = []
        for path in paths {
            if Self.isDirectory(path) {
                out += try walk(path)
            } else {
                // A file argument is taken as given (a missing one fails as that file's error).
                out.append(BatchInput(path: path, relativePath: PathParts.split(PathParts.normalized(path)).name))
            }
        }
        if let inputList {
            let listed = try Self.readList(inputList)
            guard !listed.isEmpty else {
                throw AudioPipelineError(.invalidData, "\(inputList): the input list names no file")
            }
            out += listed
        }
        // A file named twice (as an argument and again in a directory or list) is done once.
        var seen = Set<String>(), paths = SamePathGuard.Canonicalizer()
        return out.filter {
            included($0.relativePath) && ($0.path == "-" || seen.insert(paths.canonical($0.path)).inserted)
                && references?.recording(ofReference: $0.path, extensions: extensions) == nil
        }
    }

    func included(_ relative: String) -> Bool {
        let name = PathParts.split(relative).name
        func matches(_ glob: String) -> Bool {
            fnmatch(glob, relative, 0) == 0 || fnmatch(glob, name, 0) == 0
        }
        if !include.isEmpty && !include.contains(where: matches) { return false }
        return !exclude.contains(where: matches)
    }

    /// The files of a directory (and, with `recursive`, of its subdirectories), sorted by path.
    func walk(_ given: String) throws(AudioPipelineError) -> [BatchInput] {
        let root = PathParts.normalized(given)
        let skip = skipDirectory.map(SamePathGuard.canonical)
        var found: [BatchInput] = []
        var pending = [""]
        while let relativeDir = pending.popLast() {
            let dir = relativeDir.isEmpty ? root : root + "/" + relativeDir
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
                throw AudioPipelineError(.inputUnavailable, "\(dir): cannot list the directory")
            }
            for name in names.sorted() where !name.hasPrefix(".") {
                let relative = relativeDir.isEmpty ? name : relativeDir + "/" + name
                let full = root + "/" + relative
                // One stat (through links): a directory to descend, or a regular file to take — a FIFO,
                // device or socket found by the scan is none (a FIFO was opened and waited on for ever).
                var st = stat()
                guard stat(full, &st) == 0 else { continue }
                let kind = st.st_mode & S_IFMT
                if kind == S_IFDIR {
                    if recursive && SamePathGuard.canonical(full) != skip { pending.append(relative) }
                } else if kind == S_IFREG && extensions.contains(fileExtension(name)) {
                    found.append(BatchInput(path: full, relativePath: relative))
                }
            }
        }
        return found.sorted { $0.relativePath < $1.relativePath }
    }

    /// An input list: plain paths, CSV with an `input` column, or JSON Lines with an `input` key.
    static func readList(_ list: String) throws(AudioPipelineError) -> [BatchInput] {
        let text = try TextInput.text(list, what: "the input list")
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().filter {
            let t = $0.element.trimmingSpaces
            return !t.isEmpty && !t.hasPrefix("#")
        }
        guard let first = lines.first else { return [] }
        let base = PathParts.split(PathParts.normalized(list)).directory
        func resolve(_ p: String) -> String { p.hasPrefix("/") || base.isEmpty || list == "-" ? p : base + "/" + p }
        func input(_ path: String, _ output: String?) -> BatchInput {
            BatchInput(
                path: resolve(path),
                relativePath: path.hasPrefix("/") ? PathParts.split(PathParts.normalized(path)).name : path,
                output: output.map(resolve))
        }
        if first.element.trimmingSpaces.hasPrefix("{") {
            return try lines.map { (n, line) throws(AudioPipelineError) in
                let v: JSONValue
                do { v = try JSON.parse(String(line)) } catch {
                    throw AudioPipelineError(.invalidData, "\(list):\(n + 1): not a JSON object: \(error)")
                }
                guard let path = v["input"]?.string, !path.trimmingSpaces.isEmpty else {
                    throw AudioPipelineError(.invalidData, "\(list):\(n + 1): needs a non-empty \"input\" string")
                }
                return input(path, v["output"]?.string)
            }
        }
        let header = first.element.split(separator: ",").map(\.trimmingSpaces)
        if header.contains("input") || looksLikeCSV(list, lines.map(\.element), resolve(first.element.trimmingSpaces)) {
            // Comment lines become blank ones (the table skips them), so its line numbers are the file's.
            var text = [String](repeating: "", count: lines[lines.count - 1].offset - first.offset + 1)
            for (n, line) in lines { text[n - first.offset] = String(line) }
            let table = try CSVTable(
                text: text.joined(separator: "\n"), path: list, required: ["input"], firstLine: first.offset + 1)
            return try table.rows.map { (row) throws(AudioPipelineError) in
                let path = table.field("input", in: row)!
                guard !path.isEmpty else {
                    throw AudioPipelineError(.invalidData, "\(list):\(row.line): the 'input' field is empty")
                }
                return input(path, table.field("output", in: row).flatMap { $0.isEmpty ? nil : $0 })
            }
        }
        return lines.map { input($0.element.trimmingSpaces, nil) }
    }

    /// Whether a list without an `input` column is still meant as CSV (and so lacks the column):
    /// named `.csv`, or a first line that is no file, holding a comma, whose every line has as many
    /// commas. A path list whose names contain commas stays a path list (the first path exists).
    static func looksLikeCSV(_ list: String, _ lines: [Substring], _ firstPath: String) -> Bool {
        if fileExtension(list) == "csv" { return true }
        let commas = lines[0].count(where: { $0 == "," })
        return commas > 0 && lines.count > 1 && !FileManager.default.fileExists(atPath: firstPath)
            && lines.allSatisfy { $0.count(where: { $0 == "," }) == commas }
    }
}
