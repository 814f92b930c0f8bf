import Foundation
import Testing

@testable import AudioPipelineCore

/// The hot path's scanner answers as the full parse does, or defers to it.
@Suite struct JSONScannerAgreement {
    func find(_ json: String, _ path: [JSONScanner.Step]) -> String? {
        let bytes = Array(json.utf8)
        return bytes.withUnsafeBufferPointer { b in
            JSONScanner(b: b).find(path).map { String(decoding: b[$0.range], as: UTF8.self) }
        }
    }

    let delta: [JSONScanner.Step] = [.key(Array("delta".utf8))]
    let nested: [JSONScanner.Step] = [.key(Array("a".utf8)), .index(0), .key(Array("b".utf8))]

    @Test func ofDuplicateKeysTheFirstCountsAsInTheFullParse() throws {
        for (json, path, expected) in [
            (#"{"type":"x","delta":"AAAA"}"#, delta, "AAAA"),
            (#"{"delta":"AAAA","delta":"BBBB"}"#, delta, "AAAA"),
            (#"{"delta":"AAAA","del\u0074a":"BBBB"}"#, delta, "AAAA"),
            (#"{"a":[{"b":"1","c":2}],"d":3}"#, nested, "1"),
            (#"{"a":[{"b":"1"}],"a":[{"b":"2"}]}"#, nested, "1"),
        ] {
            #expect(find(json, path) == expected, "\(json)")
            let parsed = try JSON.parse(json)
            let full = path.count == 1 ? parsed["delta"]?.string : parsed["a"]?[0]?["b"]?.string
            #expect(full == expected, "JSON.parse: \(json)")
        }
        // A key written with escapes before the one found may be the same key: the full parse decides.
        #expect(find(#"{"del\u0074a":"AAAA","delta":"BBBB"}"#, delta) == nil)
        #expect(try JSON.parse(#"{"del\u0074a":"AAAA","delta":"BBBB"}"#)["delta"]?.string == "AAAA")
        #expect(find(#"{"delta":"AAAA""#, delta) == nil)  // cut short
    }

    /// The fuzzer's find (Fuzz/Regressions): atoms' fast path took the first of two "audio" keys.
    @Test func theFuzzersDuplicateKeyMessageAgrees() throws {
        let text =
            #"{"type":"output_audio.delta","audio":"AAABASubstringAIAIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIdelta","#
            + #""audio":"AAABAAIAIIIIIIIIIIIIIIIIIAInt"}"#
        let message = Array(text.utf8)
        let parsed = try JSON.parse(text)
        var out = [UInt8](repeating: 0, count: 4096)
        for which in WireProfile.BuiltIn.allCases {
            let p = try WireProfile.builtIn(which)
            let fast = message.withUnsafeBytes { m in out.withUnsafeMutableBytes { p.decodeServerAudio(m, into: $0) } }
            guard case .audio(let n) = fast else { continue }
            let full = p.interpretAll(parsed, direction: .server).first
            guard case .audio(let base64, _, _)? = full else {
                Issue.record("\(p.name): fast path found audio the full parse does not")
                continue
            }
            let decoded: [UInt8] = try p.decodeAudio(base64)
            #expect(decoded == Array(out[0..<n]))
        }
    }

    /// Gemini: the audio's message must hold nothing else the full parse would report, before or
    /// after the audio, found in the same pass.
    @Test func geminiAudioWithAnythingElseGoesToTheFullParse() throws {
        let p = try WireProfile.builtIn(.geminiLive)
        func fast(_ text: String) -> WireProfile.FastDecodeResult {
            var out = [UInt8](repeating: 0, count: 64)
            return Array(text.utf8).withUnsafeBytes { m in
                out.withUnsafeMutableBytes { p.decodeServerAudio(m, into: $0) }
            }
        }
        let part = #"{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"AAA="}}"#
        #expect(fast(#"{"serverContent":{"modelTurn":{"parts":["# + part + "]}}}") == .audio(bytes: 2))
        #expect(fast(#"{"serverContent":{"modelTurn":{"parts":["# + part + "," + part + "]}}}") == .useFullParse)
        #expect(
            fast(#"{"serverContent":{"modelTurn":{"parts":["# + part + #"]},"turnComplete":true}}"#) == .useFullParse)
        #expect(fast(#"{"serverContent":{"turnComplete":true,"modelTurn":{"parts":["# + part + "]}}}") == .useFullParse)
        #expect(fast(#"{"serverContent":{"interrupted":true,"modelTurn":{"parts":["# + part + "]}}}") == .useFullParse)
        #expect(
            fast(#"{"serverContent":{"modelTurn":{"parts":["# + part + #"]},"interrupted":true}}"#) == .useFullParse)
        // Other members are fine, before and after.
        #expect(
            fast(
                #"{"serverContent":{"generationComplete":false,"modelTurn":{"role":"model","parts":["# + part
                    + #"]}},"usageMetadata":{"totalTokenCount":3}}"#) == .audio(bytes: 2))
    }
}
