import Foundation

/// Path arithmetic on plain strings, for planning batches of many thousand files: `NSString`'s path
/// methods bridge and re-scan the whole path on every call, and were most of a batch's planning.
enum PathParts {
    /// Whether `path` is a regular file (through symbolic links): what a scan of a directory takes (a
    /// FIFO found there was opened and waited on for ever; naming one on the command line still reads
    /// it, as standard input), and what can be read twice.
    static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// The path without repeated and trailing slashes ("a//b/" → "a/b"; "/" stays "/").
    static func normalized(_ p: String) -> String {
        // A byte scan: `String.contains` goes through Foundation's locale-aware search on Linux.
        let slash = UInt8(ascii: "/")
        var previous: UInt8 = 0, untidy = false
        for b in p.utf8 {
            if b == slash && previous == slash { untidy = true; break }
            previous = b
        }
        guard p.utf8.count > 1, untidy || previous == slash else { return p }
        var parts = p.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        if p.hasPrefix("/") { parts = "/" + parts }
        return parts.isEmpty ? "/" : parts
    }

    /// (directory, last component) of a normalized path: "a/b.wav" → ("a", "b.wav"), "b.wav" →
    /// ("", "b.wav"), "/b.wav" → ("/", "b.wav").
    static func split(_ p: String) -> (directory: String, name: String) {
        guard let slash = p.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", p) }
        let name = String(p[p.index(after: slash)...])
        return (slash == p.startIndex ? "/" : String(p[..<slash]), name)
    }

    /// The name without its extension ("a.b.wav" → "a.b"; ".hidden" and "x" unchanged).
    static func stem(_ name: String) -> String {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
