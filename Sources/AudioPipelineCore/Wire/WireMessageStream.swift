/// The kind of one WebSocket message, with WebSocket's own opcode numbers (RFC 6455 §5.2).
public enum WireOpcode: UInt8, Sendable, Hashable, CaseIterable {
    /// A UTF-8 text message (JSON, for every profile's control messages).
    case text = 1
    /// A binary message (raw PCM16 audio, for binary profiles such as Deepgram).
    case binary = 2
}

/// A file of WebSocket messages: what `audiopipe frame` writes for binary profiles and
/// `audiopipe deframe` reads back, where JSON Lines cannot hold binary messages. Per message:
///
/// ```
/// [u32 little-endian payload length][u8 opcode][payload]
/// ```
///
/// The header is `headerLength` (5) bytes; the opcode is a `WireOpcode`. Write a message with
/// `writeHeader(opcode:payloadLength:into:)` followed by the payload (or `encode(_:opcode:into:)`);
/// read a stream with a `WireMessageStream.Decoder`, which takes the bytes in any block sizes.
public enum WireMessageStream {
    /// Bytes of a message header: the length and the opcode.
    public static let headerLength = 5

    /// The decoder's default limit on one message's payload: 16 MiB, far above any audio chunk
    /// (a 100 ms chunk of 48 kHz PCM16 is 9.6 kB), so a corrupt length cannot make it buffer gigabytes.
    public static let defaultMaximumMessageLength = 16 << 20

    /// Bytes a message of `payloadBytes` bytes takes in the stream.
    @inlinable
    public static func encodedLength(payloadBytes: Int) -> Int { headerLength + payloadBytes }

    /// Writes the header of a message of `payloadLength` bytes into `output` (at least
    /// `headerLength` bytes); returns the bytes written (`headerLength`). No allocation.
    public static func writeHeader(
        opcode: WireOpcode, payloadLength: Int, into output: UnsafeMutableRawBufferPointer
    ) -> Int {
        precondition(output.count >= headerLength, "wire message stream: header buffer too small")
        precondition(payloadLength >= 0 && payloadLength <= Int(UInt32.max), "wire message stream: payload too long")
        output.storeBytes(of: UInt32(payloadLength).littleEndian, toByteOffset: 0, as: UInt32.self)
        output[4] = opcode.rawValue
        return headerLength
    }

    /// Writes a whole message (header, then `payload`) into `output` (at least
    /// `encodedLength(payloadBytes:)` bytes); returns the bytes written. No allocation.
    public static func encode(
        _ payload: UnsafeRawBufferPointer, opcode: WireOpcode, into output: UnsafeMutableRawBufferPointer
    ) -> Int {
        precondition(
            output.count >= encodedLength(payloadBytes: payload.count), "wire message stream: buffer too small")
        let h = writeHeader(opcode: opcode, payloadLength: payload.count, into: output)
        if let src = payload.baseAddress, payload.count > 0 {
            (output.baseAddress! + h).copyMemory(from: src, byteCount: payload.count)
        }
        return h + payload.count
    }

    /// What is wrong with a message stream, and where: the message's number (from 1) and the
    /// byte offset of its header in the stream.
    public struct DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong with the stream.
        public enum Reason: Sendable, Hashable {
            /// The stream ends inside a header; `available` of its 5 bytes are there.
            case truncatedHeader(available: Int)
            /// The stream ends inside a payload of `announced` bytes, `available` of them there.
            case truncatedPayload(announced: Int, available: Int)
            /// The header's opcode is neither text (1) nor binary (2).
            case unknownOpcode(UInt8)
            /// The announced payload is longer than the decoder's `maximumMessageLength`.
            case messageTooLong(length: Int, maximum: Int)
        }

        /// What is wrong.
        public let reason: Reason
        /// The message's number in the stream, counted from 1.
        public let message: Int
        /// Byte offset of the message's header in the stream.
        public let offset: Int

        /// An error of `reason` at message `message` (from 1), whose header is at byte `offset`.
        public init(reason: Reason, message: Int, offset: Int) {
            self.reason = reason
            self.message = message
            self.offset = offset
        }

        public var description: String {
            let what: String
            switch reason {
            case .truncatedHeader: what = "truncated header"
            case .truncatedPayload(let announced, let available):
                what = "\(announced) bytes announced, \(available) left"
            case .unknownOpcode(let op): what = "unknown opcode \(op)"
            case .messageTooLong(let length, let maximum):
                what = "\(length) bytes announced, more than the \(maximum) a message may have"
            }
            return "message \(message) at byte \(offset): \(what)"
        }
    }
}
