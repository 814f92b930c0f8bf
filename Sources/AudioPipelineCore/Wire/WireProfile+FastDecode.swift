/// How the hot path finds a server audio message's audio without parsing the whole message.
struct FastServerAudio: Sendable {
    /// Conditions: the string at each path must be one of the values.
    let conditions: [([JSONScanner.Step], [[UInt8]])]
    let audioPath: [JSONScanner.Step]
    /// What must not be around the audio: a message with more than one audio part (a second
    /// Gemini part) or something besides audio (an interruption), which the full parse sorts out.
    /// Checked in the pass that finds the audio (a separate `find` per absent path skipped the
    /// whole payload again each time: three more passes over a Gemini message's audio).
    var rules: JSONScanner.Rules? = nil

    static func keys(_ path: String) -> [JSONScanner.Step] {
        path.split(separator: ".").map { part in Int(part).map { .index($0) } ?? .key(Array(part.utf8)) }
    }

    static func forBuiltIn(_ which: WireProfile.BuiltIn) -> FastServerAudio? {
        switch which {
        case .openaiRealtime:
            let types = [Array("response.output_audio.delta".utf8), Array("response.audio.delta".utf8)]
            return FastServerAudio(conditions: [(keys("type"), types)], audioPath: keys("delta"))
        case .atoms:
            return FastServerAudio(
                conditions: [(keys("type"), [Array("output_audio.delta".utf8)])], audioPath: keys("audio"))
        case .datagrid:
            return FastServerAudio(conditions: [(keys("type"), [Array("audio".utf8)])], audioPath: keys("payload.data"))
        case .geminiLive:
            return FastServerAudio(
                conditions: [], audioPath: keys("serverContent.modelTurn.parts.0.inlineData.data"),
                // serverContent's members (searched at level 1) include neither interrupted nor
                // turnComplete; the parts array (searched at level 3) ends with the audio's part.
                rules: JSONScanner.Rules(
                    forbiddenLevel: 1, forbiddenKeys: [Array("interrupted".utf8), Array("turnComplete".utf8)],
                    lastElementLevel: 3))
        case .deepgram:
            return nil
        }
    }
}

extension WireProfile {
    /// What `decodeServerAudio` found.
    public enum FastDecodeResult: Sendable, Hashable {
        /// Audio: this many PCM bytes were written.
        case audio(bytes: Int)
        /// Not an audio message, or one the fast path does not follow (escapes, unusual shape,
        /// invalid base64): use `JSON.parse` and `interpret` for it.
        case useFullParse
    }

    /// The hot path of a client's speaker side: finds a server audio message's base64 payload by
    /// scanning the text (no JSON tree, no allocation) and decodes it into `output` (at least
    /// `Base64.maxDecodedLength(characters: message.count)` bytes). Everything else — events,
    /// escaped strings, messages it cannot follow — answers `.useFullParse`, so a caller falls back
    /// to `JSON.parse` + `interpret`.
    ///
    /// Contract (tested on real and randomly mangled messages): on every valid JSON message it
    /// returns exactly the audio `JSON.parse` + `interpret` find, or `.useFullParse`. It does not
    /// validate the parts of a message it skips, so a message that is broken *after* a complete
    /// audio field still yields that audio here while the strict parser rejects it; the offline
    /// tools (`deframe`) use the strict parser.
    public func decodeServerAudio(
        _ message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> FastDecodeResult {
        guard let fast = fastServerAudio, let base = message.baseAddress, message.count > 0 else {
            return .useFullParse
        }
        let s = JSONScanner(
            b: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: message.count))
        for (path, values) in fast.conditions where !s.stringAt(path, isOneOf: values) { return .useFullParse }
        let found = fast.rules.map { s.find(fast.audioPath, $0) } ?? s.find(fast.audioPath)
        guard let (r, isString, escaped) = found, isString, !escaped else { return .useFullParse }
        let text = UnsafeRawBufferPointer(rebasing: message[r])
        guard output.count >= Base64.maxDecodedLength(characters: text.count),
            let n = try? Base64.decode(text, into: output)
        else { return .useFullParse }
        return .audio(bytes: n)
    }
}
