// Sample conversion and downmix, each beside its peers in the same run:
//   - the common iOS client code (reference 001): `map` with clamp ×32767, a new array per chunk;
//   - a plain C loop, built for the baseline ISA (CPeers) and with -march=native (CPeersNative).
// A "chunk" is 20 ms at 48 kHz = 960 samples; "4MiB" is 1 Mi Float32 samples. Chunk benchmarks
// measure 1000 chunks per iteration (scalingFactor .kilo), so wall clock reads per chunk.

import AudioPipelineCore
import BenchSupport
import Benchmark
import CPeers
import CPeersNative

let chunk = 960
let big = 1 << 20

/// Noise-like test samples with peak `peak` (1.05: about 5 % of samples clip).
func testSignal(_ n: Int, peak: Float) -> [Float] {
    var state: UInt32 = 12345
    return (0..<n).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return Float(Int32(bitPattern: state)) / Float(Int32.max) * peak
    }
}

let benchmarks: @Sendable () -> Void = {
    configureDefaults()

    for (label, n, scaling) in [("chunk960", chunk, BenchmarkScalingFactor.kilo), ("4MiB", big, .one)] {
        let floats = testSignal(n, peak: 0.9)
        let clipping = testSignal(n, peak: 1.05)
        let shorts: [Int16] = floats.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
        let config = Benchmark.Configuration(scalingFactor: scaling)

        // MARK: Float32 → Int16
        let f2i: [(String, Float32ToInt16Converter.Configuration, [Float])] = [
            ("standard", .init(), floats), ("standard clipping", .init(), clipping),
            ("ios", .init(compatibility: .ios), floats), ("tpdf", .init(dither: .tpdf(seed: 1)), floats),
        ]
        for (mode, cfg, input) in f2i {
            Benchmark("F32toI16 \(label) AudioPipeline \(mode)", configuration: config) { benchmark in
                var conv = try Float32ToInt16Converter(cfg)
                measure(benchmark, input, outputCount: n) { (s, d: UnsafeMutableBufferPointer<Int16>) in
                    blackHole(conv.process(s, into: d))
                }
            }
        }
        for (peer, loop) in [("C loop", cpeers_f32_to_s16), ("C loop native", cpeers_native_f32_to_s16)] {
            Benchmark("F32toI16 \(label) peer \(peer)", configuration: config) { benchmark in
                measure(benchmark, floats, outputCount: n) { (s, d: UnsafeMutableBufferPointer<Int16>) in
                    loop(s.baseAddress, d.baseAddress, n)
                    blackHole(d[0])
                }
            }
        }
        Benchmark("F32toI16 \(label) peer iOS map", configuration: config) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(floats.map { Int16(max(-1.0, min(1.0, $0)) * Float(Int16.max)) })
            }
        }

        // MARK: Int16 → Float32
        for mode in PCMCompatibility.allCases {
            Benchmark("I16toF32 \(label) AudioPipeline \(mode)", configuration: config) { benchmark in
                var conv = Int16ToFloat32Converter(compatibility: mode)
                measure(benchmark, shorts, outputCount: n) { (s, d: UnsafeMutableBufferPointer<Float>) in
                    blackHole(conv.process(s, into: d))
                }
            }
        }
        for (peer, loop) in [("C loop", cpeers_s16_to_f32), ("C loop native", cpeers_native_s16_to_f32)] {
            Benchmark("I16toF32 \(label) peer \(peer)", configuration: config) { benchmark in
                measure(benchmark, shorts, outputCount: n) { (s, d: UnsafeMutableBufferPointer<Float>) in
                    loop(s.baseAddress, d.baseAddress, n)
                    blackHole(d[0])
                }
            }
        }
        Benchmark("I16toF32 \(label) peer iOS map", configuration: config) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(shorts.map { Float($0) / Float(Int16.max) }) }
        }

        // MARK: Stereo → mono (n samples = n/2 frames)
        Benchmark("Downmix \(label) AudioPipeline stereo mean", configuration: config) { benchmark in
            var mixer = try ChannelMixer(channels: 2)
            measure(benchmark, floats, outputCount: n / 2) { (s, d: UnsafeMutableBufferPointer<Float>) in
                blackHole(mixer.process(s, into: d))
            }
        }
        for (peer, loop) in [("C loop", cpeers_stereo_to_mono), ("C loop native", cpeers_native_stereo_to_mono)] {
            Benchmark("Downmix \(label) peer \(peer)", configuration: config) { benchmark in
                measure(benchmark, floats, outputCount: n / 2) { (s, d: UnsafeMutableBufferPointer<Float>) in
                    loop(s.baseAddress, d.baseAddress, n / 2)
                    blackHole(d[0])
                }
            }
        }
    }
}
