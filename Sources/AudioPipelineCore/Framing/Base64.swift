import CVectorKernels

/// Standard base64 (RFC 4648 §4, alphabet `A–Z a–z 0–9 + /`, `=` padding), encoding into and
/// decoding from caller-owned buffers, with no allocation.
///
/// On x86-64 CPUs with SSSE3 and on AArch64 (NEON) the bulk of the work runs in vector kernels
/// (the C target `CVectorKernels`: 12 bytes ↔ 16 characters per step with byte shuffles on x86,
/// 48 ↔ 64 with table lookups on ARM — which portable Swift cannot emit: SSE2 has no byte shuffle
/// and Swift has no per-function target attribute). The tail, whitespace, padding and every error
/// go through the Swift code below, so results and error offsets are the same either way
/// (`VectorKernel.portable` forces the Swift code; tests compare both). Measured here: 640 bytes
/// encode 171 → 68 ns, decode 268 → 90 ns (docs/benchmarks.md).
///
/// The portable encoding is table-driven, 3 input bytes → 4 characters via a 4096-entry table of
/// character pairs (one lookup per 12 bits). Decoding (Base64+Decode.swift) is strict by default:
/// only the alphabet, padding only at the end and only as needed, a length that is a multiple of 4;
/// the first offending byte's offset is reported. `skippingWhitespace` ignores space, tab, CR and
/// LF anywhere (as MIME-style line-wrapped input has).
public enum Base64 {
    /// What is wrong with a base64 text, and where.
    public struct DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Why the text is not base64.
        public enum Reason: String, Sendable {
            /// A byte outside the alphabet (and not skipped whitespace).
            case invalidCharacter = "invalid character"
            /// `=` somewhere other than the last one or two places of the text.
            case misplacedPadding = "misplaced padding"
            /// The text's length is not a multiple of 4.
            case truncated = "length is not a multiple of 4"
            /// The last character carries bits past the last byte that are not zero (a non-canonical encoding).
            case nonZeroTrailingBits = "non-zero bits after the last byte"
        }
        /// What is wrong.
        public let reason: Reason
        /// Byte offset in the input of the first offending byte (for `truncated`: the input length).
        public let offset: Int
        public var description: String { "\(reason.rawValue) at byte \(offset)" }
    }

    /// Whether `VectorKernel.best` uses the vector kernels on this machine.
    public static let isVectorized = cb64_available() != 0

    /// Characters needed for `count` bytes (with padding).
    @inlinable
    public static func encodedLength(bytes count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Upper bound of the bytes `count` characters decode to.
    @inlinable
    public static func maxDecodedLength(characters count: Int) -> Int { (count + 3) / 4 * 3 }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 12 bits → two characters, little-endian (first character in the low byte).
    static let pairs: [UInt16] = (0..<4096).map { i in
        UInt16(alphabet[i >> 6]) | UInt16(alphabet[i & 63]) << 8
    }

    /// Character → its sextet already in place for output byte order, one table per position in
    /// the quad: `d0[c0] | d1[c1] | d2[c2] | d3[c3]` is the 3 decoded bytes (little-endian in the
    /// low 24 bits). Characters outside the alphabet set bit 24, so one test catches all four.
    static let decodeTables: [UInt32] = {
        var t = [UInt32](repeating: 0x0100_0000, count: 4 * 256)
        for (v, c) in alphabet.enumerated() {
            let x = UInt32(v) << 18  // the 24-bit group, big-endian bit order
            for pos in 0..<4 {
                let g = x >> (6 * UInt32(pos))
                // bytes of the group → little-endian memory order
                t[pos * 256 + Int(c)] = (g >> 16) & 0xFF | (g & 0xFF00) | (g & 0xFF) << 16
            }
        }
        return t
    }()

    /// Character → sextet, or 0xFF for "not in the alphabet".
    static let sextets: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Encodes `bytes` into `output`, which must hold `encodedLength(bytes:)` bytes; returns the
    /// number written.
    public static func encode(
        _ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, kernel: VectorKernel = .best
    ) -> Int {
        let n = bytes.count
        let needed = encodedLength(bytes: n)
        precondition(output.count >= needed, "base64 output buffer too small")
        guard n > 0 else { return 0 }
        let src = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let dst = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var done = 0
        if kernel == .best && isVectorized && n >= 16 { done = cb64_encode(src, n, dst) }
        let written = done / 3 * 4
        return written
            + pairs.withUnsafeBufferPointer { table in
                encodeKernel(src + done, n - done, UnsafeMutableRawPointer(dst + written), table.baseAddress!)
            }
    }

    static func encodeKernel(
        _ src: UnsafePointer<UInt8>, _ n: Int, _ out: UnsafeMutableRawPointer, _ table: UnsafePointer<UInt16>
    ) -> Int {
        var i = 0, o = 0
        // 6 bytes → 8 characters per step, from one 8-byte big-endian load (the 2 extra bytes
        // are read, not used, so the loop stops 8 bytes before the end).
        let raw = UnsafeRawPointer(src)
        while i &+ 8 <= n {
            let w = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let a = Int(truncatingIfNeeded: w >> 40), b = Int(truncatingIfNeeded: w >> 16) & 0xFF_FFFF
            let chars =
                UInt64(table[a >> 12]) | UInt64(table[a & 0xFFF]) << 16
                | UInt64(table[b >> 12]) << 32 | UInt64(table[b & 0xFFF]) << 48
            out.storeBytes(of: chars.littleEndian, toByteOffset: o, as: UInt64.self)
            i &+= 6
            o &+= 8
        }
        while i &+ 3 <= n {
            let a = UInt32(src[i]) << 16 | UInt32(src[i &+ 1]) << 8 | UInt32(src[i &+ 2])
            let w = UInt32(table[Int(a >> 12)]) | UInt32(table[Int(a & 0xFFF)]) << 16
            out.storeBytes(of: w.littleEndian, toByteOffset: o, as: UInt32.self)
            i &+= 3
            o &+= 4
        }
        let rest = n &- i
        if rest > 0 {
            let a = UInt32(src[i]) << 16 | (rest == 2 ? UInt32(src[i &+ 1]) << 8 : 0)
            let p = table[Int(a >> 12)]
            out.storeBytes(of: UInt8(truncatingIfNeeded: p), toByteOffset: o, as: UInt8.self)
            out.storeBytes(of: UInt8(truncatingIfNeeded: p >> 8), toByteOffset: o &+ 1, as: UInt8.self)
            let q = table[Int(a & 0xFFF)]
            let third = rest == 2 ? UInt8(truncatingIfNeeded: q) : UInt8(ascii: "=")
            out.storeBytes(of: third, toByteOffset: o &+ 2, as: UInt8.self)
            out.storeBytes(of: UInt8(ascii: "="), toByteOffset: o &+ 3, as: UInt8.self)
            o &+= 4
        }
        return o
    }
}
