/// A non-allocating walk over JSON text to one value, for the hot path of decoding server audio
/// messages. It does not validate the whole document (the full `JSON.parse` does that); it finds
/// the value at a path of object keys and array indices, skipping everything else, and answers
/// `nil` for anything it cannot follow. It never reads outside the buffer.
struct JSONScanner {
    enum Step: Sendable, Hashable {
        case key([UInt8])
        case index(Int)
    }

    /// What else a message may not hold around the value `find` looks for, checked in the same
    /// pass: keys that must not appear in the object searched at `forbiddenLevel` of the path
    /// (before or after the path's own key), and the level whose array must end with the path's
    /// element (-1: none).
    struct Rules: FindRules {
        var forbiddenLevel = -1
        var forbiddenKeys: [[UInt8]] = []
        var lastElementLevel = -1
        var checksRest: Bool { true }
        @inline(__always) func forbids(_ s: JSONScanner, _ start: Int, _ end: Int, level: Int) -> Bool {
            level == forbiddenLevel
                && forbiddenKeys.contains { k in
                    end &- start &- 2 == k.count && (0..<k.count).allSatisfy { s.b[start &+ 1 &+ $0] == k[$0] }
                }
        }
        @inline(__always) func wantsLast(level: Int) -> Bool { level == lastElementLevel }
    }

    /// No rules: `find` as fast as a plain walk (the generic code specialises to nothing extra).
    struct NoRules: FindRules {
        var checksRest: Bool { false }
        @inline(__always) func forbids(_ s: JSONScanner, _ start: Int, _ end: Int, level: Int) -> Bool { false }
        @inline(__always) func wantsLast(level: Int) -> Bool { false }
    }

    let b: UnsafeBufferPointer<UInt8>

