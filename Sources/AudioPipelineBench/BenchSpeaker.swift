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

    /// `m.repeats` instances of a row's body, each set up afresh with its own memory
    /// (`BenchMeasure.run(placements:)`).
    func placements(_ make: () throws(AudioPipelineError) -> () -> Void) throws(AudioPipelineError) -> [() -> Void] {
        var bodies: [() -> Void] = []
        for _ in 0..<Swift.max(m.repeats, 1) { bodies.append(try make()) }
        return bodies
    }

    func total() throws(AudioPipelineError) -> BenchRow {
        let tick = self.tick, chunk = serverChunk
        let played = BenchState(0)
        let bodies = try placements { () throws(AudioPipelineError) in
            let speaker = try PlaybackPath(
                profile: s.profile, device: device, jitter: s.jitterConfiguration, compatibility: s.compatibility,
                resampler: s.resampler)
            let out = BenchBuffer<Float>(speaker.maxOutputCount * device.channels, 0)
            let msg = BenchBuffer(message)
            let first = msg.withUnsafeBytes { speaker.receive($0, utterance: 0) }
            if case .invalid(let why) = first {
                throw AudioPipelineError(.invalidConfiguration, "bench: the profile cannot read its message: \(why)")
            }
            speaker.reset()
            let owed = BenchState(0)
            return {
                _ = msg.withUnsafeBytes { speaker.receive($0, utterance: 0, arrival: speaker.jitterBuffer.clock) }
                owed.value += chunk
                while owed.value >= tick {
                    played.value &+= speaker.pull(into: out.pointer)
                    owed.value -= tick
                }
            }
        }
        return m.run("total", description, chunkSeconds: chunkSeconds, placements: bodies)
    }

    /// The scanning fast path where the profile has one for this message; else what `PlaybackPath`
    /// falls back to (the whole message parsed, interpreted, the audio decoded), named as such.
    func decode() -> BenchRow {
        let profile = s.profile
        let found = BenchState(0)
        let fast = message.withUnsafeBytes { msg in
            let bytes = BenchBuffer<UInt8>(Base64.maxDecodedLength(characters: msg.count) + 4, 0)
            if case .audio = profile.decodeServerAudio(msg, into: bytes.raw) { return true }
            return false
        }
        let bodies = (0..<Swift.max(m.repeats, 1)).map { _ -> () -> Void in
            let msg = BenchBuffer(message)
            let bytes = BenchBuffer<UInt8>(Base64.maxDecodedLength(characters: message.count) + 4, 0)
            if fast {
                return {
                    msg.withUnsafeBytes { raw in
                        if case .audio(let n) = profile.decodeServerAudio(raw, into: bytes.raw) { found.value &+= n }
                    }
                }
            }
            return {
                msg.withUnsafeBytes { raw in
                    guard let value = try? JSON.parse(raw) else { return }
                    for case .audio(let text, _, _) in profile.interpretAll(value, direction: .server) {
                        found.value &+= (try? profile.decodeAudio(text))?.count ?? 0
                    }
                }
            }
        }
        return m.run(
            "decode",
            fast
                ? "find the audio without parsing + base64 decode (WireProfile.decodeServerAudio)"
                : "JSON.parse + interpret + base64 decode (no fast path for this message)",
            chunkSeconds: chunkSeconds, placements: bodies)
    }

    func widen() -> BenchRow {
        let compatibility = s.compatibility
        let bodies = (0..<Swift.max(m.repeats, 1)).map { _ -> () -> Void in
            let w = BenchState(Int16ToFloat32Converter(compatibility: compatibility))
            let input = BenchBuffer(pcm)
            let out = BenchBuffer<Float>(serverChunk, 0)
            return { _ = w.value.process(UnsafeBufferPointer(input.pointer), into: out.pointer) }
        }
        return m.run(
            "widen", "PCM16 → Float32 (\(s.compatibility))", chunkSeconds: chunkSeconds, placements: bodies)
    }

    func jitter() throws(AudioPipelineError) -> BenchRow {
        let tick = self.tick, chunk = serverChunk
        let bodies = try placements { () throws(AudioPipelineError) in
            let buffer = try JitterBuffer(configuration: s.jitterConfiguration)
            let floats = BenchBuffer<Float>(chunk, 0)
            for i in 0..<chunk { floats.pointer[i] = Float(pcm[i]) / 32768 }
            let out = BenchBuffer<Float>(tick, 0)
            let sequence = BenchState(Int64(0))
            let owed = BenchState(0)
            return {
                buffer.push(
                    UnsafeBufferPointer(floats.pointer), sequence: sequence.value, utterance: 0,
                    media: sequence.value &* Int64(chunk))
                sequence.value &+= 1
                owed.value += chunk
                while owed.value >= tick {
                    buffer.pull(into: out.pointer)
                    owed.value -= tick
                }
            }
        }
        return m.run(
            "jitter", "JitterBuffer push + the pulls one chunk covers", chunkSeconds: chunkSeconds, placements: bodies)
    }

    func convert() throws(AudioPipelineError) -> BenchRow {
        let bodies = try placements { () throws(AudioPipelineError) in
            let converter = try FormatConverter(
                .init(
                    input: try StreamFormat(sampleRate: server, channels: 1), outputRate: device.sampleRate,
                    channels: device.channels == 1 ? .keep : .duplicate(device.channels),
                    compatibility: s.compatibility, blockFrames: Swift.max(serverChunk, 256)),
                resampler: s.resampler)
            let signal = BenchSignal(rate: server.hz, channels: 1, chunkFrames: serverChunk)
            let out = BenchBuffer<Float>(converter.maxOutputCount(forInput: serverChunk) * device.channels, 0)
            return { _ = converter.process(signal.next(), into: out.pointer) }
        }
        return m.run(
            "convert", "\(s.resamplerName) \(server.hz) → \(device.sampleRate.hz) Hz × \(device.channels)",
            chunkSeconds: chunkSeconds, placements: bodies)
    }
}
