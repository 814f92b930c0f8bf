import CVectorKernels

// Strict decoding: the vector kernel for the bulk, then three Swift paths (4-byte quads, whole
// quads, and the careful path for whitespace, padding and errors). Errors carry the offset of the
// first offending byte, the same whichever path reaches it.

extension Base64 {
    /// Decodes base64 text into `output` (at least `maxDecodedLength(characters:)` bytes);
    /// returns the number of bytes written.
    ///
    /// - Throws: `DecodingError` with the offset of the first offending input byte.
    public static func decode(
        _ text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, skippingWhitespace: Bool = false,
        kernel: VectorKernel = .best
    ) throws(DecodingError) -> Int {
        precondition(output.count >= maxDecodedLength(characters: text.count), "base64 output buffer too small")
        guard text.count > 0 else { return 0 }
        let src = text.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        // The vector kernel decodes whole 16-character groups of alphabet characters and stops at
        // the first group with anything else; each step stores 16 bytes for 12, so it is given
        // only as many groups as leave 4 bytes of room.
        var done = 0
        if kernel == .best && isVectorized && text.count >= 16 {
            let groups = Swift.min(text.count / 16, (output.count - 4) / 12)
            if groups > 0 { done = cb64_decode(src, groups * 16, out) }
        }
        let written = done / 4 * 3
        let result = sextets.withUnsafeBufferPointer { table in
            decodeTables.withUnsafeBufferPointer { quads in
                decodeKernel(
                    src + done, text.count - done, out + written, output.count - written, table.baseAddress!,
                    quads.baseAddress!, skippingWhitespace)
            }
        }
        switch result {
        case .success(let n): return written + n
        case .failure(let e): throw DecodingError(reason: e.reason, offset: e.offset + done)
        }
    }

    /// The Swift decoder: whole quads as far as they go, then the careful path for the rest.
    static func decodeKernel(
        _ src: UnsafePointer<UInt8>, _ n: Int, _ out: UnsafeMutablePointer<UInt8>, _ capacity: Int,
        _ t: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt32>, _ skipWS: Bool
    ) -> Result<Int, DecodingError> {
        let (i, o) = decodeWholeQuads(src, n, out, capacity, t, d)
        return decodeCarefully(src, n, out, t, skipWS, from: i, written: o)
    }

    /// The fast paths: whole quads of alphabet characters (no padding, no whitespace), from the
    /// start until the first quad with anything else. Returns the input and output positions.
    @inline(__always)
    static func decodeWholeQuads(
        _ src: UnsafePointer<UInt8>, _ n: Int, _ out: UnsafeMutablePointer<UInt8>, _ capacity: Int,
        _ t: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt32>
    ) -> (read: Int, written: Int) {
        var i = 0, o = 0
        // Fastest path: one 4-byte load and one 4-byte store per quad (the store's 4th byte is
        // overwritten by the next quad, so it needs one byte of room beyond the 3 it decodes).
        let raw = UnsafeRawPointer(src), wout = UnsafeMutableRawPointer(out)
        while i &+ 4 <= n && o &+ 4 <= capacity {
            let q = raw.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian
            let v =
                d[Int(q & 0xFF)] | d[256 &+ Int((q >> 8) & 0xFF)] | d[512 &+ Int((q >> 16) & 0xFF)]
                | d[768 &+ Int(q >> 24)]
            if v & 0x0100_0000 != 0 { break }
            wout.storeBytes(of: v.littleEndian, toByteOffset: o, as: UInt32.self)
            i &+= 4
            o &+= 3
        }
        // Fast path: whole quads of alphabet characters, no padding, no whitespace.
        while i &+ 4 <= n {
            let a = t[Int(src[i])], b = t[Int(src[i &+ 1])], c = t[Int(src[i &+ 2])], d = t[Int(src[i &+ 3])]
            if (a | b | c | d) & 0x80 != 0 { break }
            let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            out[o] = UInt8(truncatingIfNeeded: v >> 16)
            out[o &+ 1] = UInt8(truncatingIfNeeded: v >> 8)
            out[o &+ 2] = UInt8(truncatingIfNeeded: v)
            i &+= 4
            o &+= 3
        }
        return (i, o)
    }

    /// The careful path from input position `i` (a quad boundary) and output position `o`:
    /// whitespace, padding, the length check and every error.
    @inline(__always)
    static func decodeCarefully(
        _ src: UnsafePointer<UInt8>, _ n: Int, _ out: UnsafeMutablePointer<UInt8>, _ t: UnsafePointer<UInt8>,
        _ skipWS: Bool, from start: Int, written: Int
    ) -> Result<Int, DecodingError> {
        var i = start, o = written
        var quad: UInt32 = 0
        var count = 0  // sextets in the current quad
        var padding = 0
        var paddingStart = -1
        var significant = i  // characters (excluding whitespace) seen so far, for the length check
        while i < n {
            let ch = src[i]
            if skipWS && (ch == 0x20 || ch == 0x09 || ch == 0x0A || ch == 0x0D) {
                i &+= 1
                continue
            }
            if ch == UInt8(ascii: "=") {
                if count < 2 { return .failure(DecodingError(reason: .misplacedPadding, offset: i)) }
                if paddingStart < 0 { paddingStart = i }
                padding &+= 1
                if padding + count > 4 { return .failure(DecodingError(reason: .misplacedPadding, offset: i)) }
                significant &+= 1
                i &+= 1
                continue
            }
            let s = t[Int(ch)]
            if s & 0x80 != 0 { return .failure(DecodingError(reason: .invalidCharacter, offset: i)) }
            if padding > 0 { return .failure(DecodingError(reason: .misplacedPadding, offset: paddingStart)) }
            quad = quad << 6 | UInt32(s)
            count &+= 1
            significant &+= 1
            if count == 4 {
                out[o] = UInt8(truncatingIfNeeded: quad >> 16)
                out[o &+ 1] = UInt8(truncatingIfNeeded: quad >> 8)
                out[o &+ 2] = UInt8(truncatingIfNeeded: quad)
                o &+= 3
                quad = 0
                count = 0
            }
            i &+= 1
        }
        if significant % 4 != 0 { return .failure(DecodingError(reason: .truncated, offset: n)) }
        if count > 0 {
            // count is 2 or 3 here (padding made the quad whole); its unused low bits must be zero.
            if count == 2 {
                if quad & 0xF != 0 {
                    return .failure(DecodingError(reason: .nonZeroTrailingBits, offset: paddingStart - 1))
                }
                out[o] = UInt8(truncatingIfNeeded: quad >> 4)
                o &+= 1
            } else {
                if quad & 0x3 != 0 {
                    return .failure(DecodingError(reason: .nonZeroTrailingBits, offset: paddingStart - 1))
                }
                out[o] = UInt8(truncatingIfNeeded: quad >> 10)
                out[o &+ 1] = UInt8(truncatingIfNeeded: quad >> 2)
                o &+= 2
            }
        } else if padding > 0 {
            return .failure(DecodingError(reason: .misplacedPadding, offset: paddingStart))
        }
        return .success(o)
    }
}
