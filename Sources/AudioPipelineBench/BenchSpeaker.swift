import AudioPipelineCore

/// The speaker path and its stages, per chunk: a server audio message → `PlaybackPath` (decode,
/// PCM16 → Float32, jitter buffer push and the pulls the chunk covers, to the device rate).
struct BenchSpeaker {
    let s: BenchSettings
    var m: BenchMeasure
    let server: SampleRate
    let device: StreamFormat
    let serverChunk: Int
    /// A server audio message holding one chunk, and where its base64 is (dotted path).
    let message: [UInt8]
    let audioPath: String
    let pcm: [Int16]
    var chunkSeconds: Double { s.chunkMilliseconds / 1000 }
    var tick: Int { s.jitterConfiguration.tick }

    /// Nil when no server message can be built for the profile (binary audio, a custom template
    /// without `serverMessage`); the report then says the path was not measured.
    init?(_ s: BenchSettings, _ m: BenchMeasure) throws(AudioPipelineError) {
        self.s = s
        self.m = m
        server = try SampleRate(s.profile.serverRate)
        device = try StreamFormat(sampleRate: try SampleRate(s.deviceRate), channels: s.deviceChannels)
        serverChunk = server.frames(milliseconds: s.chunkMilliseconds)
        let signal = BenchSignal(rate: server.hz, channels: 1, chunkFrames: serverChunk, level: 0.2, seed: 3)
        var pcm = [Int16](repeating: 0, count: serverChunk)
        pcm.withUnsafeMutableBufferPointer { signal.pcm16(signal.next(), into: $0) }
        self.pcm = pcm
        let b64 = pcm.withUnsafeBytes { p in
            var out = [UInt8](repeating: 0, count: Base64.encodedLength(bytes: p.count))
            let n = out.withUnsafeMutableBytes { Base64.encode(p, into: $0) }
            return String(decoding: out[0..<n], as: UTF8.self)
        }
        if let custom = s.serverMessage, let path = s.serverAudioPath {
            (message, audioPath) = (custom(b64), path)
        } else if let built = BenchSpeaker.builtInMessage(s.profileName, base64: b64) {
            (message, audioPath) = (Array(built.message.utf8), built.path)
        } else {
            return nil
        }
    }

