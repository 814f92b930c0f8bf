extension WireProfile {
    /// The APIs the toolkit knows, by their CLI names.
    public enum BuiltIn: String, Sendable, CaseIterable {
        /// OpenAI Realtime: `input_audio_buffer.append`, 24 kHz PCM16 both ways.
        case openaiRealtime = "openai-realtime"
        /// Gemini Live: `realtimeInput.audio`, 16 kHz in, 24 kHz out.
        case geminiLive = "gemini-live"
        /// Datagrid: `{"type":"audio","payload":{"data":…}}` both ways, 16 kHz in, 24 kHz out.
        case datagrid
        /// Atoms: `input_audio_buffer.append` in, `output_audio.delta` out (the client chooses its rate).
        case atoms
        /// Deepgram: binary messages of raw PCM16 (the client chooses its rate).
        case deepgram
    }

    /// A built-in profile. `rate` overrides the client rate where the API lets the client choose
    /// (`atoms`, `deepgram`); for the others it must be nil or the API's rate.
    public static func builtIn(_ which: BuiltIn, rate: Int? = nil) throws(AudioPipelineError) -> WireProfile {
        func fixed(_ r: Int) throws(AudioPipelineError) -> Int {
            if let rate, rate != r {
                throw AudioPipelineError(
                    .invalidConfiguration, "\(which.rawValue) takes \(r) Hz audio from the client, not \(rate) Hz")
            }
            return r
        }
        var p = try builtInProfile(which, rate: rate, fixed: fixed)
        p.fastServerAudio = FastServerAudio.forBuiltIn(which)
        switch which {
        case .geminiLive:
            p.eventsInterpreter = geminiEvents
            p.acceptsBase64Variants = true
        case .atoms, .deepgram:
            // Linear PCM at the rates these APIs document for raw audio.
            let accepted = [8000, 16000, 22050, 24000, 32000, 44100, 48000]
            p.acceptedClientRates = accepted
            if let rate, !accepted.contains(rate) {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "\(which.rawValue) takes client audio at \(accepted.map(String.init).joined(separator: ", ")) Hz, "
                        + "not \(rate) Hz")
            }
        default: break
        }
        return p
    }

    private static func builtInProfile(
        _ which: BuiltIn, rate: Int?, fixed: (Int) throws(AudioPipelineError) -> Int
    ) throws(AudioPipelineError) -> WireProfile {
        switch which {
        case .openaiRealtime:
            return WireProfile(
                name: which.rawValue, clientRate: try fixed(24000), serverRate: 24000,
                template: #"{"type":"input_audio_buffer.append","audio":"{{audio}}"}"#,
                commit: #"{"type":"input_audio_buffer.commit"}"#, minimumCommitMilliseconds: 100,
                interrupt: #"{"type":"response.cancel"}"#,
                truncate:
                    #"{"type":"conversation.item.truncate","item_id":"{{item_id}}","content_index":{{content_index}},"#
                    + #""audio_end_ms":{{audio_end_ms}}}"#,
                interpreter: openAI)
        case .geminiLive:
            return WireProfile(
                name: which.rawValue, clientRate: try fixed(16000), serverRate: 24000,
                template: #"{"realtimeInput":{"audio":{"data":"{{audio}}","mimeType":"audio/pcm;rate=16000"}}}"#,
                interpreter: gemini)
        case .datagrid:
            return WireProfile(
                name: which.rawValue, clientRate: try fixed(16000), serverRate: 24000,
                template: #"{"type":"audio","payload":{"data":"{{audio}}"}}"#,
                start: #"{"type":"start","payload":{}}"#, stop: #"{"type":"stop"}"#,
                interrupt: #"{"type":"interrupt"}"#, interpreter: datagrid)
        case .atoms:
            let r = rate ?? 24000
            return WireProfile(
                name: which.rawValue, clientRate: r, serverRate: r,
                template: #"{"type":"input_audio_buffer.append","audio":"{{audio}}"}"#, interpreter: atoms)
        case .deepgram:
            let r = rate ?? 16000
            return WireProfile(
                name: which.rawValue, clientRate: r, serverRate: r, isBinary: true, template: "",
                stop: #"{"type":"CloseStream"}"#, interpreter: deepgram)
        }
    }
}
