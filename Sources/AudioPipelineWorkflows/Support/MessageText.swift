import Foundation

/// How an error or note is printed.
public enum MessageText {
    /// A message as printed: control characters (a file name's escape sequence or carriage return)
    /// escaped, and `arguments` (the command line's) that hold a newline or tab escaped wherever they
    /// appear, so a file named `a<newline>b.wav` cannot split an error into two lines. A message's
    /// own line breaks (label help, usage) stay.
    public static func shown(_ message: String, arguments: [String]) -> String {
        func escaped<S: StringProtocol>(_ text: S, keepingLines: Bool) -> String {
            var out = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\n" where keepingLines, "\t" where keepingLines: out.unicodeScalars.append(scalar)
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
        var text = escaped(message, keepingLines: true)
        for argument in arguments where argument.contains(where: { $0 == "\n" || $0 == "\t" }) {
            text = text.replacingOccurrences(
                of: escaped(argument, keepingLines: true), with: escaped(argument, keepingLines: false))
        }
        return text
    }
}
