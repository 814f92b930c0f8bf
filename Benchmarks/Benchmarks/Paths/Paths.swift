// The stages that complete the suite and both end-to-end client paths, per 20 ms chunk:
//   VAD per frame (16 kHz, 20 ms frames) without and with a far-end reference, and 10 ms frames with
//   a talking reference and its echo;
//   mic path (CapturePath): 48 kHz Float32 capture → 16 kHz (or 24 kHz) → PCM16 → 20 ms chunk → base64
//   → JSON message;
//   speaker path (PlaybackPath): server JSON message (24 kHz) → base64 decode → PCM16 → Float32 →
//   jitter buffer → 48 kHz device rate.
// Peers: the common iOS client code for the same path (a `map` per chunk with clamp ×32767,
// Foundation base64, JSONSerialization; ÷32767 and a new array on the way back) with
// libsamplerate's SINC_FASTEST resampling the same chunks (the cheapest sinc converter).
// Chunk benchmarks run 1000 chunks per iteration (scalingFactor .kilo): wall clock is per chunk;
// `× realtime` is the custom metric chunk duration ÷ time per chunk.

import AudioPipelineAdapters
import AudioPipelineCore
import BenchSupport
import Benchmark
import Foundation

let benchmarks: @Sendable () -> Void = {
    configureDefaults(maxSeconds: 1)
    let config = realtimeConfiguration()

    // --- VAD per frame -------------------------------------------------------------------------
    // The user: a voice of 20 harmonics of 150 Hz (falling 6 dB an octave, a 5 Hz vibrato of ±3 %)
    // whose level swings at 3 Hz, over a faint 4.3 kHz tone. (Until 2026-12-03 a lone 150 Hz sine:
    // a sound of one lasting partial, which the ring rule now holds as a ring, not a voice.)
    let speech = (0..<(16_000 * 4)).map { k -> Float in
        let t = Double(k) / 16_000
        let phase = 2 * .pi * 150 * (t - 0.03 * cos(2 * .pi * 5 * t) / (2 * .pi * 5))
        var voice = 0.0
        for h in 1...20 { voice += sin(Double(h) * phase) / Double(h) }
        return Float(0.08 * voice * (1 + sin(2 * .pi * 3 * t)) + 0.001 * sin(Double(k) * 1.7))
    }
    let far = (0..<(16_000 * 4)).map { k -> Float in Float(0.2 * sin(2 * .pi * 210 * Double(k) / 16_000)) }
    // The default 10 ms frames with a reference that talks as an agent does (syllables of changing
    // level) and its echo (80 ms, −10 dB) under the user's voice: the echo model finds the delay and
    // runs its tracked path (the correlation over 0–500 ms, the tail, five quantiles per band).
    let agent = (0..<(16_000 * 4)).map { k -> Float in
        let t = Double(k) / 16_000
        let syllable = 0.5 + 0.5 * sin(2 * .pi * 4.3 * t) * sin(2 * .pi * 0.9 * t)
        return Float(0.2 * syllable * sin(2 * .pi * 210 * t + 3 * sin(2 * .pi * 5 * t)))
    }
    let echoed = speech.indices.map { k in speech[k] + (k >= 1280 ? 0.3 * agent[k - 1280] : 0) }
    // The same with an agent that pauses as agents do: utterances of 1.2 s, each followed by 0.8 s of
    // digital silence (what a jitter buffer plays between responses, and a TTS file's gaps), and its
    // echo. When the reference stops, the steep bands' state decays towards zero; the kernels flush
    // subnormals (`cvk_steep_bands`), without which these frames cost tens of µs on Intel cores.
    // The state a session spends most of its time in: the agent talks, the user listens. The echo
    // alone (80 ms, −10 dB) over the faint tone: the detector hears no one, so the delay's
    // correlation over 0–500 ms runs every frame (in the rows above the user's voice is heard most
    // of the time, and the correlation pauses while he is: double talk is not echo).
    let echoAlone = agent.indices.map { k in
        0.001 * Float(sin(Double(k) * 1.7)) + (k >= 1280 ? 0.3 * agent[k - 1280] : 0)
    }
    let pausing = agent.indices.map { k -> Float in k % 32_000 < 19_200 ? agent[k] : 0 }
    let echoedPausing = speech.indices.map { k in speech[k] + (k >= 1280 ? 0.3 * pausing[k - 1280] : 0) }
    /// A VAD benchmark: `mic` (with `reference`, when there is one) fed in blocks of `block` samples
    /// into frames of `frameMilliseconds`; time per block.
    /// `restart`: the detector starts again at each pass over the signals (a session's first seconds).
    func vadFrames(
        _ name: String, frameMilliseconds: Double, block: Int, mic: [Float], reference: [Float]?, restart: Bool = false
    ) {
        Benchmark("VAD \(name) AudioPipeline", configuration: config) { benchmark in
            var c = VADConfiguration()
            c.frameMilliseconds = frameMilliseconds
            var vad = try EnergyVAD(sampleRate: 16_000, configuration: c)
            var decisions = 0
            var out = [VADDecider.Frame](
                repeating: VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false), count: 2)
            let withReference = reference != nil
            let played = reference ?? []
            mic.withUnsafeBufferPointer { m in
                played.withUnsafeBufferPointer { f in
                    out.withUnsafeMutableBufferPointer { o in
                        var offset = 0
                        measureRealtime(benchmark, chunkSeconds: Double(block) / 16_000) {
                            if offset + block > m.count {
                                offset = 0
                                if restart { vad.reset() }
                            }
                            let x = UnsafeBufferPointer(rebasing: m[offset..<(offset + block)])
                            let r =
                                withReference
                                ? vad.process(
                                    x, reference: UnsafeBufferPointer(rebasing: f[offset..<(offset + block)]), into: o)
                                : vad.process(x, into: o)
                            decisions += r.produced > 0 && o[0].speech ? 1 : 0
                            offset += block
                        }
                    }
                }
            }
            blackHole(decisions)
        }
    }
    vadFrames("10ms frame 16k with reference", frameMilliseconds: 10, block: 160, mic: echoed, reference: agent)
    vadFrames(
        "10ms frame 16k agent talking, user silent", frameMilliseconds: 10, block: 160, mic: echoAlone,
        reference: agent)
    vadFrames(
        "10ms frame 16k with a reference that pauses", frameMilliseconds: 10, block: 160, mic: echoedPausing,
        reference: pausing)
    // A session's first 4 s over and over with headphones (the user's voice, no echo): the echo model
    // never finds a delay, and for the reference's first 3 s it bounds the worst plausible echo by
    // what the microphone has shown (`VADEchoModel+Bound.swift`: a scan over the delay window).
    vadFrames(
        "10ms frame 16k session start with a reference and no echo", frameMilliseconds: 10, block: 160,
        mic: speech, reference: agent, restart: true)

    // Whole 20 ms frames without and with a reference; and 256-sample blocks (16 ms, as audio
    // callbacks deliver them) into 20 ms frames, through the analyzer's frame buffer (time per block).
    vadFrames("20ms frame 16k no reference", frameMilliseconds: 20, block: 320, mic: speech, reference: nil)
    vadFrames("20ms frame 16k with reference", frameMilliseconds: 20, block: 320, mic: speech, reference: far)
    vadFrames(
        "20ms frame 16k no reference 256-sample blocks", frameMilliseconds: 20, block: 256, mic: speech, reference: nil)

    // The band analysis alone (what the decider adds is the difference).
    Benchmark("VAD 20ms frame 16k band analysis only AudioPipeline", configuration: config) { benchmark in
        var analyzer = VADBandAnalyzer(sampleRate: 16_000, frameLength: 320)
        var sum = SIMD8<Double>()
        speech.withUnsafeBufferPointer { mic in
            var offset = 0
            measureRealtime(benchmark, chunkSeconds: 0.02) {
                if offset + 320 > mic.count { offset = 0 }
                analyzer.process(UnsafeBufferPointer(rebasing: mic[offset..<(offset + 320)])) { sum += $0.bands }
                offset += 320
            }
        }
        blackHole(sum)
    }

    // The decider alone, fed the band powers of the same signal (the per-frame bookkeeping: noise
    // The frameworks' decision logic that `vad detect --scores` and `vad tune --emulate` run over
    // silero's confidences (issue 33), per 32 ms window at 16 kHz: pipecat's volume over the audio,
    // pipecat's and LiveKit's deciders over a confidence that crosses their thresholds.
    let confidences = (0..<1000).map { k -> Float in Float(0.5 + 0.45 * sin(Double(k) * 0.21)) }
    Benchmark("VAD pipecat volume 32ms window 16k AudioPipeline", configuration: config) { benchmark in
        var volume = try PipecatVolume(sampleRate: 16_000, windowSamples: 512)
        var last = 0.0
        speech.withUnsafeBufferPointer { mic in
            var offset = 0
            measureRealtime(benchmark, chunkSeconds: 0.032) {
                if offset + 512 > mic.count { offset = 0 }
                volume.process(UnsafeBufferPointer(rebasing: mic[offset..<(offset + 512)])) { last = $0 }
                offset += 512
            }
        }
        blackHole(last)
    }
    Benchmark("VAD pipecat decider 32ms window AudioPipeline", configuration: config) { benchmark in
        var decider = try PipecatVADDecider(PipecatVADParameters())
        let volumes = [Double](repeating: 0.9, count: confidences.count)
        var edges = 0
        confidences.withUnsafeBufferPointer { c in
            volumes.withUnsafeBufferPointer { v in
                var k = 0
                measureRealtime(benchmark, chunkSeconds: 0.032) {
                    if k == c.count { k = 0 }
                    decider.process(
                        confidences: UnsafeBufferPointer(rebasing: c[k..<(k + 1)]),
                        volumes: UnsafeBufferPointer(rebasing: v[k..<(k + 1)])
                    ) { _ in edges += 1 }
                    k += 1
                }
            }
        }
        blackHole(edges)
    }
    Benchmark("VAD livekit decider 32ms window AudioPipeline", configuration: config) { benchmark in
        var decider = try LiveKitVADDecider(LiveKitVADParameters())
        var edges = 0
        confidences.withUnsafeBufferPointer { c in
            var k = 0
            measureRealtime(benchmark, chunkSeconds: 0.032) {
                if k == c.count { k = 0 }
                decider.process(UnsafeBufferPointer(rebasing: c[k..<(k + 1)])) { _ in edges += 1 }
                k += 1
            }
        }
        blackHole(edges)
    }

    // floors, talker gate, score, hysteresis).
    Benchmark("VAD 20ms frame 16k decider only AudioPipeline", configuration: config) { benchmark in
        var analyzer = VADBandAnalyzer(sampleRate: 16_000, frameLength: 320)
        var bands: [VADBandFrame] = []
        speech.withUnsafeBufferPointer { analyzer.process($0) { bands.append($0) } }
        var c = VADConfiguration()
        c.frameMilliseconds = 20
        var decider = try VADDecider(configuration: c)
        var decisions = 0
        var k = 0
        measureRealtime(benchmark, chunkSeconds: 0.02) {
            if k == bands.count { k = 0 }
            decisions += decider.process(mic: bands[k]).speech ? 1 : 0
            k += 1
        }
        blackHole(decisions)
    }

    // --- Mic path --------------------------------------------------------------------------------
    let capture = (0..<960).map { Float(0.3 * sin(Double($0) * 0.061)) }  // 20 ms at 48 kHz
    for (rate, profileName) in [(16_000, WireProfile.BuiltIn.geminiLive), (24_000, .openaiRealtime)] {
        let out = rate * 20 / 1000
        for (preset, kernel) in [
            (PolyphaseResampler.Preset.high, VectorKernel.best), (.fast, .best), (.high, .portable),
        ] {
            let kernelName = kernel == .portable ? " portable" : ""
            Benchmark(
                "Mic path 20ms 48k->\(rate / 1000)k \(profileName.rawValue) AudioPipeline native-\(preset)\(kernelName)",
                configuration: config
            ) { benchmark in
                // CapturePath: FormatConverter (resample, quantise) -> Chunker (20 ms) -> WireProfile.frame.
                let mic = try CapturePath(
                    profile: try WireProfile.builtIn(profileName),
                    configuration: .init(device: try StreamFormat(sampleRate: try SampleRate(48_000), channels: 1)),
                    resampler: FormatConverter.polyphase(preset, kernel: kernel))
                var message = [UInt8](repeating: 0, count: mic.maximumMessageLength)
                var sent = 0
                capture.withUnsafeBufferPointer { src in
                    message.withUnsafeMutableBytes { m in
                        measureRealtime(benchmark, chunkSeconds: 0.02) {
                            mic.process(src, into: m) { sent &+= $0.bytes.count }
                        }
                    }
                }
                blackHole(sent)
            }
        }
        Benchmark(
            "Mic path 20ms 48k->\(rate / 1000)k \(profileName.rawValue) peer iOS code + src-fastest",
            configuration: config
        ) { benchmark in
            let resampler = try LibSampleRateResampler(
                format: try ResamplingFormat(from: try SampleRate(48_000), to: try SampleRate(rate)),
                converter: .sincFastest)
            var floats = [Float](repeating: 0, count: out + 64)
            capture.withUnsafeBufferPointer { src in
                floats.withUnsafeMutableBufferPointer { f in
                    measureRealtime(benchmark, chunkSeconds: 0.02) {
                        let r = resampler.process(src, into: f)
                        let shorts: [Int16] = f[0..<r.produced].map { Int16(max(-32768, min(32767, $0 * 32767))) }
                        let b64 = shorts.withUnsafeBytes { Data($0) }.base64EncodedString()
                        blackHole(
                            try? JSONSerialization.data(withJSONObject: [
                                "type": "input_audio_buffer.append", "audio": b64,
                            ]))
                    }
                }
            }
        }
    }

    // --- Speaker path ----------------------------------------------------------------------------
    let serverPCM = (0..<480).map { Int16(truncatingIfNeeded: Int(8000 * sin(Double($0) * 0.05))) }
    let message =
        #"{"type":"response.output_audio.delta","event_id":"event_42","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"delta":""#
        + serverPCM.withUnsafeBytes { Data($0) }.base64EncodedString() + #""}"#
    for (preset, kernel) in [(PolyphaseResampler.Preset.high, VectorKernel.best), (.fast, .best), (.high, .portable)] {
        let kernelName = kernel == .portable ? " portable" : ""
        Benchmark(
            "Speaker path 20ms 24k->48k openai-realtime AudioPipeline native-\(preset)\(kernelName)",
            configuration: config
        ) { benchmark in
            // PlaybackPath: decodeServerAudio -> Float32 -> JitterBuffer push and pull -> FormatConverter to 48 kHz.
            let speaker = try PlaybackPath(
                profile: try WireProfile.builtIn(.openaiRealtime),
                device: try StreamFormat(sampleRate: try SampleRate(48_000), channels: 1),
                jitter: .init(sampleRate: 24_000, tickMilliseconds: 20, capacitySeconds: 120),
                resampler: FormatConverter.polyphase(preset, kernel: kernel))
            let text = Array(message.utf8)
            var device = [Float](repeating: 0, count: speaker.maxOutputCount)
            var played = 0
            text.withUnsafeBytes { m in
                device.withUnsafeMutableBufferPointer { d in
                    measureRealtime(benchmark, chunkSeconds: 0.02) {
                        guard case .audio = speaker.receive(m, utterance: 0, arrival: speaker.jitterBuffer.clock) else {
                            return
                        }
                        played &+= speaker.pull(into: d)
                    }
                }
            }
            blackHole(played)
        }
    }
    Benchmark("Speaker path 20ms 24k->48k openai-realtime peer iOS code + src-fastest", configuration: config) {
        benchmark in
        let resampler = try LibSampleRateResampler(
            format: try ResamplingFormat(from: try SampleRate(24_000), to: try SampleRate(48_000)),
            converter: .sincFastest)
        let d = Data(message.utf8)
        var device = [Float](repeating: 0, count: 1024)
        device.withUnsafeMutableBufferPointer { out in
            measureRealtime(benchmark, chunkSeconds: 0.02) {
                guard let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any],
                    let s = o["delta"] as? String, let pcm = Data(base64Encoded: s)
                else { return }
                let floats: [Float] = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map {
                    Float($0) / 32767
                }
                floats.withUnsafeBufferPointer { blackHole(resampler.process($0, into: out)) }
            }
        }
    }
}
