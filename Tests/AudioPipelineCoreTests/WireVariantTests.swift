import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// What the vendors' SDKs put on the wire, beside the shapes of the client guides. Each message is
/// written in the shape of the cited source (SDK files and published schemas).
@Suite struct WireVariants {
    func events(_ which: WireProfile.BuiltIn, _ text: String, _ direction: WireDirection) throws -> [WireEvent] {
        try WireProfile.builtIn(which).interpretAll(try JSON.parse(text), direction: direction)
    }

    /// googleapis/python-genai `google/genai/live.py` `send_realtime_input`: a snake_case top-level
    /// key with camelCase inside; `_common.encode_unserializable_types` writes bytes URL-safe.
    @Test func geminiPythonSDKRealtimeInput() throws {
        let e = try events(
            .geminiLive, #"{"realtime_input":{"audio":{"data":"AAD__w==","mimeType":"audio/pcm;rate=16000"}}}"#, .client
        )
        #expect(e == [.audio(base64: "AAD__w==", utterance: nil, rate: 16000)])
        #expect(try WireProfile.builtIn(.geminiLive).decodeAudio("AAD__w==") == [0, 0, 0xFF, 0xFF])
    }

    /// python-genai's deprecated `send()` (pydantic `model_dump`): snake_case throughout.
    @Test func geminiDeprecatedSnakeCaseMediaChunks() throws {
        let text =
            #"{"realtime_input":{"media_chunks":[{"data":"AAD__w","mime_type":"audio/pcm"},{"data":"/9j/","mime_type":"image/jpeg"}]}}"#
        #expect(try events(.geminiLive, text, .client) == [.audio(base64: "AAD__w", utterance: nil, rate: nil)])
        // URL-safe and unpadded: the ProtoJSON `bytes` rule accepts every variant.
        #expect(try WireProfile.builtIn(.geminiLive).decodeAudio("AAD__w") == [0, 0, 0xFF, 0xFF])
    }

    /// google-gemini/multimodal-live-api-web-console `multimodal-live-client.ts` plays every
    /// `audio/pcm` part of `modelTurn.parts` in order; a `turnComplete` may come in the same message.
    @Test func geminiSeveralAudioPartsAndTheEndOfTheTurn() throws {
        let text =
            #"{"serverContent":{"modelTurn":{"parts":[{"text":"hi"},{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"AAA="}},{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"AQA="}}]},"turnComplete":true}}"#
        #expect(
            try events(.geminiLive, text, .server) == [
                .audio(base64: "AAA=", utterance: nil, rate: 24000),
                .audio(base64: "AQA=", utterance: nil, rate: 24000), .turnComplete,
            ])
        // The fast path leaves such a message to the full parse (it would take only the first part).
        let p = try WireProfile.builtIn(.geminiLive)
        var out = [UInt8](repeating: 0, count: 64)
        let r = Array(text.utf8).withUnsafeBytes { m in out.withUnsafeMutableBytes { p.decodeServerAudio(m, into: $0) }
        }
        #expect(r == .useFullParse)
    }

    /// A `model_dump()` of python-genai's `LiveServerMessage` (what app logs hold): snake_case.
    @Test func geminiSnakeCaseServerMessages() throws {
        let audio =
            #"{"server_content":{"model_turn":{"parts":[{"inline_data":{"mime_type":"audio/pcm;rate=24000","data":"AAA="}}]}}}"#
        #expect(try events(.geminiLive, audio, .server) == [.audio(base64: "AAA=", utterance: nil, rate: 24000)])
        #expect(try events(.geminiLive, #"{"server_content":{"interrupted":true}}"#, .server) == [.interrupted])
        #expect(try events(.geminiLive, #"{"server_content":{"turn_complete":true}}"#, .server) == [.turnComplete])
        #expect(try events(.geminiLive, #"{"setup_complete":{}}"#, .server) == [.control("setupComplete")])
        #expect(try events(.geminiLive, #"{"goAway":{"timeLeft":"30s"}}"#, .server) == [.control("goAway")])
    }

    /// openai/openai-python `types/beta/realtime/response_audio_delta_event.py` (beta) and
    /// openai/openai-node `src/resources/realtime/realtime.ts` (GA): both delta names, same fields.
    @Test func openAIBetaAndGAAudio() throws {
        for type in ["response.audio.delta", "response.output_audio.delta"] {
            let text =
                #"{"type":"\#(type)","event_id":"e","response_id":"resp_1","item_id":"i","output_index":0,"content_index":0,"delta":"AAA="}"#
            #expect(
                try events(.openaiRealtime, text, .server) == [.audio(base64: "AAA=", utterance: "resp_1", rate: nil)])
        }
        // GA `realtime_server_event.py`: on WebRTC/SIP the server clears its output buffer on barge-in.
        #expect(
            try events(.openaiRealtime, #"{"type":"output_audio_buffer.cleared","response_id":"r"}"#, .server) == [
                .interrupted
            ])
        #expect(
            try events(.openaiRealtime, #"{"type":"input_audio_buffer.speech_started","audio_start_ms":1200}"#, .server)
                == [.interrupted])
    }

    /// The framer keeps the documented camelCase form, standard padded base64.
    @Test func framingEmitsTheDocumentedForm() throws {
        let p = try WireProfile.builtIn(.geminiLive)
        var out = [UInt8](repeating: 0, count: p.messageLength(pcmBytes: 4))
        let n = [UInt8](arrayLiteral: 0, 0, 0xFF, 0xFF).withUnsafeBytes { pcm in
            out.withUnsafeMutableBytes { p.frame(pcm, into: $0) }
        }
        #expect(
            String(decoding: out[0..<n], as: UTF8.self)
                == #"{"realtimeInput":{"audio":{"data":"AAD//w==","mimeType":"audio/pcm;rate=16000"}}}"#)
    }

    /// A client-chosen rate must be one the API takes (deepgram `fern/docs/encoding.mdx`: linear16
    /// with `sample_rate`); a fixed-rate API refuses any other.
    @Test func profilesRefuseRatesTheAPIDoesNotTake() {
        #expect(throws: AudioPipelineError.self) { try WireProfile.builtIn(.deepgram, rate: 7) }
        #expect(throws: AudioPipelineError.self) { try WireProfile.builtIn(.atoms, rate: 23_999) }
        #expect(throws: AudioPipelineError.self) { try WireProfile.builtIn(.openaiRealtime, rate: 16_000) }
        #expect((try? WireProfile.builtIn(.deepgram, rate: 8000))?.clientRate == 8000)
    }
}
