extension WireProfile {
    /// A profile from a user's template, so a new API needs no code. The template is JSON:
    ///
    /// ```json
    /// {
    ///   "name": "my-api",
    ///   "clientRate": 16000,
    ///   "serverRate": 24000,
    ///   "clientMessage": "{\"type\":\"audio\",\"data\":\"{{audio}}\"}",
    ///   "clientAudio": {"match": {"type": "audio"}, "path": "data"},
    ///   "serverAudio": {"match": {"type": "audio_out"}, "path": "payload.audio", "utterancePath": "payload.id"},
    ///   "events": [
    ///     {"event": "interrupted", "match": {"type": "interrupted"}},
    ///     {"event": "turnComplete", "match": {"type": "done"}},
    ///     {"event": "error", "match": {"type": "error"}, "messagePath": "message"}
    ///   ]
    /// }
    /// ```
    ///
    /// `clientMessage` is the exact text of one client audio message with `{{audio}}` where the
    /// base64 goes (and optionally `{{rate}}`); `match` lists dotted paths and the string values they
    /// must have; `path` is where the base64 audio is. Events: `interrupted`, `turnComplete`,
    /// `error`, `commit`, or any other name (reported as a control message).
    public static func custom(_ t: JSONValue) throws(AudioPipelineError) -> WireProfile {
        func need<T>(_ v: T?, _ what: String) throws(AudioPipelineError) -> T {
            guard let v else { throw AudioPipelineError(.invalidData, "profile template: \(what)") }
            return v
        }
        let name = t["name"]?.string ?? "custom"
        let clientRate = Int(try need(t["clientRate"]?.number, "\"clientRate\" (a number, Hz) is missing"))
        let serverRate = Int(t["serverRate"]?.number ?? Double(clientRate))
        _ = try SampleRate(clientRate)
        _ = try SampleRate(serverRate)
        var message = try need(t["clientMessage"]?.string, "\"clientMessage\" (a string with {{audio}}) is missing")
        guard message.contains(audioPlaceholder) else {
            throw AudioPipelineError(.invalidData, "profile template: \"clientMessage\" has no \(audioPlaceholder) placeholder")
        }
        message = message.replacing(ratePlaceholder, with: String(clientRate))
        do {
            _ = try JSON.parse(message.replacing(audioPlaceholder, with: "AAAA"))
        } catch {
            throw AudioPipelineError(.invalidData, "profile template: \"clientMessage\" is not valid JSON: \(error)")
        }

        struct Rule: Sendable {
            let match: [(String, String)]
            func matches(_ m: JSONValue) -> Bool { match.allSatisfy { m.value(at: $0.0)?.string == $0.1 } }
        }
        func rule(_ v: JSONValue?) throws(AudioPipelineError) -> Rule? {
            guard let v else { return nil }
            guard let o = v["match"]?.object else { throw AudioPipelineError(.invalidData, "profile template: a rule needs a \"match\" object") }
            var pairs: [(String, String)] = []
            for (k, val) in o {
                guard let s = val.string else { throw AudioPipelineError(.invalidData, "profile template: match value for \"\(k)\" must be a string") }
                pairs.append((k, s))
            }
            return Rule(match: pairs.sorted { $0.0 < $1.0 })
        }
        let serverRule = try rule(t["serverAudio"])
        let serverPath = t.value(at: "serverAudio.path")?.string
        let utterancePath = t.value(at: "serverAudio.utterancePath")?.string
        // Client audio: given, or taken from the message template's own shape.
        let clientRule = try rule(t["clientAudio"])
        let clientPath = t.value(at: "clientAudio.path")?.string
        if serverRule != nil && serverPath == nil { throw AudioPipelineError(.invalidData, "profile template: \"serverAudio\" needs a \"path\"") }
        var events: [(Rule, String, String?)] = []
        for e in t["events"]?.array ?? [] {
            guard let r = try rule(e), let name = e["event"]?.string else {
                throw AudioPipelineError(.invalidData, "profile template: every event needs \"event\" and \"match\"")
            }
            events.append((r, name, e["messagePath"]?.string))
        }
        let eventsCopy = events
        return WireProfile(
            name: name, clientRate: clientRate, serverRate: serverRate, template: message,
            interpreter: { m, dir in
                if dir == .server, let r = serverRule, let p = serverPath, r.matches(m), let data = m.value(at: p)?.string {
                    return .audio(base64: data, utterance: utterancePath.flatMap { m.value(at: $0)?.string }, rate: nil)
                }
                if dir == .client, let r = clientRule, let p = clientPath, r.matches(m), let data = m.value(at: p)?.string {
                    return .audio(base64: data, utterance: nil, rate: nil)
                }
                for (r, event, messagePath) in eventsCopy where r.matches(m) {
                    switch event {
                    case "interrupted": return .interrupted
                    case "turnComplete": return .turnComplete
                    case "commit": return .commit
                    case "error": return .error(messagePath.flatMap { m.value(at: $0)?.string } ?? "error")
                    default: return .control(event)
                    }
                }
                return nil
            })
    }
}
