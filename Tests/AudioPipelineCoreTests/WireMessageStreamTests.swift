import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// A stream of random messages (opcodes, lengths 0…3000 and a few empty ones) and its bytes.
private func randomStream(count: Int, rng: inout TestRNG) -> (messages: [(WireOpcode, [UInt8])], bytes: [UInt8]) {
    var messages: [(WireOpcode, [UInt8])] = []
    var bytes: [UInt8] = []
    for k in 0..<count {
        let n = k % 7 == 3 ? 0 : Int.random(in: 1...3000, using: &rng)
        let payload = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let opcode = WireOpcode.allCases.randomElement(using: &rng)!
        var encoded = [UInt8](repeating: 0xEE, count: WireMessageStream.encodedLength(payloadBytes: n))
        let written = payload.withUnsafeBytes { p in
            encoded.withUnsafeMutableBytes { WireMessageStream.encode(p, opcode: opcode, into: $0) }
        }
        #expect(written == n + 5)
        messages.append((opcode, payload))
        bytes += encoded
    }
    return (messages, bytes)
}

/// Decodes `bytes` fed in blocks of the given sizes; returns the messages and the error, if any.
private func decode(
    _ bytes: [UInt8], blocks: [Int], maximum: Int = WireMessageStream.defaultMaximumMessageLength
) -> (messages: [(WireOpcode, [UInt8], Int, Int)], error: WireMessageStream.DecodingError?) {
    var decoder = WireMessageStream.Decoder(maximumMessageLength: maximum)
    var out: [(WireOpcode, [UInt8], Int, Int)] = []
    let failure = bytes.withUnsafeBytes { all -> WireMessageStream.DecodingError? in
        var offset = 0
        do throws(WireMessageStream.DecodingError) {
            for b in blocks {
                try decoder.decode(UnsafeRawBufferPointer(rebasing: all[offset..<offset + b])) {
                    out.append(($0.opcode, Array($0.payload), $0.number, $0.offset))
                }
                offset += b
            }
            try decoder.finish()
            return nil
        } catch {
            return error
        }
    }
    if failure == nil { #expect(decoder.bytesDecoded == bytes.count && decoder.pendingBytes == 0) }
    return (out, failure)
}

@Suite struct WireMessageStreamTests {
    @Test func headerIsLittleEndianLengthThenWebSocketOpcode() {
        var header = [UInt8](repeating: 0, count: 5)
        let n = header.withUnsafeMutableBytes {
            WireMessageStream.writeHeader(opcode: .binary, payloadLength: 0x0102_0304, into: $0)
        }
        #expect(n == 5 && header == [4, 3, 2, 1, 2])
        #expect(WireOpcode.text.rawValue == 1 && WireOpcode.binary.rawValue == 2)
    }

    /// The same messages, numbers and offsets whatever block sizes the bytes arrive in (1 included).
    @Test(arguments: [1, 2, 3]) func chunkInvariance(seed: UInt64) {
        var rng = TestRNG(seed: seed)
        let (messages, bytes) = randomStream(count: 40, rng: &rng)
        var offsets: [Int] = []
        var at = 0
        for m in messages {
            offsets.append(at)
            at += 5 + m.1.count
        }
        for maxBlock in [1, 4, 7, 100, 5000, bytes.count] {
            let (got, error) = decode(bytes, blocks: randomBlocks(total: bytes.count, maxBlock: maxBlock, rng: &rng))
            #expect(error == nil)
            #expect(got.count == messages.count)
            for (k, g) in got.enumerated() {
                #expect(g.0 == messages[k].0 && g.1 == messages[k].1 && g.2 == k + 1 && g.3 == offsets[k])
            }
        }
        let (ones, _) = decode(bytes, blocks: [Int](repeating: 1, count: bytes.count))
        #expect(ones.map(\.1) == messages.map(\.1))
    }

    @Test func truncatedHeaderAtTheEndNamesTheMessageAndOffset() {
        // Two whole messages (5 + 3 and 5 + 0 bytes), then 2 bytes of a third header.
        let bytes: [UInt8] = [3, 0, 0, 0, 1, 65, 66, 67, 0, 0, 0, 0, 2, 9, 9]
        for blocks in [[bytes.count], [Int](repeating: 1, count: bytes.count), [6, 9]] {
            let (got, error) = decode(bytes, blocks: blocks)
            #expect(got.count == 2)
            #expect(
                error == WireMessageStream.DecodingError(reason: .truncatedHeader(available: 2), message: 3, offset: 13)
            )
        }
    }

    @Test func lengthBeyondTheEndIsReportedAtFinish() {
        let bytes: [UInt8] = [1, 0, 0, 0, 2, 7, 10, 0, 0, 0, 1, 65, 66, 67]
        let (got, error) = decode(bytes, blocks: [4, 4, 6])
        #expect(got.count == 1 && got[0].1 == [7])
        let e = WireMessageStream.DecodingError(
            reason: .truncatedPayload(announced: 10, available: 3), message: 2, offset: 6)
        #expect(error == e)
        #expect("\(e)" == "message 2 at byte 6: 10 bytes announced, 3 left")
    }

    @Test func unknownOpcodeIsReportedAsSoonAsTheHeaderIsIn() {
        let bytes: [UInt8] = [0, 0, 0, 0, 1, 2, 0, 0, 0, 9, 1, 2]
        let (got, error) = decode(bytes, blocks: [Int](repeating: 1, count: bytes.count))
        #expect(got.count == 1)
        #expect(error == WireMessageStream.DecodingError(reason: .unknownOpcode(9), message: 2, offset: 5))
        #expect("\(error!)" == "message 2 at byte 5: unknown opcode 9")
    }

    @Test func lengthAboveTheMaximumIsAnError() {
        var bytes = [UInt8](repeating: 0, count: 5)
        bytes.withUnsafeMutableBytes { _ = WireMessageStream.writeHeader(opcode: .text, payloadLength: 1000, into: $0) }
        let (_, error) = decode(bytes + [UInt8](repeating: 32, count: 1000), blocks: [1005], maximum: 999)
        #expect(
            error
                == WireMessageStream.DecodingError(
                    reason: .messageTooLong(length: 1000, maximum: 999), message: 1, offset: 0))
        // The default limit, 16 MiB, against a corrupt length of 4 GiB − 1.
        let (_, e2) = decode([255, 255, 255, 255, 2], blocks: [5])
        #expect(e2?.reason == .messageTooLong(length: Int(UInt32.max), maximum: 16 << 20))
        #expect(WireMessageStream.defaultMaximumMessageLength == 16 * 1024 * 1024)
    }

    @Test func resetStartsANewStream() throws {
        var decoder = WireMessageStream.Decoder()
        var count = 0
        let partial: [UInt8] = [5, 0, 0]
        try partial.withUnsafeBytes { try decoder.decode($0) { _ in count += 1 } }
        #expect(decoder.pendingBytes == 3)
        decoder.reset()
        let whole: [UInt8] = [1, 0, 0, 0, 1, 65]
        try whole.withUnsafeBytes {
            try decoder.decode($0) { m in
                #expect(m.number == 1 && m.offset == 0 && m.opcode == .text && Array(m.payload) == [65])
                count += 1
            }
        }
        try decoder.finish()
        #expect(count == 1 && decoder.messagesDecoded == 1)
    }
}
