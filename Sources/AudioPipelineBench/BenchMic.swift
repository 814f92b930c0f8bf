import AudioPipelineCore

/// The mic path and its stages, per chunk: device audio → `CapturePath` (convert, chunk, frame)
/// → a message; and the VAD on the client-rate audio, with the far-end reference if asked.
struct BenchMic {
    let s: BenchSettings
    var m: BenchMeasure
    let device: StreamFormat
    let client: SampleRate
    let deviceChunk: Int
    let clientChunk: Int
    var chunkSeconds: Double { s.chunkMilliseconds / 1000 }

    init(_ s: BenchSettings, _ m: BenchMeasure) throws(AudioPipelineError) {
        self.s = s
        self.m = m
        let rate = try SampleRate(s.deviceRate)
        device = try StreamFormat(sampleRate: rate, channels: s.deviceChannels)
        client = try SampleRate(s.profile.clientRate)
        deviceChunk = rate.frames(milliseconds: s.chunkMilliseconds)
        clientChunk = client.frames(milliseconds: s.chunkMilliseconds)
        guard deviceChunk >= 1, clientChunk >= 1 else {
            throw AudioPipelineError(.invalidConfiguration, "--chunk-ms: a chunk is less than one sample")
        }
    }

    var description: String {
        "\(device.sampleRate.hz) Hz × \(device.channels) Float32 → \(s.resamplerName) to \(client.hz) Hz → PCM16 → "
            + "\(s.chunkMilliseconds) ms chunk → \(s.profile.isBinary ? "binary" : "base64 JSON") message"
    }

    /// `m.repeats` instances of a row's body, each set up afresh with its own memory
    /// (`BenchMeasure.run(placements:)`).
    func placements(_ make: () throws(AudioPipelineError) -> () -> Void) throws(AudioPipelineError) -> [() -> Void] {
        var bodies: [() -> Void] = []
        for _ in 0..<Swift.max(m.repeats, 1) { bodies.append(try make()) }
        return bodies
    }

    func total() throws(AudioPipelineError) -> BenchRow {
        let sent = BenchState(0)
        let bodies = try placements { () throws(AudioPipelineError) in
            let mic = try CapturePath(
                profile: s.profile,
                configuration: .init(
                    device: device, chunkMilliseconds: s.chunkMilliseconds, compatibility: s.compatibility,
                    dither: s.dither, blockFrames: Swift.max(deviceChunk, 256)),
                resampler: s.resampler)
            let signal = BenchSignal(rate: device.sampleRate.hz, channels: device.channels, chunkFrames: deviceChunk)
            let message = BenchBuffer<UInt8>(mic.maximumMessageLength, 0)
            return { mic.process(signal.next(), into: message.raw) { sent.value &+= $0.bytes.count } }
        }
        let row = m.run("total", description, chunkSeconds: chunkSeconds, placements: bodies)
        precondition(sent.value > 0, "bench: the mic path sent nothing")
        return row
    }

    func convert() throws(AudioPipelineError) -> BenchRow {
        let bodies = try placements { () throws(AudioPipelineError) in
            let converter = try FormatConverter(
                .init(
                    input: device, outputRate: client, channels: .downmix, compatibility: s.compatibility,
                    dither: s.dither, blockFrames: Swift.max(deviceChunk, 256)),
                resampler: s.resampler)
            let signal = BenchSignal(rate: device.sampleRate.hz, channels: device.channels, chunkFrames: deviceChunk)
            let out = BenchBuffer<Int16>(converter.maxOutputCount(forInput: deviceChunk), 0)
            return { _ = converter.process(signal.next(), into: out.pointer) }
        }
        return m.run(
            "convert", "downmix, resample, Float32 → PCM16 (FormatConverter)", chunkSeconds: chunkSeconds,
            placements: bodies)
    }

    func resample() throws(AudioPipelineError) -> BenchRow? {
        guard device.sampleRate != client else { return nil }
        let bodies = try placements { () throws(AudioPipelineError) in
            let r = BenchState(try s.resampler(try ResamplingFormat(from: device.sampleRate, to: client)))
            let signal = BenchSignal(rate: device.sampleRate.hz, channels: 1, chunkFrames: deviceChunk)
            let out = BenchBuffer<Float>(r.value.maxOutputCount(forInput: deviceChunk) + 64, 0)
            return { _ = r.value.process(signal.next(), into: out.pointer) }
        }
        return m.run(
            "resample", "\(s.resamplerName) \(device.sampleRate.hz) → \(client.hz) Hz, mono",
            chunkSeconds: chunkSeconds,
            placements: bodies)
    }

    func quantise() throws(AudioPipelineError) -> BenchRow {
        let bodies = try placements { () throws(AudioPipelineError) in
            let q = BenchState(try Float32ToInt16Converter(.init(compatibility: s.compatibility, dither: s.dither)))
            let signal = BenchSignal(rate: client.hz, channels: 1, chunkFrames: clientChunk)
            let out = BenchBuffer<Int16>(clientChunk, 0)
            return { _ = q.value.process(signal.next(), into: out.pointer) }
        }
        return m.run(
            "quantise", "Float32 → PCM16 (\(s.compatibility), dither \(s.dither == .none ? "none" : "tpdf"))",
            chunkSeconds: chunkSeconds, placements: bodies)
    }

    func frame() throws(AudioPipelineError) -> BenchRow {
        let profile = s.profile
        let sent = BenchState(0)
        let bodies = try placements { () throws(AudioPipelineError) in
            let chunker = BenchState(try Chunker<Int16>(chunkFrames: clientChunk, channels: 1, lastChunk: .emitShort))
            let pcm = BenchBuffer<Int16>(clientChunk, 0)
            let signal = BenchSignal(rate: client.hz, channels: 1, chunkFrames: clientChunk)
            signal.pcm16(signal.next(), into: pcm.pointer)
            let message = BenchBuffer<UInt8>(profile.messageLength(pcmBytes: clientChunk * 2), 0)
            return {
                chunker.value.push(UnsafeBufferPointer(pcm.pointer)) { c in
                    sent.value &+= profile.frame(UnsafeRawBufferPointer(c.samples), into: message.raw)
                }
            }
        }
        return m.run(
            "chunk+frame", "Chunker + \(profile.isBinary ? "PCM copy" : "base64 + JSON") (WireProfile.frame)",
            chunkSeconds: chunkSeconds, placements: bodies)
    }

    func vad() throws(AudioPipelineError) -> BenchRow {
        let withReference = s.withReference
        let bodies = try placements { () throws(AudioPipelineError) in
            let detector = BenchState(try EnergyVAD(sampleRate: client.hz, configuration: s.vad))
            let mic = BenchSignal(rate: client.hz, channels: 1, chunkFrames: clientChunk)
            let far = BenchSignal(rate: client.hz, channels: 1, chunkFrames: clientChunk, level: 0.05, seed: 2)
            let out = BenchBuffer(
                detector.value.maxOutputCount(forInput: clientChunk) + 2,
                VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false))
            return {
                if withReference {
                    _ = detector.value.process(mic.next(), reference: far.next(), into: out.pointer)
                } else {
                    _ = detector.value.process(mic.next(), into: out.pointer)
                }
            }
        }
        return m.run(
            "vad", "EnergyVAD at \(client.hz) Hz" + (withReference ? " with the far-end reference" : ""),
            chunkSeconds: chunkSeconds, placements: bodies)
    }
}
