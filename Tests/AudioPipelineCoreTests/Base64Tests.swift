import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

func b64(_ bytes: [UInt8]) -> String {
    var out = [UInt8](repeating: 0, count: Base64.encodedLength(bytes: bytes.count))
    let n = bytes.withUnsafeBytes { i in out.withUnsafeMutableBytes { Base64.encode(i, into: $0) } }
    return String(decoding: out[0..<n], as: UTF8.self)
}

func unb64(_ text: String, skippingWhitespace: Bool = false) throws(Base64.DecodingError) -> [UInt8] {
    let t = Array(text.utf8)
    var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: t.count))
    let r = t.withUnsafeBytes { i in
        out.withUnsafeMutableBytes { o in
            Result { () throws(Base64.DecodingError) -> Int in
                try Base64.decode(i, into: o, skippingWhitespace: skippingWhitespace)
            }
        }
    }
    return Array(out[0..<(try r.get())])
}

@Suite struct Base64Tests {
    static let rfc4648: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: rfc4648)
    func rfc4648TestVectors(plain: String, encoded: String) throws {
        #expect(b64(Array(plain.utf8)) == encoded)
        #expect(try unb64(encoded) == Array(plain.utf8))
    }

    @Test func everyByteValueAndEveryLengthRoundTrips() throws {
        var rng = TestRNG(seed: 64)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = b64(bytes)
            #expect(text.utf8.count == Base64.encodedLength(bytes: length))
            #expect(try unb64(text) == bytes)
        }
        let all = (0...255).map { UInt8($0) }
        #expect(try unb64(b64(all)) == all)
    }

    static let bad: [(String, Base64.DecodingError.Reason, Int)] = [
        ("Zm9v!mFy", .invalidCharacter, 4), ("Zm9v YmFy", .invalidCharacter, 4), ("Zg=", .truncated, 3),
        ("Zm9vY", .truncated, 5),
        ("Z===", .misplacedPadding, 1), ("Zm=v", .misplacedPadding, 2), ("=Zm9", .misplacedPadding, 0),
        ("Zm9v====", .misplacedPadding, 4),
        ("Zg==Zg==", .misplacedPadding, 2), ("Zh==", .nonZeroTrailingBits, 1), ("Zm9=", .nonZeroTrailingBits, 2),
        ("Zm9vYg\u{0}=", .invalidCharacter, 6),
        ("Zm9vÿ", .invalidCharacter, 4),
    ]

    @Test(arguments: bad)
    func strictDecodingReportsWhatAndWhere(text: String, reason: Base64.DecodingError.Reason, offset: Int) {
        do {
            _ = try unb64(text)
            Issue.record("\(text) decoded")
        } catch {
            #expect(error.reason == reason, "\(text): \(error)")
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }

    @Test func whitespaceIsSkippedOnlyWhenAsked() throws {
        #expect(try unb64("Zm9v\r\nYmFy\n", skippingWhitespace: true) == Array("foobar".utf8))
        #expect(try unb64(" Zm 9v\tYg= =", skippingWhitespace: true) == Array("foob".utf8))
        #expect(throws: Base64.DecodingError.self) { _ = try unb64("Zm9v\nYmFy") }
    }

    @Test func neverCrashesOnGarbage() {
        var rng = TestRNG(seed: 7)
        let alphabetish = Array("ABCxyz019+/= \n=!".utf8)
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...24, using: &rng)
            let bytes = (0..<n).map { _ in
                Bool.random(using: &rng)
                    ? alphabetish.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? unb64(text, skippingWhitespace: Bool.random(using: &rng))
        }
    }
}

