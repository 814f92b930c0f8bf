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

    func total() throws(AudioPipelineError) -> BenchRow {
        let mic = try CapturePath(
            profile: s.profile,
            configuration: .init(
                device: device, chunkMilliseconds: s.chunkMilliseconds, compatibility: s.compatibility,
                dither: s.dither, blockFrames: Swift.max(deviceChunk, 256)),
            resampler: s.resampler)
        let signal = BenchSignal(rate: device.sampleRate.hz, channels: device.channels, chunkFrames: deviceChunk)
        let message = BenchBuffer<UInt8>(mic.maximumMessageLength, 0)
        var sent = 0
        let row = m.run("total", description, chunkSeconds: chunkSeconds) {
            mic.process(signal.next(), into: message.raw) { sent &+= $0.bytes.count }
        }
        precondition(sent > 0, "bench: the mic path sent nothing")
        return row
    }

    func convert() throws(AudioPipelineError) -> BenchRow {
        let converter = try FormatConverter(
            .init(
                input: device, outputRate: client, channels: .downmix, compatibility: s.compatibility,
                dither: s.dither, blockFrames: Swift.max(deviceChunk, 256)),
            resampler: s.resampler)
        let signal = BenchSignal(rate: device.sampleRate.hz, channels: device.channels, chunkFrames: deviceChunk)
        let out = BenchBuffer<Int16>(converter.maxOutputCount(forInput: deviceChunk), 0)
        return m.run("convert", "downmix, resample, Float32 → PCM16 (FormatConverter)", chunkSeconds: chunkSeconds) {
            _ = converter.process(signal.next(), into: out.pointer)
        }
    }

    func resample() throws(AudioPipelineError) -> BenchRow? {
        guard device.sampleRate != client else { return nil }
        var r = try s.resampler(try ResamplingFormat(from: device.sampleRate, to: client))
        let signal = BenchSignal(rate: device.sampleRate.hz, channels: 1, chunkFrames: deviceChunk)
        let out = BenchBuffer<Float>(r.maxOutputCount(forInput: deviceChunk) + 64, 0)
        return m.run(
            "resample", "\(s.resamplerName) \(device.sampleRate.hz) → \(client.hz) Hz, mono",
            chunkSeconds: chunkSeconds
        ) { _ = r.process(signal.next(), into: out.pointer) }
    }

    func quantise() throws(AudioPipelineError) -> BenchRow {
        var q = try Float32ToInt16Converter(.init(compatibility: s.compatibility, dither: s.dither))
        let signal = BenchSignal(rate: client.hz, channels: 1, chunkFrames: clientChunk)
        let out = BenchBuffer<Int16>(clientChunk, 0)
        return m.run(
            "quantise", "Float32 → PCM16 (\(s.compatibility), dither \(s.dither == .none ? "none" : "tpdf"))",
            chunkSeconds: chunkSeconds
        ) { _ = q.process(signal.next(), into: out.pointer) }
    }

    func frame() throws(AudioPipelineError) -> BenchRow {
        var chunker = try Chunker<Int16>(chunkFrames: clientChunk, channels: 1, lastChunk: .emitShort)
        let pcm = BenchBuffer<Int16>(clientChunk, 0)
        let signal = BenchSignal(rate: client.hz, channels: 1, chunkFrames: clientChunk)
        signal.pcm16(signal.next(), into: pcm.pointer)
        let message = BenchBuffer<UInt8>(s.profile.messageLength(pcmBytes: clientChunk * 2), 0)
        let profile = s.profile
        var sent = 0
        return m.run(
            "chunk+frame", "Chunker + \(profile.isBinary ? "PCM copy" : "base64 + JSON") (WireProfile.frame)",
            chunkSeconds: chunkSeconds
        ) {
            chunker.push(UnsafeBufferPointer(pcm.pointer)) { c in
                sent &+= profile.frame(UnsafeRawBufferPointer(c.samples), into: message.raw)
            }
        }
    }

    func vad() throws(AudioPipelineError) -> BenchRow {
        var detector = try EnergyVAD(sampleRate: client.hz, configuration: s.vad)
        let mic = BenchSignal(rate: client.hz, channels: 1, chunkFrames: clientChunk)
        let far = BenchSignal(rate: client.hz, channels: 1, chunkFrames: clientChunk, level: 0.05, seed: 2)
        let out = BenchBuffer(
            detector.maxOutputCount(forInput: clientChunk) + 2,
            VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false))
        let withReference = s.withReference
        return m.run(
            "vad", "EnergyVAD at \(client.hz) Hz" + (withReference ? " with the far-end reference" : ""),
            chunkSeconds: chunkSeconds
        ) {
            if withReference {
                _ = detector.process(mic.next(), reference: far.next(), into: out.pointer)
            } else {
                _ = detector.process(mic.next(), into: out.pointer)
            }
        }
    }
}
