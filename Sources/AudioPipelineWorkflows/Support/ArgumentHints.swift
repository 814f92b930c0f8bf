import Foundation

/// Hints for command lines that went wrong in a way users often do not see.
public enum ArgumentHints {
    /// When an argument that starts with "-" names an existing file (`-in.wav`), how to pass it.
    public static func dashFile(_ arguments: some Sequence<String>) -> String? {
        guard
            let name = arguments.first(where: {
                $0.count > 1 && $0.hasPrefix("-") && !$0.hasPrefix("--") && FileManager.default.fileExists(atPath: $0)
            })
        else { return nil }
        return "audiopipe: '\(name)' is read as an option; to name that file, write ./\(name), "
            + "or put -- before the file names"
    }
}
