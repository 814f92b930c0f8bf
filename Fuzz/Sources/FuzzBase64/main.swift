// Base64 decoding: the vector kernels and the Swift code agree on every input (bytes or the error
// and its offset), and encoding what was decoded decodes back to the same bytes.
import AudioPipelineCore
import FuzzSupport

Fuzz.body = { text in
    func decode(_ kernel: VectorKernel, whitespace: Bool) -> Result<[UInt8], Base64.DecodingError> {
        var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: text.count))
        return out.withUnsafeMutableBytes { o in
            Result { () throws(Base64.DecodingError) in
                try Base64.decode(text, into: o, skippingWhitespace: whitespace, kernel: kernel)
            }
        }.map { Array(out[0..<$0]) }
    }
    for whitespace in [false, true] {
        let best = decode(.best, whitespace: whitespace), portable = decode(.portable, whitespace: whitespace)
        if best != portable { Fuzz.fail("kernels disagree (whitespace \(whitespace)): \(best) vs \(portable)") }
        guard case .success(let bytes) = best else { continue }
        var encoded = [UInt8](repeating: 0, count: Base64.encodedLength(bytes: bytes.count))
        let n = bytes.withUnsafeBytes { b in encoded.withUnsafeMutableBytes { Base64.encode(b, into: $0) } }
        let again = encoded[0..<n].withUnsafeBytes { e in
            var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: n))
            let m = try? out.withUnsafeMutableBytes { try Base64.decode(e, into: $0) }
            return m.map { Array(out[0..<$0]) }
        }
        if again != bytes { Fuzz.fail("encode then decode changed the bytes") }
    }
}
Fuzz.run()
