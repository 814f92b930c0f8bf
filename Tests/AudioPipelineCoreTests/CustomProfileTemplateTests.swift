import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// The template of the CLI tests' fixture (Tests/AudiopipeCLITests/Fixtures/custom-profile.json).
private let acme = #"""
    {
      "name": "acme",
      "clientRate": 16000,
      "serverRate": 22050,
      "clientMessage": "{\"kind\":\"mic\",\"rate\":{{rate}},\"pcm\":\"{{audio}}\"}",
      "clientAudio": {"match": {"kind": "mic"}, "path": "pcm"},
      "serverAudio": {"match": {"kind": "speech"}, "path": "body.pcm", "utterancePath": "body.turn"},
      "events": [
        {"event": "interrupted", "match": {"kind": "barge"}},
        {"event": "turnComplete", "match": {"kind": "done"}},
        {"event": "error", "match": {"kind": "fail"}, "messagePath": "why"}
      ]
    }
    """#

private func decodeTemplate(_ json: String) throws -> CustomProfileTemplate {
    try JSONDecoder().decode(CustomProfileTemplate.self, from: Data(json.utf8))
}

private func frame(_ p: WireProfile, _ pcm: [UInt8]) -> String {
    var out = [UInt8](repeating: 0, count: p.messageLength(pcmBytes: pcm.count))
    let n = pcm.withUnsafeBytes { b in out.withUnsafeMutableBytes { p.frame(b, into: $0) } }
    return String(decoding: out[0..<n], as: UTF8.self)
}

@Suite struct CustomProfileTemplateTests {
    @Test func decodesTheDocumentedShape() throws {
        let t = try decodeTemplate(acme)
        #expect(t.name == "acme" && t.clientRate == 16000 && t.serverRate == 22050)
        #expect(t.clientAudio == .init(match: ["kind": "mic"], path: "pcm"))
        #expect(t.serverAudio == .init(match: ["kind": "speech"], path: "body.pcm", utterancePath: "body.turn"))
        #expect(t.events.map(\.event) == ["interrupted", "turnComplete", "error"])
        #expect(t.events[2].messagePath == "why")
    }

    /// A template's truncate message: its placeholders filled in (the item id escaped into its
    /// string), refused when it is not JSON once filled; OpenAI Realtime's own.
    @Test func truncateMessagesNameTheItemAndWhatWasHeard() throws {
        let t = try decodeTemplate(
            #"{"clientRate": 16000, "clientMessage": "{\"a\":\"{{audio}}\"}", "truncateMessage": "{\"cut\":\"{{item_id}}\",\"part\":{{content_index}},\"ms\":{{audio_end_ms}}}"}"#
        )
        let p = try WireProfile.custom(t)
        #expect(
            p.truncation(itemId: #"it"em"#, contentIndex: 2, audioEndMs: 1234)
                == #"{"cut":"it\"em","part":2,"ms":1234}"#)
        let bad = try decodeTemplate(
            #"{"clientRate": 16000, "clientMessage": "{\"a\":\"{{audio}}\"}", "truncateMessage": "{\"ms\":{{audio_end_ms}}"}"#
        )
        #expect {
            try WireProfile.custom(bad)
        } throws: { ($0 as? AudioPipelineError)?.message.contains("truncateMessage") == true }
        let openAI = try WireProfile.builtIn(.openaiRealtime)
        #expect(
            openAI.truncation(itemId: "item_9", contentIndex: 0, audioEndMs: 812)
                == #"{"type":"conversation.item.truncate","item_id":"item_9","content_index":0,"audio_end_ms":812}"#)
        #expect(try WireProfile.builtIn(.datagrid).truncation(itemId: "x", contentIndex: 0, audioEndMs: 1) == nil)
    }

    @Test func missingOptionalKeysTakeTheirDefaults() throws {
        let t = try decodeTemplate(#"{"clientRate": 8000, "clientMessage": "{\"a\":\"{{audio}}\"}"}"#)
        #expect(t == CustomProfileTemplate(clientRate: 8000, clientMessage: #"{"a":"{{audio}}"}"#))
        let p = try WireProfile.custom(t)
        #expect(p.name == "custom" && p.clientRate == 8000 && p.serverRate == 8000)
    }

    /// A template builds the profile its fields describe: the message, the rates, the rules.
    @Test func buildsTheProfileItDescribes() throws {
        let fromTemplate = try WireProfile.custom(try decodeTemplate(acme))
        #expect(frame(fromTemplate, [0, 0, 1, 0]) == #"{"kind":"mic","rate":16000,"pcm":"AAABAA=="}"#)
        let messages: [(String, WireDirection, WireEvent)] = [
            (
                #"{"kind":"speech","body":{"pcm":"AAAB","turn":"t7"}}"#, .server,
                .audio(base64: "AAAB", utterance: "t7", rate: nil)
            ),
            (#"{"kind":"mic","pcm":"AAAB"}"#, .client, .audio(base64: "AAAB", utterance: nil, rate: nil)),
            (#"{"kind":"mic","pcm":"AAAB"}"#, .server, .unknown("(untyped)")),
            (#"{"kind":"barge"}"#, .server, .interrupted),
            (#"{"kind":"done"}"#, .server, .turnComplete),
            (#"{"kind":"fail","why":"quota"}"#, .server, .error("quota")),
            (#"{"kind":"fail"}"#, .server, .error("error")),
        ]
        for (text, direction, expected) in messages {
            let m = try JSON.parse(text)
            #expect(fromTemplate.interpret(m, direction: direction) == expected, "\(text)")
        }
    }

    /// A rate outside SampleRate's range is an error naming the field, never a trap: 1e300 and
    /// NaN cannot become an Int.
    @Test func ratesAreValidated() throws {
        // A number that is no whole rate names its key (an Int decode gave "not valid JSON" alone).
        for bad in ["1e300", "16000.5", "9223372036854775808"] {
            do {
                _ = try decodeTemplate(#"{"clientRate": "# + bad + #", "clientMessage": "{\"a\":\"{{audio}}\"}"}"#)
                Issue.record("\(bad) decoded")
            } catch let DecodingError.dataCorrupted(context) {
                #expect(context.codingPath.map(\.stringValue) == ["clientRate"], "\(bad)")
                #expect(context.debugDescription.contains("not a whole number of Hz"))
            } catch {
                Issue.record("\(bad): \(error)")
            }
        }
        let sets: [(Int, Int?)] = [(0, nil), (-16000, nil), (768_001, nil), (3999, nil), (16000, 0), (16000, Int.max)]
        for (client, server) in sets {
            let t = CustomProfileTemplate(clientRate: client, serverRate: server, clientMessage: #"{"a":"{{audio}}"}"#)
            do {
                _ = try WireProfile.custom(t)
                Issue.record("\(client)/\(String(describing: server)) accepted")
            } catch {
                #expect(error.code == .invalidData)
                #expect(error.message.contains(server == nil ? "\"clientRate\"" : "\"serverRate\""), "\(error)")
            }
        }
    }

    @Test func decodingErrorsNameThePlace() {
        let json = #"""
            {"clientRate": 16000, "clientMessage": "{\"a\":\"{{audio}}\"}",
             "events": [{"event": "x", "match": {"k": "v"}}, {"event": "y", "match": {"k": 3}}]}
            """#
        do {
            _ = try decodeTemplate(json)
            Issue.record("decoded")
        } catch let DecodingError.typeMismatch(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["events", "Index 1", "match", "k"])
        } catch {
            Issue.record("\(error)")
        }
        #expect(throws: DecodingError.self) { _ = try decodeTemplate(#"{"clientRate": 16000}"#) }
        #expect(throws: DecodingError.self) {
            _ = try decodeTemplate(#"{"clientRate": 16000, "clientMessage": "x", "serverAudio": {"match": {}}}"#)
        }
    }

    @Test func theClientMessageIsChecked() {
        for message in [#"{"a":"audio"}"#, #"{"a":{{audio}}"#, #"{"a":"{{audio}}""#] {
            #expect(throws: AudioPipelineError.self) {
                _ = try WireProfile.custom(CustomProfileTemplate(clientRate: 16000, clientMessage: message))
            }
        }
    }
}
