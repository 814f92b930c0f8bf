import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

private func fullDecode(_ p: WireProfile, _ text: String) -> [UInt8]? {
    guard let v = try? JSON.parse(text), case .audio(let b64, _, _) = p.interpret(v, direction: .server) else {
        return nil
    }
    return try? unb64(b64)
}

private func fastDecode(_ p: WireProfile, _ text: String) -> [UInt8]? {
    let t = Array(text.utf8)
    var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: t.count) + 4)
    let r = t.withUnsafeBytes { m in out.withUnsafeMutableBytes { p.decodeServerAudio(m, into: $0) } }
    if case .audio(let n) = r { return Array(out[0..<n]) }
    return nil
}

@Suite struct FastServerDecode {
    /// Server messages as the vendors' guides show them (hand-written), each with 4 samples 0 1 2 3.
    static let messages: [(WireProfile.BuiltIn, String)] = [
        (
            .openaiRealtime,
            #"{"type":"response.output_audio.delta","event_id":"e1","response_id":"r1","item_id":"i1","output_index":0,"content_index":0,"delta":"AAABAAIAAwA="}"#
        ),
        (.openaiRealtime, #"{"delta":"AAABAAIAAwA=","type":"response.audio.delta","response_id":"r1"}"#),
        (
            .openaiRealtime,
            #" { "type" : "response.output_audio.delta" , "meta":{"a":[1,2,{"b":"}"}]}, "delta" : "AAABAAIAAwA=" } "#
        ),
        (
            .geminiLive,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"AAABAAIAAwA="}}]}}}"#
        ),
        (.datagrid, #"{"type":"audio","payload":{"data":"AAABAAIAAwA="}}"#),
        (.atoms, #"{"type":"output_audio.delta","audio":"AAABAAIAAwA="}"#),
    ]

    @Test func takesTheFastPathAndAgreesWithTheFullParser() throws {
        for (which, text) in Self.messages {
            let p = try WireProfile.builtIn(which)
            let fast = fastDecode(p, text)
            #expect(fast == [0, 0, 1, 0, 2, 0, 3, 0], "\(which): \(text)")
            #expect(fast == fullDecode(p, text))
        }
    }

    @Test func fallsBackForEventsAndEscapes() throws {
        let p = try WireProfile.builtIn(.openaiRealtime)
        for text in [
            #"{"type":"response.done"}"#, #"{"type":"input_audio_buffer.speech_started"}"#,
            // escaped slash: full parser handles it
            #"{"type":"response.output_audio.delta","delta":"AAAB\/AIAAwA="}"#,
            #"{"type":"response.output_audio\u002edelta","delta":"AAABAAIAAwA="}"#, "", "{", "[]", "null",
        ] {
            #expect(fastDecode(p, text) == nil, "\(text)")
        }
        #expect(fullDecode(p, #"{"type":"response.output_audio.delta","delta":"AAAB\/AIAAwA="}"#) != nil)
    }

    /// Random truncations and byte flips of real messages: never a crash, and never an answer the
    /// full parser disagrees with.
    @Test func neverDisagreesOnMangledMessages() throws {
        var rng = TestRNG(seed: 99)
        var fastHits = 0
        for _ in 0..<20_000 {
            let (which, text) = Self.messages.randomElement(using: &rng)!
            let p = try WireProfile.builtIn(which)
            var bytes = Array(text.utf8)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
            case 1: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...127, using: &rng)
            default: break
            }
            let t = String(decoding: bytes, as: UTF8.self)
            let fast = fastDecode(p, t)
            if fast != nil { fastHits += 1 }
            if (try? JSON.parse(t)) != nil {
                // Valid JSON: exactly the full parser's audio (or a fallback to it).
                if let fast { #expect(fast == fullDecode(p, t), "\(which): \(t)") }
                if fullDecode(p, t) != nil && !t.contains("\\") {
                    #expect(fast != nil, "valid audio message not taken: \(t)")
                }
            } else if let fast {
                // Broken elsewhere: only audio the message really holds (its base64 survived intact).
                #expect(fast == [0, 0, 1, 0, 2, 0, 3, 0], "\(which): \(t)")
            }
        }
        #expect(fastHits > 5_000)
    }

    @Test func clientChosenRatesReachTheProfile() throws {
        #expect(try WireProfile.builtIn(.atoms, rate: 16000).clientRate == 16000)
        #expect(try WireProfile.builtIn(.atoms).serverRate == 24000)
        #expect(try WireProfile.builtIn(.deepgram, rate: 48000).clientRate == 48000)
        #expect(throws: AudioPipelineError.self) { _ = try WireProfile.builtIn(.geminiLive, rate: 24000) }
    }

    /// A mimeType rate that is not a whole number reads as 0 (refused downstream with the line),
    /// never as "no rate" (which would take the default 24 kHz).
    @Test func aMimeTypeRateThatIsNotANumberIsNotTheDefault() {
        #expect(WireProfile.rate(fromMimeType: "audio/pcm;rate=16000") == 16000)
        #expect(WireProfile.rate(fromMimeType: "audio/pcm; RATE= 8000") == 8000)
        #expect(WireProfile.rate(fromMimeType: "audio/pcm") == nil)
        for bad in ["abc", "", "nan", "1e308", "9223372036854775808", "24000.5"] {
            #expect(WireProfile.rate(fromMimeType: "audio/pcm;rate=\(bad)") == 0, "\(bad)")
        }
    }
}

@Suite struct JSONParserTests {
    @Test func parsesWhatRFC8259Allows() throws {
        let v = try JSON.parse(#" {"a":[1,-2.5e3,true,false,null,"x\"y\\z\u00e9\ud83d\ude00"],"b":{}} "#)
        #expect(v["a"]?[0]?.number == 1)
        #expect(v["a"]?[1]?.number == -2500)
        #expect(v["a"]?[5]?.string == "x\"y\\zé😀")
        #expect(v["b"]?.object?.isEmpty == true)
    }

    static let bad: [(String, Int)] = [
        ("{", 1), (#"{"a":}"#, 5), ("[1,]", 3), ("01", 1), (#"{"a" 1}"#, 5), ("tru", 0), (#""\x""#, 2), ("[1] 2", 4),
        (#""\ud800""#, 7),
    ]

    @Test(arguments: bad)
    func reportsTheOffset(text: String, offset: Int) {
        do {
            _ = try JSON.parse(text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }

    @Test func limitsDepthInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSON.ParseError.self) { _ = try JSON.parse(deep) }
    }
}
