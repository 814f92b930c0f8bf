import AudioPipelineCore
import Foundation

/// The one CSV reader and writer of the workflows.
///
/// Reading is for the toolkit's own numeric formats (jitter traces, flush files): a header row,
/// comma-separated fields, no quoting. A quote character is refused with its line number rather
/// than mis-split. Blank lines are skipped; `\r\n` line ends and a byte-order mark are accepted.
///
/// Writing quotes per RFC 4180 where needed (a field with a comma, quote, or line break is enclosed
/// in quotes, quotes doubled), so a file name with a comma keeps every column in place.
public struct CSVTable: Sendable {
    /// One data row.
    public struct Row: Sendable {
        /// Line number in the file (the header is line 1).
        public let line: Int
        /// Its fields, in header order.
        public let fields: [String]
    }

    /// The file's path, for messages.
    public let path: String
    /// The header's column names.
    public let header: [String]
    /// Each column's index, by name.
    public let columns: [String: Int]
    /// The data rows.
    public let rows: [Row]

    /// Parses `text` (read from `path`, for messages). `required` columns must be in the header.
    /// `firstLine` is the header's line number in the file (when text before it was cut off).
    public init(text: String, path: String, required: [String] = [], firstLine: Int = 1) throws(AudioPipelineError) {
        self.path = path
        // "\r\n" is one Character in Swift: split on any newline character.
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        while let last = lines.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.removeLast() }
        guard let first = lines.first else {
            throw AudioPipelineError(.invalidData, "\(path): empty file (a CSV header is required)")
        }
        func split(_ line: Substring, number: Int) throws(AudioPipelineError) -> [String] {
            if line.contains("\"") {
                throw AudioPipelineError(
                    .invalidData, "\(path):\(number): quoted fields are not supported in this file")
            }
            return line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        header = try split(first, number: firstLine).map { $0.trimmingSpaces }
        var columns: [String: Int] = [:]
        for (i, name) in header.enumerated() where columns[name] == nil { columns[name] = i }
        self.columns = columns
        for r in required where columns[r] == nil {
            // The header as read, cut to 200 characters: a 100 MB line without a newline was echoed whole.
            let shown = first.count > 200 ? first.prefix(200) + "… (\(first.utf8.count) bytes)" : String(first)
            throw AudioPipelineError(.invalidData, "\(path):\(firstLine): missing column '\(r)' (header: \(shown))")
        }
        var rows: [Row] = []
        for (i, line) in lines.enumerated().dropFirst() {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            let number = firstLine + i
            let fields = try split(line, number: number)
            guard fields.count == header.count else {
                throw AudioPipelineError(
                    .invalidData, "\(path):\(number): \(fields.count) fields, the header has \(header.count)")
            }
            rows.append(Row(line: number, fields: fields))
        }
        self.rows = rows
    }

    /// Reads and parses a CSV file.
    public static func read(_ path: String, what: String, required: [String]) throws(AudioPipelineError) -> CSVTable {
        try CSVTable(text: try TextInput.text(path, what: what), path: path, required: required)
    }

    /// The field of `column` in `row` (trimmed), nil when the file has no such column.
    public func field(_ column: String, in row: Row) -> String? {
        columns[column].map { row.fields[$0].trimmingSpaces }
    }
}

/// Builds CSV text with RFC 4180 quoting.
public struct CSVWriter: Sendable {
    /// The CSV so far.
    public private(set) var text = ""

    /// A CSV starting with `header`.
    public init(header: [String]) { append(header) }

    /// Appends one row, quoted where needed.
    public mutating func append(_ fields: [String]) {
        text += fields.map(Self.quote).joined(separator: ",") + "\n"
    }

    /// A field as RFC 4180 wants it: as is, or in quotes with inner quotes doubled.
    public static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
