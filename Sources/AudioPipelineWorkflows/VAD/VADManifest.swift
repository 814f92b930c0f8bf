import AudioPipelineCore
import Foundation

/// A corpus's `manifest.csv` (the VAD evaluation kit's layout): a header with a `name` column, one
/// row per item. `vad tune` groups its per-file results by a condition made of some columns —
/// `condition` if there is one, else `noise` (the kit's), or those `--condition-by` names — for the
/// report's per-condition table. Fields may be quoted (RFC 4180: commas and doubled quotes inside).
public struct VADManifest: Sendable {
    /// The manifest's path.
    public var path: String
    /// Its columns, in order.
    public var header: [String]
    /// Each item's fields by column, by item name.
    public var rows: [String: [String: String]]

    /// `manifest.csv` in the audio directory, else in the label directory; nil when neither has one.
    public static func find(audioDirectory: String, labelDirectory: String) throws(AudioPipelineError)
        -> VADManifest?
    {
        for dir in [audioDirectory, labelDirectory] where FileManager.default.fileExists(atPath: dir + "/manifest.csv")
        {
            let path = dir + "/manifest.csv"
            return try VADManifest(text: try TextInput.text(path, what: "the manifest"), path: path)
        }
        return nil
    }

    /// The manifest in `text`, read from `path`.
    /// - Throws: `invalidData` naming the file and line of a bad row, or a header without `name`.
    public init(text: String, path: String) throws(AudioPipelineError) {
        self.path = path
        let records = try Self.records(text, path: path)
        guard let head = records.first, let nameColumn = head.firstIndex(of: "name") else {
            throw AudioPipelineError(.invalidData, "\(path): the header has no 'name' column")
        }
        header = head
        rows = [:]
        for (k, r) in records.dropFirst().enumerated() where !(r.count == 1 && r[0].isEmpty) {
            guard r.count == head.count else {
                throw AudioPipelineError(
                    .invalidData, "\(path): record \(k + 2) has \(r.count) fields, the header \(head.count)")
            }
            rows[r[nameColumn]] = Dictionary(zip(head, r), uniquingKeysWith: { a, _ in a })
        }
    }

    /// The columns that make a condition: `requested` (each must exist), else `condition`, else
    /// `noise`; nil when the manifest has neither.
    public func conditionColumns(_ requested: [String]?) throws(AudioPipelineError) -> [String]? {
        if let requested {
            for c in requested where !header.contains(c) {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "\(path): no column '\(c)' for --condition-by (columns: \(header.joined(separator: ", ")))")
            }
            return requested
        }
        return ["condition", "noise"].first(where: header.contains).map { [$0] }
    }

    /// An item's condition: the value of the one column, or `column=value` pairs; `(not in the
    /// manifest)` for an item without a row.
    public func condition(of name: String, columns: [String]) -> String {
        guard let row = rows[name] else { return "(not in the manifest)" }
        if columns.count == 1 { return row[columns[0]] ?? "" }
        return columns.map { "\($0)=\(row[$0] ?? "")" }.joined(separator: " ")
    }

    /// The records of a CSV text: fields split at commas outside quotes; a quoted field keeps its
    /// commas and line breaks, `""` is a quote. Line ends `\n` or `\r\n`; a byte-order mark is skipped.
    static func records(_ text: String, path: String) throws(AudioPipelineError) -> [[String]] {
        var records: [[String]] = [], fields: [String] = [], field = ""
        var quoted = false, wasQuoted = false
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            i += 1
            if quoted {
                if c == "\"" {
                    if i < chars.count && chars[i] == "\"" {
                        field.unicodeScalars.append("\""); i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"" where field.isEmpty && !wasQuoted: quoted = true; wasQuoted = true
            case ",": fields.append(field); field = ""; wasQuoted = false
            case "\r" where i < chars.count && chars[i] == "\n": continue
            case "\n", "\r":
                fields.append(field); records.append(fields)
                fields = []; field = ""; wasQuoted = false
            default: field.unicodeScalars.append(c)
            }
        }
        if quoted { throw AudioPipelineError(.invalidData, "\(path): a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty { fields.append(field); records.append(fields) }
        return records.map { $0.map { $0.trimmingCharacters(in: .whitespaces) } }
    }
}