    /// A server audio message as the API sends it, for the built-in JSON profiles.
    static func builtInMessage(_ profile: String, base64 b64: String) -> (message: String, path: String)? {
        switch WireProfile.BuiltIn(rawValue: profile) {
        case .openaiRealtime:
            return (
                #"{"type":"response.output_audio.delta","event_id":"event_42","response_id":"resp_1","item_id":"#
                    + #""item_1","output_index":0,"content_index":0,"delta":""# + b64 + #""}"#, "delta"
            )
        case .geminiLive:
            return (
                #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":""#
                    + b64 + #""}}]}}}"#, "serverContent.modelTurn.parts.0.inlineData.data"
            )
        case .datagrid: return (#"{"type":"audio","payload":{"data":""# + b64 + #""}}"#, "payload.data")
        case .atoms: return (#"{"type":"output_audio.delta","audio":""# + b64 + #""}"#, "audio")
        case .deepgram, nil: return nil
        }
    }

    var description: String {
        "\(s.profileName) message (\(server.hz) Hz) → decode → PCM16 → Float32 → jitter buffer (\(tick)-sample "
            + "ticks) → \(s.resamplerName) to \(device.sampleRate.hz) Hz × \(device.channels)"
    }

    func total() throws(AudioPipelineError) -> BenchRow {
        let speaker = try PlaybackPath(
            profile: s.profile, device: device, jitter: s.jitterConfiguration, compatibility: s.compatibility,
            resampler: s.resampler)
        let out = BenchBuffer<Float>(speaker.maxOutputCount * device.channels, 0)
        let first = message.withUnsafeBytes { speaker.receive($0, utterance: 0) }
        if case .invalid(let why) = first {
            throw AudioPipelineError(.invalidConfiguration, "bench: the profile cannot read its message: \(why)")
        }
        speaker.reset()
        var owed = 0, played = 0
        let tick = self.tick, chunk = serverChunk
        return message.withUnsafeBytes { msg in
            m.run("total", description, chunkSeconds: chunkSeconds) {
                _ = speaker.receive(msg, utterance: 0, arrival: speaker.jitterBuffer.clock)
                owed += chunk
                while owed >= tick {
                    played &+= speaker.pull(into: out.pointer)
                    owed -= tick
                }
            }
        }
    }

    /// The scanning fast path where the profile has one for this message; else what `PlaybackPath`
    /// falls back to (the whole message parsed, interpreted, the audio decoded), named as such.
    func decode() -> BenchRow {
        let bytes = BenchBuffer<UInt8>(Base64.maxDecodedLength(characters: message.count) + 4, 0)
        let profile = s.profile
        var found = 0
        return message.withUnsafeBytes { msg in
            guard case .audio = profile.decodeServerAudio(msg, into: bytes.raw) else {
                return m.run(
                    "decode", "JSON.parse + interpret + base64 decode (no fast path for this message)",
                    chunkSeconds: chunkSeconds
                ) {
                    guard let value = try? JSON.parse(msg) else { return }
                    for case .audio(let text, _, _) in profile.interpretAll(value, direction: .server) {
                        found &+= (try? profile.decodeAudio(text))?.count ?? 0
                    }
                }
            }
            return m.run(
                "decode", "find the audio without parsing + base64 decode (WireProfile.decodeServerAudio)",
                chunkSeconds: chunkSeconds
            ) {
                if case .audio(let n) = profile.decodeServerAudio(msg, into: bytes.raw) { found &+= n }
            }
        }
    }

    func widen() -> BenchRow {
        var w = Int16ToFloat32Converter(compatibility: s.compatibility)
        let out = BenchBuffer<Float>(serverChunk, 0)
        return pcm.withUnsafeBufferPointer { p in
            m.run("widen", "PCM16 → Float32 (\(s.compatibility))", chunkSeconds: chunkSeconds) {
                _ = w.process(p, into: out.pointer)
            }
        }
    }

    func jitter() throws(AudioPipelineError) -> BenchRow {
        let buffer = try JitterBuffer(configuration: s.jitterConfiguration)
        let floats = BenchBuffer<Float>(serverChunk, 0)
        for i in 0..<serverChunk { floats.pointer[i] = Float(pcm[i]) / 32768 }
        let out = BenchBuffer<Float>(tick, 0)
        var sequence: Int64 = 0, owed = 0
        let tick = self.tick, chunk = serverChunk
        return m.run("jitter", "JitterBuffer push + the pulls one chunk covers", chunkSeconds: chunkSeconds) {
            buffer.push(
                UnsafeBufferPointer(floats.pointer), sequence: sequence, utterance: 0,
                media: sequence &* Int64(chunk))
            sequence &+= 1
            owed += chunk
            while owed >= tick {
                buffer.pull(into: out.pointer)
                owed -= tick
            }
        }
    }

    func convert() throws(AudioPipelineError) -> BenchRow {
        let converter = try FormatConverter(
            .init(
                input: try StreamFormat(sampleRate: server, channels: 1), outputRate: device.sampleRate,
                channels: device.channels == 1 ? .keep : .duplicate(device.channels), compatibility: s.compatibility,
                blockFrames: Swift.max(serverChunk, 256)),
            resampler: s.resampler)
        let signal = BenchSignal(rate: server.hz, channels: 1, chunkFrames: serverChunk)
        let out = BenchBuffer<Float>(converter.maxOutputCount(forInput: serverChunk) * device.channels, 0)
        return m.run(
            "convert", "\(s.resamplerName) \(server.hz) → \(device.sampleRate.hz) Hz × \(device.channels)",
            chunkSeconds: chunkSeconds
        ) { _ = converter.process(signal.next(), into: out.pointer) }
    }
}