    @inline(__always) func ws(_ i: Int) -> Int {
        var i = i
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i &+= 1 }
        return i
    }

    /// Index just past the string starting at `i` (the opening quote), and whether it had escapes.
    @inline(__always) func stringEnd(_ i: Int) -> (end: Int, escaped: Bool)? {
        var j = i &+ 1
        var escaped = false
        let quote = SIMD16<UInt8>(repeating: 0x22), backslash = SIMD16<UInt8>(repeating: 0x5C)
        let raw = UnsafeRawPointer(b.baseAddress!)
        while true {
            // 64, then 16 bytes at a time until a quote or backslash shows up (a 20 ms base64
            // payload is 850–1700 characters: the wide step halves the loop's overhead).
            while j &+ 64 <= b.count {
                let v0 = raw.loadUnaligned(fromByteOffset: j, as: SIMD16<UInt8>.self)
                let v1 = raw.loadUnaligned(fromByteOffset: j &+ 16, as: SIMD16<UInt8>.self)
                let v2 = raw.loadUnaligned(fromByteOffset: j &+ 32, as: SIMD16<UInt8>.self)
                let v3 = raw.loadUnaligned(fromByteOffset: j &+ 48, as: SIMD16<UInt8>.self)
                let m01 = (v0 .== quote) .| (v0 .== backslash) .| (v1 .== quote) .| (v1 .== backslash)
                let m23 = (v2 .== quote) .| (v2 .== backslash) .| (v3 .== quote) .| (v3 .== backslash)
                if any(m01 .| m23) { break }
                j &+= 64
            }
            while j &+ 16 <= b.count {
                let v = raw.loadUnaligned(fromByteOffset: j, as: SIMD16<UInt8>.self)
                if any((v .== quote) .| (v .== backslash)) { break }
                j &+= 16
            }
            // The block at j holds the next quote or backslash (or the text ends within 16 bytes):
            // find it byte by byte, without going back to the vector steps for every byte before
            // it (that cost ~20 instructions per character of every key and short value).
            while j < b.count, b[j] != 0x22, b[j] != 0x5C { j &+= 1 }
            guard j < b.count else { return nil }
            if b[j] == 0x22 { return (j &+ 1, escaped) }
            escaped = true
            j &+= 2
        }
    }

    /// Index just past the value starting at `i`.
    func skipValue(_ i: Int) -> Int? {
        guard i < b.count else { return nil }
        switch b[i] {
        case 0x22: return stringEnd(i)?.end
        case 0x7B, 0x5B:  // { [ : skip to the matching bracket, strings aside
            var depth = 0, j = i
            while j < b.count {
                switch b[j] {
                case 0x22:
                    guard let e = stringEnd(j)?.end else { return nil }
                    j = e
                    continue
                case 0x7B, 0x5B: depth &+= 1
                case 0x7D, 0x5D:
                    depth &-= 1
                    if depth == 0 { return j &+ 1 }
                default: break
                }
                j &+= 1
            }
            return nil
        default:  // number, true, false, null
            var j = i
            while j < b.count, b[j] != 0x2C, b[j] != 0x7D, b[j] != 0x5D, b[j] != 0x20, b[j] != 0x0A, b[j] != 0x0D,
                b[j] != 0x09
            {
                j &+= 1
            }
            return j > i ? j : nil
        }
    }

    /// The value at `path`, as the range of its text (for a string: without the quotes) and
    /// whether a string had escapes. Of duplicate keys the first counts, as in `JSON.parse`; a key
    /// with escapes before the one found might be the same key written otherwise, so it defers
    /// (`nil`) to the full parse.
    func find(_ path: [Step]) -> (range: Range<Int>, isString: Bool, escaped: Bool)? { find(path, NoRules()) }

    func find<R: FindRules>(_ path: [Step], _ rules: R) -> (range: Range<Int>, isString: Bool, escaped: Bool)? {
        var i = ws(0)
        for (level, step) in path.enumerated() {
            guard i < b.count else { return nil }
            switch step {
            case .key(let key):
                guard b[i] == 0x7B else { return nil }
                i = ws(i &+ 1)
                var found = false
                while i < b.count, b[i] == 0x22 {
                    guard let (kEnd, kEsc) = stringEnd(i), !kEsc else { return nil }
                    let matches =
                        kEnd &- i &- 2 == key.count
                        && key.withUnsafeBufferPointer { k in
                            (0..<k.count).allSatisfy { b[i &+ 1 &+ $0] == k[$0] }
                        }
                    if rules.forbids(self, i, kEnd, level: level) { return nil }
                    i = ws(kEnd)
                    guard i < b.count, b[i] == 0x3A else { return nil }
                    i = ws(i &+ 1)
                    if matches {
                        found = true
                        break
                    }
                    guard let vEnd = skipValue(i) else { return nil }
                    i = ws(vEnd)
                    guard i < b.count else { return nil }
                    if b[i] == 0x2C { i = ws(i &+ 1); continue }
                    return nil  // '}' (not found) or garbage
                }
                if !found { return nil }
            case .index(let n):
                guard b[i] == 0x5B else { return nil }
                i = ws(i &+ 1)
                var k = 0
                while k < n {
                    guard let vEnd = skipValue(i) else { return nil }
                    i = ws(vEnd)
                    guard i < b.count, b[i] == 0x2C else { return nil }
                    i = ws(i &+ 1)
                    k &+= 1
                }
            }
        }
        guard i < b.count else { return nil }
        if b[i] == 0x22 {
            guard let (end, esc) = stringEnd(i) else { return nil }
            // The value must be followed by what can follow a value, or the text is broken here.
            let next = ws(end)
            guard next < b.count, b[next] == 0x2C || b[next] == 0x7D || b[next] == 0x5D else { return nil }
            if rules.checksRest, !restObeys(rules, path, from: end) { return nil }
            return ((i &+ 1)..<(end &- 1), true, esc)
        }
        guard let end = skipValue(i) else { return nil }
        if rules.checksRest, !restObeys(rules, path, from: end) { return nil }
        return (i..<end, false, false)
    }

    /// One forward pass from just past the found value to the end of every container on the path
    /// (after a voice API's audio there is little): no forbidden key later at its level, and no
    /// later element where the path's element must be the last.
    private func restObeys<R: FindRules>(_ rules: R, _ path: [Step], from start: Int) -> Bool {
        var i = start
        for level in stride(from: path.count - 1, through: 0, by: -1) {
            while true {
                i = ws(i)
                guard i < b.count else { return false }
                if b[i] == 0x7D || b[i] == 0x5D {
                    i &+= 1
                    break
                }
                guard b[i] == 0x2C else { return false }
                i = ws(i &+ 1)
                switch path[level] {
                case .index:
                    if rules.wantsLast(level: level) { return false }
                case .key:
                    guard i < b.count, b[i] == 0x22, let (kEnd, kEsc) = stringEnd(i), !kEsc,
                        !rules.forbids(self, i, kEnd, level: level)
                    else { return false }
                    i = ws(kEnd)
                    guard i < b.count, b[i] == 0x3A else { return false }
                    i = ws(i &+ 1)
                }
                guard let vEnd = skipValue(i) else { return false }
                i = vEnd
            }
        }
        return true
    }

    /// True when the value at `path` is a string equal to one of `values` (no escapes).
    func stringAt(_ path: [Step], isOneOf values: [[UInt8]]) -> Bool {
        guard let (r, isString, esc) = find(path), isString, !esc else { return false }
        return values.contains { v in
            v.count == r.count
                && v.withUnsafeBufferPointer { vb in (0..<vb.count).allSatisfy { b[r.lowerBound &+ $0] == vb[$0] } }
        }
    }
}

/// Extra conditions `JSONScanner.find` checks in its one pass (see `JSONScanner.Rules`).
protocol FindRules {
    var checksRest: Bool { get }
    func forbids(_ s: JSONScanner, _ start: Int, _ end: Int, level: Int) -> Bool
    func wantsLast(level: Int) -> Bool
}
