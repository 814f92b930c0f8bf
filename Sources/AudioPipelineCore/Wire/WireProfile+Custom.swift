extension WireProfile {
    /// A profile from a user's template (see `CustomProfileTemplate` for its JSON shape), so a new
    /// API needs no code.
    ///
    /// - Throws: `invalidData`, naming the field, when a rate is outside 4000…768 000 Hz,
    ///   `clientMessage` has no `{{audio}}` or is not JSON once the placeholders are filled in.
    public static func custom(_ template: CustomProfileTemplate) throws(AudioPipelineError) -> WireProfile {
        func fail(_ what: String) -> AudioPipelineError {
            AudioPipelineError(.invalidData, "profile template: \(what)")
        }
        let clientRate = template.clientRate
        let serverRate = template.serverRate ?? clientRate
        for (key, rate) in [("clientRate", clientRate), ("serverRate", serverRate)]
        where !(4000...SampleRate.maximumHz).contains(rate) {
            throw fail("\"\(key)\": \(rate) Hz is not an audio rate (4000…\(SampleRate.maximumHz) Hz)")
        }
        guard template.clientMessage.contains(audioPlaceholder) else {
            throw fail("\"clientMessage\" has no \(audioPlaceholder) placeholder")
        }
        let message = template.clientMessage.replacing(ratePlaceholder, with: String(clientRate))
        do {
            _ = try JSON.parse(message.replacing(audioPlaceholder, with: "AAAA"))
        } catch {
            throw fail("\"clientMessage\" is not valid JSON: \(error)")
        }
        if let interrupt = template.interruptMessage {
            do {
                _ = try JSON.parse(interrupt)
            } catch {
                throw fail("\"interruptMessage\" is not valid JSON: \(error)")
            }
        }
        if let truncate = template.truncateMessage {
            let filled = truncate.replacing(itemIdPlaceholder, with: "item").replacing(
                contentIndexPlaceholder, with: "0"
            ).replacing(audioEndPlaceholder, with: "0")
            do {
                _ = try JSON.parse(filled)
            } catch {
                throw fail("\"truncateMessage\" is not valid JSON once its placeholders are filled in: \(error)")
            }
        }
        return WireProfile(
            name: template.name, clientRate: clientRate, serverRate: serverRate, template: message,
            interrupt: template.interruptMessage, truncate: template.truncateMessage,
            interpreter: customInterpreter(template))
    }

    /// A message matcher: every (dotted path, string) pair must hold.
    private struct Rule: Sendable {
        let match: [(path: String, value: String)]

        init(_ match: [String: String]) {
            self.match = match.map { ($0.key, $0.value) }.sorted { $0.path < $1.path }
        }

        func matches(_ m: JSONValue) -> Bool { match.allSatisfy { m.value(at: $0.path)?.string == $0.value } }
    }

    /// Server audio first, then client audio, then the events in their order.
    private static func customInterpreter(
        _ t: CustomProfileTemplate
    ) -> @Sendable (JSONValue, WireDirection) -> WireEvent? {
        let server = t.serverAudio.map { (rule: Rule($0.match), path: $0.path, utterance: $0.utterancePath) }
        let client = t.clientAudio.map { (rule: Rule($0.match), path: $0.path) }
        let events = t.events.map { (rule: Rule($0.match), event: $0.event, messagePath: $0.messagePath) }
        return { m, dir in
            if dir == .server, let server, server.rule.matches(m), let data = m.value(at: server.path)?.string {
                return .audio(base64: data, utterance: server.utterance.flatMap { m.value(at: $0)?.string }, rate: nil)
            }
            if dir == .client, let client, client.rule.matches(m), let data = m.value(at: client.path)?.string {
                return .audio(base64: data, utterance: nil, rate: nil)
            }
            for e in events where e.rule.matches(m) {
                switch e.event {
                case "interrupted": return .interrupted
                case "turnComplete": return .turnComplete
                case "commit": return .commit
                case "error": return .error(e.messagePath.flatMap { m.value(at: $0)?.string } ?? "error")
                default: return .control(e.event)
                }
            }
            return nil
        }
    }
}