/// The vector kernels (SSSE3) against the portable Swift code and against Foundation.
@Suite struct Base64KernelTests {
    func encode(_ bytes: [UInt8], _ kernel: VectorKernel) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Base64.encodedLength(bytes: bytes.count))
        let n = bytes.withUnsafeBytes { i in out.withUnsafeMutableBytes { Base64.encode(i, into: $0, kernel: kernel) } }
        return Array(out[0..<n])
    }

    /// Decoded bytes, or the error's reason and offset.
    func decode(_ text: [UInt8], _ kernel: VectorKernel, skippingWhitespace: Bool = false) -> String {
        var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: text.count))
        let r = text.withUnsafeBytes { i in
            out.withUnsafeMutableBytes { o in
                Result { () throws(Base64.DecodingError) -> Int in
                    try Base64.decode(i, into: o, skippingWhitespace: skippingWhitespace, kernel: kernel)
                }
            }
        }
        switch r {
        case .success(let n): return "ok \(out[0..<n])"
        case .failure(let e): return "\(e.reason) @\(e.offset)"
        }
    }

    @Test func theVectorKernelsRunWhereTheCPUHasThem() throws {
        // On this project's x86-64 machines the tests below must exercise the SSSE3 code.
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            info.contains("GenuineIntel") || info.contains("AuthenticAMD")
        else { return }
        #expect(Base64.isVectorized == info.contains(" ssse3"))
    }

    @Test func bothKernelsEncodeAndDecodeLikeFoundationAtEveryLength() {
        var rng = TestRNG(seed: 3)
        for length in Array(0..<400) + [640, 3200, 65_543] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let expected = Array(Data(bytes).base64EncodedString().utf8)
            let vector = encode(bytes, .best), portable = encode(bytes, .portable)
            #expect(vector == expected, "encode \(length) bytes")
            #expect(portable == expected, "encode \(length) bytes (portable)")
            #expect(decode(expected, .best) == "ok \(bytes[...])", "decode \(length) bytes")
            #expect(decode(expected, .portable) == "ok \(bytes[...])", "decode \(length) bytes (portable)")
        }
    }

    @Test func everyByteValueAtEveryPositionOfTheVectorGroupsIsJudgedAlike() {
        // 80 characters: five 16-character groups. Any byte at any of the first 48 positions must
        // give the same bytes, or the same error at the same offset, from both kernels — the vector
        // validation (nibble tables) must accept exactly the alphabet.
        var rng = TestRNG(seed: 5)
        let base = encode((0..<60).map { _ in UInt8.random(in: 0...255, using: &rng) }, .portable)
        #expect(base.count == 80)
        var checked = 0
        for position in 0..<48 {
            for value in 0...255 {
                var text = base
                text[position] = UInt8(value)
                let ws = value == 0x20 || value == 0x0A
                #expect(
                    decode(text, .best, skippingWhitespace: ws) == decode(text, .portable, skippingWhitespace: ws),
                    "byte \(value) at \(position)")
                checked += 1
            }
        }
        #expect(checked == 48 * 256)
        // And a valid character is accepted where the vector code decodes it.
        let valid = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        #expect(decode(valid, .best) == decode(valid, .portable))
        #expect(decode(valid, .best).hasPrefix("ok "))
    }

    @Test func decodingNeverWritesPastTheOutputBuffer() throws {
        // The vector step stores 16 bytes for 12: it must not touch bytes beyond the caller's buffer.
        var rng = TestRNG(seed: 9)
        for length in 1..<200 {
            let text = encode((0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }, .portable)
            let room = Base64.maxDecodedLength(characters: text.count)
            var memory = [UInt8](repeating: 0xAA, count: room + 32)
            let n = try text.withUnsafeBytes { i in
                try memory.withUnsafeMutableBytes { m in
                    try Base64.decode(i, into: UnsafeMutableRawBufferPointer(rebasing: m[0..<room]))
                }
            }
            #expect(n == length)
            #expect(memory[room...].allSatisfy { $0 == 0xAA }, "\(length) bytes")
        }
    }
}

@Suite struct ChunkerTests {
    func collect(_ c: inout Chunker<Int16>, _ input: [Int16], blocks: [Int]) -> [(
        samples: [Int16], start: Int, frames: Int, padded: Int
    )] {
        var out: [(samples: [Int16], start: Int, frames: Int, padded: Int)] = []
        var offset = 0
        input.withUnsafeBufferPointer { inp in
            for b in blocks {
                c.push(UnsafeBufferPointer(rebasing: inp[offset..<offset + b])) {
                    out.append((Array($0.samples), $0.startFrame, $0.frames, $0.paddedFrames))
                }
                offset += b
            }
        }
        c.finish { out.append((Array($0.samples), $0.startFrame, $0.frames, $0.paddedFrames)) }
        return out
    }

    @Test(arguments: Chunker<Int16>.LastChunk.allCases, [1, 7, 480, 5000])
    func chunksDoNotDependOnHowInputArrives(last: Chunker<Int16>.LastChunk, maxBlock: Int) throws {
        var rng = TestRNG(seed: UInt64(maxBlock))
        let input = (0..<10_123).map { _ in Int16.random(in: .min ... .max, using: &rng) }
        var whole = try Chunker<Int16>(chunkFrames: 480, lastChunk: last)
        let reference = collect(&whole, input, blocks: [input.count])
        var chunked = try Chunker<Int16>(chunkFrames: 480, lastChunk: last)
        let got = collect(&chunked, input, blocks: randomBlocks(total: input.count, maxBlock: maxBlock, rng: &rng))
        #expect(got.count == reference.count)
        for (a, b) in zip(got, reference) {
            #expect(a.samples == b.samples && a.start == b.start && a.frames == b.frames && a.padded == b.padded)
        }
        // 10123 = 21 × 480 + 43.
        #expect(reference.count == (last == .drop ? 21 : 22))
        #expect(reference.dropLast(last == .drop ? 0 : 1).allSatisfy { $0.samples.count == 480 })
        if last == .emitShort { #expect(reference.last!.samples.count == 43 && reference.last!.start == 21 * 480) }
        if last == .pad {
            #expect(reference.last!.samples.count == 480 && reference.last!.padded == 437)
            #expect(reference.last!.samples[43...].allSatisfy { $0 == 0 })
        }
        #expect(
            reference.flatMap { $0.samples }.prefix(input.count).elementsEqual(
                input.prefix(last == .drop ? 21 * 480 : input.count)))
    }

    @Test func stereoChunksCountFrames() throws {
        var c = try Chunker<Int16>(chunkFrames: 3, channels: 2, lastChunk: .emitShort)
        let got = collect(&c, (0..<14).map { Int16($0) }, blocks: [5, 9])
        #expect(got.map(\.frames) == [3, 3, 1])
        #expect(got.map(\.start) == [0, 3, 6])
        #expect(got[2].samples == [12, 13])
    }

    @Test func refusesEmptyChunks() {
        #expect(throws: AudioPipelineError.self) { _ = try Chunker<Int16>(chunkFrames: 0) }
    }
}
