import AudioPipelineCore
import Foundation

/// Refuses to write onto an input: the same path, or another name for the same file (a hard or
/// symbolic link). Standard input/output and special files (`/dev/null`) never count as the same file.
public enum SamePathGuard {
    /// - Throws: `invalidConfiguration` when `output` names the file `input` is.
    public static func refuse(input: String, output: String) throws(AudioPipelineError) {
        if same(input, output) {
            throw AudioPipelineError(
                .invalidConfiguration, "\(output): output is the input file; choose another output path")
        }
    }

    /// No output may be any input, and no two outputs the same file.
    public static func refuse(inputs: [String], outputs: [String]) throws(AudioPipelineError) {
        try refuse(inputs: inputs, options: outputs.map { (option: nil, path: $0) })
    }

    /// As `refuse(inputs:outputs:)`, each output with the option that gave it (nil: unnamed; a nil
    /// path: not given): two outputs on one file are refused naming both options (`bench --plot X
    /// --csv X` wrote the plot, then the CSV over it).
    public static func refuse(
        inputs: [String], options outputs: [(option: String?, path: String?)]
    ) throws(AudioPipelineError) {
        let given = outputs.compactMap { o in o.path.map { (option: o.option, path: $0) } }
        for o in given {
            for i in inputs { try refuse(input: i, output: o.path) }
        }
        func both(_ a: (option: String?, path: String), _ b: (option: String?, path: String)) -> String {
            guard let x = a.option, let y = b.option else { return "also as \(a.path)" }
            return "\(x) and \(y)"
        }
        for (k, a) in given.enumerated() {
            for b in given[(k + 1)...] where same(a.path, b.path) {
                throw AudioPipelineError(
                    .invalidConfiguration, "\(b.path): given for two outputs (\(both(a, b))); choose another path")
            }
        }
        // Standard output (`-`, /dev/stdout …) is never "the same file" above, yet two outputs there
        // interleave: a trace inside the WAV data.
        let standard = given.filter { StandardOutput.isStandardOutput($0.path) }
        if standard.count > 1 {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(standard[1].path): standard output is given for two outputs (\(both(standard[0], standard[1]))); "
                    + "give a file for one")
        }
    }

    /// A report directory is replaced whole when it is published: no input may lie inside it (an
    /// `--agent rep/heard.wav -o rep` was replaced by the new heard.wav).
    /// - Throws: `invalidConfiguration` naming the input and the directory.
    public static func refuse(inputs: [String], insideReport directory: String) throws(AudioPipelineError) {
        // (No report goes to "", "/" or "-": `ReportDirectory` refuses those with its own words.)
        let normalized = PathParts.normalized(directory)
        guard !normalized.isEmpty, normalized != "/", normalized != "-" else { return }
        let inside = canonical(directory) + "/"
        for input in inputs where input != "-" && canonical(input).hasPrefix(inside) {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(input): an input inside the report directory \(directory), which the report replaces whole; "
                    + "give another directory")
        }
    }

    /// The absolute path with `.`/`..` and symbolic links resolved (as far as the path exists).
    public static func canonical(_ p: String) -> String {
        URL(fileURLWithPath: p).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// `canonical` for many paths: each directory is resolved once (`realpath`), then a path costs
    /// one `lstat` of its last component — a batch of 2,000 files plans in milliseconds, not the
    /// tenth of a second `URL` resolution takes.
    public struct Canonicalizer {
        private var directories: [String: String] = [:]
        private let cwd = FileManager.default.currentDirectoryPath
        /// A canonicalizer with an empty cache.
        public init() {}

        /// The absolute path of `p` with its directories' links resolved (cached per directory).
        public mutating func canonical(_ p: String) -> String {
            let absolute = PathParts.normalized(p.hasPrefix("/") ? p : cwd + "/" + p)
            let (parent, name) = PathParts.split(absolute)
            if name == "." || name == ".." || name.isEmpty { return SamePathGuard.canonical(p) }
            var st = stat()
            if lstat(absolute, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK { return SamePathGuard.canonical(p) }
            if let dir = directories[parent] { return dir == "/" ? "/" + name : dir + "/" + name }
            let dir: String
            if let resolved = realpath(parent, nil) {
                dir = String(cString: resolved)
                free(resolved)
            } else {
                dir = SamePathGuard.canonical(parent)  // a directory that does not exist yet
            }
            directories[parent] = dir
            return dir == "/" ? "/" + name : dir + "/" + name
        }
    }

    /// True when `a` and `b` name the same regular file (or the same path that does not exist yet).
    static func same(_ a: String, _ b: String) -> Bool {
        guard a != "-", b != "-" else { return false }
        var sa = stat(), sb = stat()
        let aExists = stat(a, &sa) == 0, bExists = stat(b, &sb) == 0
        if aExists && bExists {
            return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && (sb.st_mode & S_IFMT) == S_IFREG
        }
        func canonical(_ p: String) -> String {
            URL(fileURLWithPath: p).standardizedFileURL.resolvingSymlinksInPath().path
        }
        return canonical(a) == canonical(b)
    }
}
