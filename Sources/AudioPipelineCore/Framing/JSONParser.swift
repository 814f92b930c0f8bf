/// A strict, non-recursive-descent-safe JSON parser: depth is limited (default 256), every error
/// is reported with its byte offset, and no input can crash it.
public enum JSON {
    /// Why the text is not JSON, and where.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong ("expected ':'", "nesting deeper than 256" …).
        public let message: String
        /// Byte offset of the offending byte in the input.
        public let offset: Int
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// Parses `text` as one JSON value (whitespace around it allowed; nothing else after it).
    /// - Throws: `ParseError` with the byte offset of the first problem; nesting deeper than `maxDepth` is one.
    public static func parse(_ text: String, maxDepth: Int = 256) throws(ParseError) -> JSONValue {
        var copy = text
        return try copy.withUTF8 { b in
            Result { () throws(ParseError) -> JSONValue in try parse(UnsafeRawBufferPointer(b), maxDepth: maxDepth) }
        }.get()
    }

    /// Parses UTF-8 `bytes` as one JSON value, as `parse(_:maxDepth:)` on a string does.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 256) throws(ParseError) -> JSONValue {
        var p = Parser(bytes: bytes.bindMemory(to: UInt8.self), maxDepth: maxDepth)
        p.skipWhitespace()
        let v = try p.value(depth: 0)
        p.skipWhitespace()
        if p.i != p.bytes.count { throw ParseError(message: "unexpected text after the JSON value", offset: p.i) }
        return v
    }

    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var i = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        mutating func skipWhitespace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
                i += 1
            }
        }

        func fail(_ m: String, _ at: Int? = nil) -> ParseError { ParseError(message: m, offset: at ?? i) }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
            guard i < bytes.count else { throw fail("unexpected end of input") }
            switch bytes[i] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw fail("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(ParseError) {
            let n = word.utf8CodeUnitCount
            guard i + n <= bytes.count else { throw fail("unexpected end of input") }
            for k in 0..<n where bytes[i + k] != word.utf8Start[k] { throw fail("invalid literal", i + k) }
            i += n
        }

        mutating func object(depth: Int) throws(ParseError) -> JSONValue {
            i += 1
            var result: [String: JSONValue] = [:]
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(result) }
            while true {
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                    throw fail(i < bytes.count ? "expected a string key" : "unexpected end of input")
                }
                let key = try string()
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                    throw fail(i < bytes.count ? "expected ':'" : "unexpected end of input")
                }
                i += 1
                skipWhitespace()
                // Of duplicate keys the first counts (RFC 8259 leaves it open), as the hot path's
                // JSONScanner reads them: both must find the same audio in a message.
                let v = try value(depth: depth + 1)
                if result[key] == nil { result[key] = v }
                skipWhitespace()
                guard i < bytes.count else { throw fail("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(result) }
                throw fail("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> JSONValue {
            i += 1
            var result: [JSONValue] = []
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(result) }
            while true {
                skipWhitespace()
                result.append(try value(depth: depth + 1))
                skipWhitespace()
                guard i < bytes.count else { throw fail("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(result) }
                throw fail("expected ',' or ']'")
            }
        }

        /// Whether there is an ASCII digit at `j`.
        func digit(at j: Int) -> Bool {
            j < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[j])
        }

        mutating func number() throws(ParseError) -> Double {
            let start = i
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digit(at: i) else { throw fail("invalid number", start) }
            if bytes[i] == UInt8(ascii: "0") { i += 1 } else { while digit(at: i) { i += 1 } }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard digit(at: i) else { throw fail("invalid number", start) }
                while digit(at: i) { i += 1 }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard digit(at: i) else { throw fail("invalid number", start) }
                while digit(at: i) { i += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            guard let d = Double(text) else { throw fail("invalid number", start) }
            return d
        }

        /// A string starting at the opening quote; validates escapes and UTF-8.
        mutating func string() throws(ParseError) -> String {
            let open = i
            i += 1
            var scalars = String.UnicodeScalarView()
            var runStart = i
            var plain = true  // no escapes so far: decode the whole run at once
            while true {
                guard i < bytes.count else { throw fail("unterminated string", open) }
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    let run = UnsafeBufferPointer(rebasing: bytes[runStart..<i])
                    guard let s = String(validating: run, as: UTF8.self) else {
                        throw fail("invalid UTF-8 in string", runStart)
                    }
                    i += 1
                    if plain { return s }
                    scalars.append(contentsOf: s.unicodeScalars)
                    return String(scalars)
                }
                if c < 0x20 { throw fail("control character in string") }
                if c == UInt8(ascii: "\\") {
                    let run = UnsafeBufferPointer(rebasing: bytes[runStart..<i])
                    guard let s = String(validating: run, as: UTF8.self) else {
                        throw fail("invalid UTF-8 in string", runStart)
                    }
                    scalars.append(contentsOf: s.unicodeScalars)
                    plain = false
                    i += 1
                    guard i < bytes.count else { throw fail("unterminated string", open) }
                    switch bytes[i] {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4(at: i + 1)
                        i += 4
                        if (0xD800..<0xDC00).contains(code) {
                            guard i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "\\"),
                                bytes[i + 2] == UInt8(ascii: "u")
                            else { throw fail("unpaired surrogate", i + 1) }
                            let low = try hex4(at: i + 3)
                            guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate", i + 1) }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            i += 6
                        }
                        guard let u = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                        scalars.append(u)
                    default: throw fail("invalid escape")
                    }
                    i += 1
                    runStart = i
                    continue
                }
                i += 1
            }
        }

        func hex4(at j: Int) throws(ParseError) -> UInt32 {
            guard j + 4 <= bytes.count else { throw fail("unexpected end of input") }
            var v: UInt32 = 0
            for k in 0..<4 {
                let c = bytes[j + k]
                let d: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
                default: throw fail("invalid \\u escape", j + k)
                }
                v = v << 4 | d
            }
            return v
        }
    }
}
