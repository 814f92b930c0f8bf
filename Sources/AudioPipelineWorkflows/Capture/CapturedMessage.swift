import AudioPipelineCore

/// One captured WebSocket message.
public struct CapturedMessage: Sendable {
    /// A message's content.
    public enum Payload: Sendable {
        /// A text message.
        case text(String)
        /// A binary message.
        case binary([UInt8])
    }

    /// Where it is in the input: "PATH: line N" (JSON Lines), "PATH: entry E, message K" (HAR),
    /// "PATH: message N" (binary stream).
    public let location: String
    /// Arrival time in ms from the first timed message, when the capture has times.
    public let timeMs: Double?
    /// Who sent it, when the capture says (HAR: send = client, receive = server).
    public let direction: WireDirection?
    /// Its content.
    public let payload: Payload
    /// A text message parsed as JSON, once (`nil` for binary messages); a parse error is kept so the
    /// walk reports it at its place in the session.
    public let json: Result<JSONValue, JSON.ParseError>?

    /// A message as a reader found it; a text payload is parsed here unless `json` is given.
    public init(
        location: String, timeMs: Double?, direction: WireDirection?, payload: Payload,
        json: Result<JSONValue, JSON.ParseError>? = nil
    ) {
        self.location = location
        self.timeMs = timeMs
        self.direction = direction
        self.payload = payload
        if json == nil, case .text(let t) = payload {
            self.json = Result { () throws(JSON.ParseError) -> JSONValue in try JSON.parse(t) }
        } else {
            self.json = json
        }
    }
}
