// Base64 and message framing beside Foundation in the same run:
//   base64 encode/decode of 640 B (20 ms at 16 kHz), 3200 B (100 ms) and 1 MiB, against
//   Data.base64EncodedString() / Data(base64Encoded:);
//   framing one 20 ms chunk (640 raw bytes → base64 → JSON text) against JSONEncoder and
//   JSONSerialization (what the iOS client code uses); decoding a server audio message.
// Chunk-sized benchmarks run 1000 per iteration (scalingFactor .kilo): wall clock is per message.

import AudioPipelineCore
import BenchSupport
import Benchmark
import Foundation

struct AppendMessage: Encodable {
    let type = "input_audio_buffer.append"
    let audio: String
}

let benchmarks: @Sendable () -> Void = {
    configureDefaults(maxSeconds: 1)

    for (label, size, scaling) in [
        ("640B", 640, BenchmarkScalingFactor.kilo), ("3200B", 3200, .kilo), ("1MiB", 1 << 20, .one),
    ] {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        let data = Data(bytes)
        let text = Array(data.base64EncodedString().utf8)
        let config = Benchmark.Configuration(scalingFactor: scaling)

        // `vector`: what `Base64.encode` does by default (SSSE3 kernels where the CPU has them);
        // `portable`: the Swift-only code, for CPUs without them.
        for (kernelName, kernel) in [("vector", VectorKernel.best), ("portable", .portable)] {
            Benchmark("Base64 encode \(label) AudioPipeline \(kernelName)", configuration: config) { benchmark in
                var out = [UInt8](repeating: 0, count: Base64.encodedLength(bytes: size))
                bytes.withUnsafeBytes { src in
                    out.withUnsafeMutableBytes { dst in
                        benchmark.startMeasurement()
                        for _ in benchmark.scaledIterations { blackHole(Base64.encode(src, into: dst, kernel: kernel)) }
                        benchmark.stopMeasurement()
                    }
                }
            }
            Benchmark("Base64 decode \(label) AudioPipeline \(kernelName)", configuration: config) { benchmark in
                var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: text.count))
                text.withUnsafeBytes { src in
                    out.withUnsafeMutableBytes { dst in
                        benchmark.startMeasurement()
                        for _ in benchmark.scaledIterations {
                            blackHole(try? Base64.decode(src, into: dst, kernel: kernel))
                        }
                        benchmark.stopMeasurement()
                    }
                }
            }
        }
        Benchmark("Base64 encode \(label) peer Foundation", configuration: config) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(data.base64EncodedString()) }
        }
        let string = String(decoding: text, as: UTF8.self)
        Benchmark("Base64 decode \(label) peer Foundation", configuration: config) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(Data(base64Encoded: string)) }
        }
    }

    // One 20 ms chunk at 16 kHz: 320 samples = 640 bytes.
    let pcm = (0..<320).map { Int16(truncatingIfNeeded: $0 &* 97) }
    let config = Benchmark.Configuration(scalingFactor: .kilo)
    for which in WireProfile.BuiltIn.allCases where which != .deepgram {
        Benchmark("Frame 20ms \(which.rawValue) AudioPipeline", configuration: config) { benchmark in
            let profile = try WireProfile.builtIn(which)
            var out = [UInt8](repeating: 0, count: profile.messageLength(pcmBytes: 640))
            pcm.withUnsafeBytes { src in
                out.withUnsafeMutableBytes { dst in
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations { blackHole(profile.frame(src, into: dst)) }
                    benchmark.stopMeasurement()
                }
            }
        }
    }
    Benchmark("Frame 20ms openai-realtime peer JSONEncoder", configuration: config) { benchmark in
        let encoder = JSONEncoder()
        for _ in benchmark.scaledIterations {
            let b64 = pcm.withUnsafeBytes { Data($0) }.base64EncodedString()
            blackHole(try encoder.encode(AppendMessage(audio: b64)))
        }
    }
    Benchmark("Frame 20ms openai-realtime peer JSONSerialization", configuration: config) { benchmark in
        for _ in benchmark.scaledIterations {
            let b64 = pcm.withUnsafeBytes { Data($0) }.base64EncodedString()
            blackHole(try JSONSerialization.data(withJSONObject: ["type": "input_audio_buffer.append", "audio": b64]))
        }
    }

    // A server audio message (20 ms at 24 kHz) → PCM: parse, interpret, base64-decode.
    let serverPCM = (0..<480).map { Int16(truncatingIfNeeded: $0 &* 53) }
    let message =
        #"{"type":"response.output_audio.delta","event_id":"event_42","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"delta":""#
        + serverPCM.withUnsafeBytes { Data($0) }.base64EncodedString() + #""}"#
    Benchmark("Decode server message 20ms AudioPipeline scanner (\(message.utf8.count) B)", configuration: config) {
        benchmark in
        let profile = try WireProfile.builtIn(.openaiRealtime)
        let text = Array(message.utf8)
        var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: text.count))
        text.withUnsafeBytes { m in
            out.withUnsafeMutableBytes { o in
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { blackHole(profile.decodeServerAudio(m, into: o)) }
                benchmark.stopMeasurement()
            }
        }
    }
    // The other profiles' server audio messages (20 ms at 24 kHz), through the same fast path.
    let b64 = serverPCM.withUnsafeBytes { Data($0) }.base64EncodedString()
    let perProfile: [(WireProfile.BuiltIn, String)] = [
        (
            .geminiLive,
            #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":""# + b64
                + #""}}]}}}"#
        ),
        (.datagrid, #"{"type":"audio","payload":{"data":""# + b64 + #""}}"#),
        (.atoms, #"{"type":"output_audio.delta","audio":""# + b64 + #""}"#),
    ]
    for (which, text) in perProfile {
        Benchmark("Decode server message 20ms \(which.rawValue) AudioPipeline scanner", configuration: config) {
            benchmark in
            let profile = try WireProfile.builtIn(which)
            let bytes = Array(text.utf8)
            var out = [UInt8](repeating: 0, count: Base64.maxDecodedLength(characters: bytes.count))
            bytes.withUnsafeBytes { m in
                out.withUnsafeMutableBytes { o in
                    guard case .audio = profile.decodeServerAudio(m, into: o) else {
                        benchmark.error("\(which.rawValue): the fast path did not find the audio")
                        return
                    }
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations { blackHole(profile.decodeServerAudio(m, into: o)) }
                    benchmark.stopMeasurement()
                }
            }
        }
        Benchmark("Decode server message 20ms \(which.rawValue) peer JSONSerialization", configuration: config) {
            benchmark in
            let d = Data(text.utf8)
            for _ in benchmark.scaledIterations {
                let o = try JSONSerialization.jsonObject(with: d) as? [String: Any]
                let data: String?
                switch which {
                case .geminiLive:
                    let parts =
                        ((o?["serverContent"] as? [String: Any])?["modelTurn"] as? [String: Any])?["parts"]
                        as? [[String: Any]]
                    data = (parts?.first?["inlineData"] as? [String: Any])?["data"] as? String
                case .datagrid: data = (o?["payload"] as? [String: Any])?["data"] as? String
                default: data = o?["audio"] as? String
                }
                blackHole(data.flatMap { Data(base64Encoded: $0) })
            }
        }
    }
    Benchmark("Decode server message 20ms AudioPipeline full parser (allocates)", configuration: config) { benchmark in
        let profile = try WireProfile.builtIn(.openaiRealtime)
        var out = [UInt8](repeating: 0, count: 2048)
        for _ in benchmark.scaledIterations {
            guard let v = try? JSON.parse(message),
                case .audio(let b64, _, _) = profile.interpret(v, direction: .server)
            else { continue }
            var t = b64
            let n = t.withUTF8 { s in
                out.withUnsafeMutableBytes { try? Base64.decode(UnsafeRawBufferPointer(s), into: $0) }
            }
            blackHole(n)
        }
    }
    Benchmark("Decode server message 20ms peer JSONSerialization", configuration: config) { benchmark in
        let d = Data(message.utf8)
        for _ in benchmark.scaledIterations {
            let o = try JSONSerialization.jsonObject(with: d) as? [String: Any]
            blackHole((o?["delta"] as? String).flatMap { Data(base64Encoded: $0) })
        }
    }
}
