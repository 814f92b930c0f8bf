/// A JSON value, parsed strictly (RFC 8259) from UTF-8 bytes by `JSON.parse`.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (as a `Double`).
    case number(Double)
    /// A string, escapes decoded.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (a later duplicate key wins).
    case object([String: JSONValue])

    /// The member `key` of an object; nil for another key or another kind of value.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
    /// The element `index` of an array; nil out of range or for another kind of value.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
    /// The string, if this is one.
    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The number, if this is one.
    public var number: Double? { if case .number(let d) = self { return d } else { return nil } }
    /// The Boolean, if this is one.
    public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    /// The elements, if this is an array.
    public var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    /// The members, if this is an object.
    public var object: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }

    /// Follows a dotted path of object keys (`"serverContent.modelTurn"`).
    public func value(at path: String) -> JSONValue? {
        var v: JSONValue? = self
        for key in path.split(separator: ".") { v = v?[String(key)] }
        return v
    }
}

extension JSONValue {
    /// `s` as the inside of a JSON string literal: `"` and `\` escaped, control characters as
    /// `\uXXXX` (what a message template's placeholder is filled with).
    public static func escaped(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
