/// The template a custom wire profile is built from (`WireProfile.custom(_:)`), so a new API needs
/// no code. It is `Decodable` from JSON of this shape (decode it with `JSONDecoder` where
/// Foundation is at hand; the core itself stays Foundation-free):
///
/// ```json
/// {
///   "name": "my-api",
///   "clientRate": 16000,
///   "serverRate": 24000,
///   "clientMessage": "{\"type\":\"audio\",\"data\":\"{{audio}}\"}",
///   "clientAudio": {"match": {"type": "audio"}, "path": "data"},
///   "interruptMessage": "{\"type\":\"interrupt\"}",
///   "serverAudio": {"match": {"type": "audio_out"}, "path": "payload.audio", "utterancePath": "payload.id"},
///   "events": [
///     {"event": "interrupted", "match": {"type": "interrupted"}},
///     {"event": "turnComplete", "match": {"type": "done"}},
///     {"event": "error", "match": {"type": "error"}, "messagePath": "message"}
///   ]
/// }
/// ```
///
/// - `clientMessage` is the exact text of one client audio message, with `{{audio}}` where the
///   base64 goes and optionally `{{rate}}` for the client rate.
/// - `interruptMessage` (optional) is what the client sends when the user barges in.
/// - `match` maps dotted paths to the string each must hold; `path` is the dotted path of the
///   base64 audio (`utterancePath`: of the utterance id, server audio only).
/// - Events: `interrupted`, `turnComplete`, `error`, `commit`, or any other name (reported as a
///   control message). The first event whose `match` holds wins.
/// - `name` defaults to `custom`, `serverRate` to `clientRate`, `events` to none; other keys are
///   ignored. Decoding checks only shapes and types (a `DecodingError`'s coding path names the
///   place, such as `events[2].match`); `WireProfile.custom(_:)` checks the values.
public struct CustomProfileTemplate: Decodable, Sendable, Hashable {
    /// Where the audio of one direction's messages is: the messages whose `match` paths hold the
    /// given strings carry base64 audio at `path`.
    public struct AudioRule: Decodable, Sendable, Hashable {
        /// Dotted paths and the strings they must hold for a message to be one of these.
        public var match: [String: String]
        /// Dotted path of the base64 audio in such a message.
        public var path: String
        /// Where the utterance (response, turn) id is, for server audio.
        public var utterancePath: String?

        /// A rule for messages matching `match`, with audio at `path`.
        public init(match: [String: String], path: String, utterancePath: String? = nil) {
            self.match = match
            self.path = path
            self.utterancePath = utterancePath
        }
    }

    /// A message that means `event`; for `error`, the text is at `messagePath`.
    public struct EventRule: Decodable, Sendable, Hashable {
        /// The event's name: `interrupted`, `turnComplete`, `error`, `commit`, or one of your own.
        public var event: String
        /// Dotted paths and the strings they must hold for a message to mean the event.
        public var match: [String: String]
        /// For `error`: the dotted path of the error's text.
        public var messagePath: String?

        /// A rule: messages matching `match` mean `event`.
        public init(event: String, match: [String: String], messagePath: String? = nil) {
            self.event = event
            self.match = match
            self.messagePath = messagePath
        }
    }

    /// The profile's name in reports (`custom` by default).
    public var name: String
    /// Rate of the client's audio, Hz (checked by `WireProfile.custom(_:)`: 4000…768 000).
    public var clientRate: Int
    /// Rate of the server's audio, Hz; nil: the client rate.
    public var serverRate: Int?
    /// The client's audio message, with `{{audio}}` where the base64 goes.
    public var clientMessage: String
    /// Where the audio is in the client's messages (for deframing them).
    public var clientAudio: AudioRule?
    /// Where the audio is in the server's messages.
    public var serverAudio: AudioRule?
    /// Messages that mean something besides audio, first match wins.
    public var events: [EventRule]
    /// The client's barge-in message, when the API has one.
    public var interruptMessage: String?
    /// The message telling the server how much of the response was heard, with `{{item_id}}`,
    /// `{{content_index}}` and `{{audio_end_ms}}` (see `WireProfile.truncateMessage`).
    public var truncateMessage: String?

    /// A template; `WireProfile.custom(_:)` checks its values.
    public init(
        name: String = "custom", clientRate: Int, serverRate: Int? = nil, clientMessage: String,
        clientAudio: AudioRule? = nil, serverAudio: AudioRule? = nil, events: [EventRule] = [],
        interruptMessage: String? = nil, truncateMessage: String? = nil
    ) {
        self.name = name
        self.clientRate = clientRate
        self.serverRate = serverRate
        self.clientMessage = clientMessage
        self.clientAudio = clientAudio
        self.serverAudio = serverAudio
        self.events = events
        self.interruptMessage = interruptMessage
        self.truncateMessage = truncateMessage
    }

    enum CodingKeys: String, CodingKey {
        case name, clientRate, serverRate, clientMessage, clientAudio, serverAudio, events, interruptMessage
        case truncateMessage
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? "custom"
        guard let client = try Self.wholeNumber(c, .clientRate) else {
            throw DecodingError.keyNotFound(
                CodingKeys.clientRate, .init(codingPath: c.codingPath, debugDescription: "clientRate is missing"))
        }
        clientRate = client
        serverRate = try Self.wholeNumber(c, .serverRate)
        clientMessage = try c.decode(String.self, forKey: .clientMessage)
        clientAudio = try c.decodeIfPresent(AudioRule.self, forKey: .clientAudio)
        serverAudio = try c.decodeIfPresent(AudioRule.self, forKey: .serverAudio)
        events = try c.decodeIfPresent([EventRule].self, forKey: .events) ?? []
        interruptMessage = try c.decodeIfPresent(String.self, forKey: .interruptMessage)
        truncateMessage = try c.decodeIfPresent(String.self, forKey: .truncateMessage)
    }

    /// A rate: read as a number first, so `16000.5` or `1e308` is an error naming its key (an Int
    /// decode says only "The given data was not valid JSON").
    static func wholeNumber(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int? {
        guard let v = try c.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard v == v.rounded(), abs(v) <= 1e9 else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c, debugDescription: "\(v) is not a whole number of Hz (at most 1e9)")
        }
        return Int(v)
    }
}
