import Foundation

/// Whether an output path is the process's standard output: `-`, or a name for it — `/dev/stdout`,
/// `/dev/fd/1`, `/proc/self/fd/1` — directly or through symbolic links. Such an output is written
/// in place (never through a temporary file renamed over it: that would replace the link, or
/// whatever standard output is redirected to, with a regular file), and the command's report goes
/// to standard error, as for `-`, so it does not land in the data.
public enum StandardOutput {
    static let names: Set<String> = ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/proc/\(getpid())/fd/1"]

    /// Whether `path` is `-` or names this process's standard output.
    public static func isStandardOutput(_ path: String) -> Bool {
        if path == "-" { return true }
        var current = path
        // Link by link, so a link to /dev/stdout is recognised whatever standard output points at.
        for _ in 0..<32 {
            if names.contains(PathParts.normalized(current)) { return true }
            guard let target = link(current) else { return false }
            let directory = PathParts.split(PathParts.normalized(current)).directory
            current = target.hasPrefix("/") || directory.isEmpty ? target : directory + "/" + target
        }
        return false
    }

    /// Whether any of `paths` is standard output.
    public static func any(_ paths: [String?]) -> Bool { paths.contains { $0.map(isStandardOutput) ?? false } }

    /// The target of a symbolic link, nil when `path` is not one.
    static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
