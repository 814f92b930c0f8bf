extension WireProfile {
    /// A profile from a user's template (see `CustomProfileTemplate` for its JSON shape), so a new
    /// API needs no code.
    ///
    /// - Throws: `invalidData`, naming the field, when a rate is outside 1…768 000 Hz,
    ///   `clientMessage` has no `{{audio}}` or is not JSON once the placeholders are filled in.
    public static func custom(_ template: CustomProfileTemplate) throws(AudioPipelineError) -> WireProfile {
        func fail(_ what: String) -> AudioPipelineError {
            AudioPipelineError(.invalidData, "profile template: \(what)")
        }
        let clientRate = template.clientRate
        let serverRate = template.serverRate ?? clientRate
        for (key, rate) in [("clientRate", clientRate), ("serverRate", serverRate)] {
            do {
                _ = try SampleRate(rate)
            } catch {
                throw fail("\"\(key)\": \(error.message)")
            }
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
        return WireProfile(
            name: template.name, clientRate: clientRate, serverRate: serverRate, template: message,
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

    // TODO(workflows): remove once callers move (load the template with JSONDecoder into a
    // CustomProfileTemplate and call `custom(_: CustomProfileTemplate)`).
    /// A profile from a template already parsed with `JSON.parse`: reads it into a
    /// `CustomProfileTemplate` with this function's historical messages, then `custom(_:)`.
    public static func custom(_ t: JSONValue) throws(AudioPipelineError) -> WireProfile {
        func fail(_ what: String) -> AudioPipelineError {
            AudioPipelineError(.invalidData, "profile template: \(what)")
        }
        func rate(_ key: String, _ value: Double) throws(AudioPipelineError) -> Int {
            guard value.isFinite, value == value.rounded(), let hz = Int(exactly: value) else {
                throw fail("\"\(key)\" \(value) is not a whole number of Hz")
            }
            return hz
        }
        func rule(_ v: JSONValue?) throws(AudioPipelineError) -> [String: String]? {
            guard let v else { return nil }
            guard let o = v["match"]?.object else { throw fail("a rule needs a \"match\" object") }
            var pairs: [String: String] = [:]
            for (k, val) in o {
                guard let s = val.string else { throw fail("match value for \"\(k)\" must be a string") }
                pairs[k] = s
            }
            return pairs
        }
        guard let clientNumber = t["clientRate"]?.number else { throw fail("\"clientRate\" (a number, Hz) is missing") }
        let clientRate = try rate("clientRate", clientNumber)
        let serverRate = try t["serverRate"]?.number.map { (v) throws(AudioPipelineError) in try rate("serverRate", v) }
        guard let message = t["clientMessage"]?.string else {
            throw fail("\"clientMessage\" (a string with {{audio}}) is missing")
        }
        let serverMatch = try rule(t["serverAudio"])
        let serverPath = t.value(at: "serverAudio.path")?.string
        // A client rule without a path never matched: it is dropped, as it always was.
        let clientMatch = try rule(t["clientAudio"])
        let clientPath = t.value(at: "clientAudio.path")?.string
        if serverMatch != nil && serverPath == nil { throw fail("\"serverAudio\" needs a \"path\"") }
        var events: [CustomProfileTemplate.EventRule] = []
        for e in t["events"]?.array ?? [] {
            guard let match = try rule(e), let name = e["event"]?.string else {
                throw fail("every event needs \"event\" and \"match\"")
            }
            events.append(.init(event: name, match: match, messagePath: e["messagePath"]?.string))
        }
        let utterancePath = t.value(at: "serverAudio.utterancePath")?.string
        return try custom(
            CustomProfileTemplate(
                name: t["name"]?.string ?? "custom", clientRate: clientRate, serverRate: serverRate,
                clientMessage: message,
                clientAudio: clientMatch.flatMap { m in clientPath.map { .init(match: m, path: $0) } },
                serverAudio: serverMatch.flatMap { m in
                    serverPath.map { .init(match: m, path: $0, utterancePath: utterancePath) }
                },
                events: events))
    }
}
