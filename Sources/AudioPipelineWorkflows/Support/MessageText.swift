import Foundation

/// How an error or note is printed.
public enum MessageText {
    /// A message as printed: one line, whatever a file name, a list's field or an option's value
    /// holds — control characters are escaped (`\n`, `\t`, `\r`, `\u{1b}` …), so a name cannot split
    /// an error or colour the terminal. A message's own continuation lines (the indented help under
    /// `vad tune`'s no-labels error) stay: a line break followed by two spaces, and the tabs within
    /// such a line (its label-file example). `arguments` (the command line's) are escaped wholly
    /// wherever they appear, even where one holds a line break followed by spaces.
    public static func shown(_ message: String, arguments: [String]) -> String {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        var text = escaped(lines[0], keepTabs: false)
        for line in lines.dropFirst() {
            let continuation = line.hasPrefix("  ")
            text += (continuation ? "\n" : "\\n") + escaped(line, keepTabs: continuation)
        }
        for argument in arguments where argument.contains(where: { $0 == "\n" || $0 == "\t" }) {
            let shownThere = shown(argument, arguments: [])
            let whole = escaped(argument, keepTabs: false)
            if shownThere != whole { text = text.replacingOccurrences(of: shownThere, with: whole) }
        }
        return text
    }

    static func escaped<S: StringProtocol>(_ text: S, keepTabs: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\t" where keepTabs: out.unicodeScalars.append(scalar)
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
