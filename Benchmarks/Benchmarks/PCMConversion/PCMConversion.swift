// Sample conversion and downmix, each beside its peers in the same run:
//   - the common iOS client code (reference 001): `map` with clamp ×32767, a new array per chunk;
//   - a plain C loop, built for the baseline ISA (CPeers) and with -march=native (CPeersNative).
// A "chunk" is 20 ms at 48 kHz = 960 samples; "4MiB" is 1 Mi Float32 samples. Chunk benchmarks
// measure 1000 chunks per iteration (scalingFactor .kilo), so wall clock reads per chunk.

import AudioPipelineCore
import Benchmark
import CPeers
import CPeersNative

let chunk = 960
let big = 1 << 20

func testSignal(_ n: Int) -> [Float] {
    var state: UInt32 = 12345
    return (0..<n).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return Float(Int32(bitPattern: state)) / Float(Int32.max) * 1.05  // a few samples clip
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    for (label, n, scaling) in [("chunk960", chunk, BenchmarkScalingFactor.kilo), ("4MiB", big, .one)] {
        let floats = testSignal(n)
        let shorts: [Int16] = floats.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
        let config = Benchmark.Configuration(scalingFactor: scaling)

        // MARK: Float32 → Int16
        for (mode, cfg) in [
            ("standard", Float32ToInt16Converter.Configuration()),
            ("ios", .init(compatibility: .ios)),
            ("tpdf", .init(dither: .tpdf(seed: 1))),
        ] {
            Benchmark("F32toI16 \(label) AudioPipeline \(mode)", configuration: config) { benchmark in
                var conv = try Float32ToInt16Converter(cfg)
                var out = [Int16](repeating: 0, count: n)
                floats.withUnsafeBufferPointer { src in
                    out.withUnsafeMutableBufferPointer { dst in
                        benchmark.startMeasurement()
                        for _ in benchmark.scaledIterations { blackHole(conv.process(src, into: dst)) }
                        benchmark.stopMeasurement()
                    }
                }
            }
        }
        Benchmark("F32toI16 \(label) peer C loop", configuration: config) { benchmark in
            var out = [Int16](repeating: 0, count: n)
            floats.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations {
                        cpeers_f32_to_s16(src.baseAddress, dst.baseAddress, n)
                        blackHole(dst[0])
                    }
                    benchmark.stopMeasurement()
                }
            }
        }
        Benchmark("F32toI16 \(label) peer C loop native", configuration: config) { benchmark in
            var out = [Int16](repeating: 0, count: n)
            floats.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations {
                        cpeers_native_f32_to_s16(src.baseAddress, dst.baseAddress, n)
                        blackHole(dst[0])
                    }
                    benchmark.stopMeasurement()
                }
            }
        }
        Benchmark("F32toI16 \(label) peer iOS map", configuration: config) { benchmark in
            for _ in benchmark.scaledIterations {
                let out = floats.map { Int16(max(-1.0, min(1.0, $0)) * Float(Int16.max)) }
                blackHole(out)
            }
        }

        // MARK: Int16 → Float32
        for mode in PCMCompatibility.allCases {
            Benchmark("I16toF32 \(label) AudioPipeline \(mode)", configuration: config) { benchmark in
                var conv = Int16ToFloat32Converter(compatibility: mode)
                var out = [Float](repeating: 0, count: n)
                shorts.withUnsafeBufferPointer { src in
                    out.withUnsafeMutableBufferPointer { dst in
                        benchmark.startMeasurement()
                        for _ in benchmark.scaledIterations { blackHole(conv.process(src, into: dst)) }
                        benchmark.stopMeasurement()
                    }
                }
            }
        }
        Benchmark("I16toF32 \(label) peer C loop", configuration: config) { benchmark in
            var out = [Float](repeating: 0, count: n)
            shorts.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations {
                        cpeers_s16_to_f32(src.baseAddress, dst.baseAddress, n)
                        blackHole(dst[0])
                    }
                    benchmark.stopMeasurement()
                }
            }
        }
        Benchmark("I16toF32 \(label) peer C loop native", configuration: config) { benchmark in
            var out = [Float](repeating: 0, count: n)
            shorts.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations {
                        cpeers_native_s16_to_f32(src.baseAddress, dst.baseAddress, n)
                        blackHole(dst[0])
                    }
                    benchmark.stopMeasurement()
                }
            }
        }
        Benchmark("I16toF32 \(label) peer iOS map", configuration: config) { benchmark in
            for _ in benchmark.scaledIterations {
                let out = shorts.map { Float($0) / Float(Int16.max) }
                blackHole(out)
            }
        }

        // MARK: Stereo → mono (n samples = n/2 frames)
        Benchmark("Downmix \(label) AudioPipeline stereo mean", configuration: config) { benchmark in
            var mixer = try ChannelMixer(channels: 2)
            var out = [Float](repeating: 0, count: n / 2)
            floats.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations { blackHole(mixer.process(src, into: dst)) }
                    benchmark.stopMeasurement()
                }
            }
        }
        Benchmark("Downmix \(label) peer C loop", configuration: config) { benchmark in
            var out = [Float](repeating: 0, count: n / 2)
            floats.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations {
                        cpeers_stereo_to_mono(src.baseAddress, dst.baseAddress, n / 2)
                        blackHole(dst[0])
                    }
                    benchmark.stopMeasurement()
                }
            }
        }
        Benchmark("Downmix \(label) peer C loop native", configuration: config) { benchmark in
            var out = [Float](repeating: 0, count: n / 2)
            floats.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations {
                        cpeers_native_stereo_to_mono(src.baseAddress, dst.baseAddress, n / 2)
                        blackHole(dst[0])
                    }
                    benchmark.stopMeasurement()
                }
            }
        }
    }
}
