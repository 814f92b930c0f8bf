extension WireMessageStream {
    /// One decoded message. `payload` is valid only inside the closure it is handed to.
    public struct Message {
        /// Text or binary.
        public let opcode: WireOpcode
        /// The message's bytes.
        public let payload: UnsafeRawBufferPointer
        /// The message's number in the stream, counted from 1.
        public let number: Int
        /// Byte offset of the message's header in the stream.
        public let offset: Int
    }

    /// Reads a message stream incrementally: bytes in any block sizes (a file read in blocks, a
    /// pipe, a socket), each complete message handed to a closure in order. The same messages come
    /// out whatever the block sizes (a tested property, blocks of 1 byte included).
    ///
    /// A message that lies wholly inside one block is handed over straight from it (no copy);
    /// one split across blocks is gathered in an internal buffer, which grows only when such a
    /// message is longer than any before. Errors carry the message number and byte offset:
    /// an unknown opcode and a length above `maximumMessageLength` as soon as the header is in
    /// (`decode`), a stream that ends inside a message at `finish`.
    ///
    /// ```swift
    /// var decoder = WireMessageStream.Decoder()
    /// while let block = read() {
    ///     try decoder.decode(block) { message in handle(message.opcode, message.payload) }
    /// }
    /// try decoder.finish()
    /// ```
    public struct Decoder: Sendable {
        /// Longest payload accepted; a longer announced length is an error (not a huge buffer).
        public let maximumMessageLength: Int
        /// Messages handed over since init or `reset()`.
        public private(set) var messagesDecoded = 0
        /// Bytes taken since init or `reset()`: the stream offset of the next byte.
        public private(set) var bytesDecoded = 0

        private var header: UInt64 = 0  // header bytes gathered so far, byte k at bits 8k
        private var headerFilled = 0
        private var length = 0  // of the message being gathered, once its header is complete
        private var opcode = WireOpcode.text
        private var messageOffset = 0
        private var payload: [UInt8] = []

        /// - Parameter maximumMessageLength: at most `UInt32.max`; default 16 MiB.
        public init(maximumMessageLength: Int = WireMessageStream.defaultMaximumMessageLength) {
            precondition(maximumMessageLength >= 0, "wire message stream: negative maximum length")
            self.maximumMessageLength = maximumMessageLength
        }

        /// Bytes of an incomplete message held since the last complete one.
        public var pendingBytes: Int { headerFilled + payload.count }

        /// Takes the next `bytes` of the stream and calls `body` for every message they complete.
        ///
        /// - Throws: `DecodingError` for an unknown opcode or a length above the maximum. The
        ///   messages before it have been handed over; the decoder needs `reset()` to go on.
        public mutating func decode(
            _ bytes: UnsafeRawBufferPointer, _ body: (Message) -> Void
        ) throws(DecodingError) {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            let n = bytes.count
            var i = 0
            while i < n {
                if headerFilled < headerLength {
                    if headerFilled == 0 { messageOffset = bytesDecoded + i }
                    let take = Swift.min(headerLength - headerFilled, n - i)
                    for k in 0..<take {
                        header |= UInt64(base.load(fromByteOffset: i + k, as: UInt8.self)) << (8 * (headerFilled + k))
                    }
                    headerFilled += take
                    i += take
                    if headerFilled < headerLength { break }
                    try startMessage()
                    // The whole payload is in this block: hand it over from here.
                    if n - i >= length {
                        body(message(UnsafeRawBufferPointer(start: base + i, count: length)))
                        endMessage()
                        i += length
                        continue
                    }
                }
                let take = Swift.min(length - payload.count, n - i)
                payload.append(contentsOf: UnsafeRawBufferPointer(start: base + i, count: take))
                i += take
                if payload.count == length {
                    let (kind, number, offset) = (opcode, messagesDecoded + 1, messageOffset)
                    payload.withUnsafeBytes { body(Message(opcode: kind, payload: $0, number: number, offset: offset)) }
                    endMessage()
                }
            }
            bytesDecoded += n
        }

        /// Ends the stream.
        ///
        /// - Throws: `DecodingError` when the stream ends inside a message's header or payload.
        public mutating func finish() throws(DecodingError) {
            if headerFilled == 0 { return }
            let number = messagesDecoded + 1
            if headerFilled < headerLength {
                throw DecodingError(
                    reason: .truncatedHeader(available: headerFilled), message: number, offset: messageOffset)
            }
            throw DecodingError(
                reason: .truncatedPayload(announced: length, available: payload.count), message: number,
                offset: messageOffset)
        }

        /// Forgets any incomplete message and the counts, for a new stream.
        public mutating func reset() {
            header = 0
            headerFilled = 0
            length = 0
            payload.removeAll(keepingCapacity: true)
            messagesDecoded = 0
            bytesDecoded = 0
        }

        /// Checks a complete header and takes its length and opcode.
        private mutating func startMessage() throws(DecodingError) {
            let announced = Int(UInt32(truncatingIfNeeded: header))
            let op = UInt8(truncatingIfNeeded: header >> 32)
            let number = messagesDecoded + 1
            guard let kind = WireOpcode(rawValue: op) else {
                throw DecodingError(reason: .unknownOpcode(op), message: number, offset: messageOffset)
            }
            guard announced <= maximumMessageLength else {
                throw DecodingError(
                    reason: .messageTooLong(length: announced, maximum: maximumMessageLength), message: number,
                    offset: messageOffset)
            }
            length = announced
            opcode = kind
        }

        private func message(_ payload: UnsafeRawBufferPointer) -> Message {
            Message(opcode: opcode, payload: payload, number: messagesDecoded + 1, offset: messageOffset)
        }

        private mutating func endMessage() {
            messagesDecoded += 1
            header = 0
            headerFilled = 0
            payload.removeAll(keepingCapacity: true)
        }
    }
}
