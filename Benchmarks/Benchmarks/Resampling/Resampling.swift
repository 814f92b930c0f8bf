// Streaming resampling in 20 ms input chunks, every backend and preset beside libsoxr HQ in the
// same run, two ways:
//   "Resample 1s …"    one iteration = 50 chunks = 1 s of audio: wall clock per second of audio,
//                      for every backend, native-high-throughput (throughput mode) and
//                      native-high-file (the file path `convert` takes: the half-band cascade where it applies),
//                      so × realtime = 1 s / wall clock. Fair to soxr, which buffers input and
//                      works in large blocks (most of its calls return nothing).
//   "Resample chunk …" one iteration = one 20 ms chunk: per-chunk latency percentiles (p99).

import AudioPipelineAdapters
import AudioPipelineCore
import BenchSupport
import Benchmark
import CSoxr
import Foundation

/// libsoxr HQ through `soxr_process`, streaming interleaved float32 (benchmark-only peer).
final class Soxr {
    let handle: soxr_t
    init(from: Int, to: Int, channels: Int) {
        var err: soxr_error_t? = nil
        var q = soxr_quality_spec(UInt(SOXR_HQ), 0)
        handle = soxr_create(Double(from), Double(to), UInt32(channels), &err, nil, &q, nil)!
    }
    deinit { soxr_delete(handle) }
    @inline(__always) func process(_ input: UnsafeBufferPointer<Float>, _ output: UnsafeMutableBufferPointer<Float>)
        -> Int
    {
        var idone = 0, odone = 0
        soxr_process(handle, input.baseAddress, input.count, &idone, output.baseAddress, output.count, &odone)
        return odone
    }
}

let ratios: [(Int, Int)] = [(48000, 16000), (16000, 24000), (24000, 48000), (44100, 16000)]

func chunkSignal(_ frames: Int) -> [Float] {
    (0..<frames).map { i in
        let t = Double(i)
        return Float(0.4 * sin(t * 0.0731) + 0.3 * sin(t * 0.291))
    }
}

/// Times `resampler` on `input` (one 20 ms chunk) fed `chunksPerIteration` times per measured
/// iteration, after filling its filter history so that every measured chunk is steady state.
func measure(_ benchmark: Benchmark, _ resampler: any Resampler, _ input: [Float], _ chunksPerIteration: Int) {
    var r = resampler
    var out = [Float](repeating: 0, count: r.maxOutputCount(forInput: input.count))
    input.withUnsafeBufferPointer { src in
        out.withUnsafeMutableBufferPointer { dst in
            for _ in 0..<10 { _ = r.process(src, into: dst) }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                for _ in 0..<chunksPerIteration { blackHole(r.process(src, into: dst)) }
            }
            benchmark.stopMeasurement()
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    configureDefaults(maxSeconds: 1)

    for (from, to) in ratios {
        let chunk = from / 50
        let input = chunkSignal(chunk)
        let label = "\(from / 1000)k->\(to / 1000)k"
        for (family, chunksPerIteration) in [("1s", 50), ("chunk", 1)] {
            for choice in ResamplerChoice.allCases {
                // Per-chunk latency only for the backends a client would run per chunk.
                if family == "chunk" && ![.nativeHigh, .nativeFast, .srcBest].contains(choice) { continue }
                Benchmark("Resample \(family) \(label) \(choice.rawValue)") { benchmark in
                    measure(
                        benchmark, try choice.make(ResamplingFormat(from: SampleRate(from), to: SampleRate(to))), input,
                        chunksPerIteration)
                }
            }
            // The native resampler with its Swift kernels only (what CPUs without AVX2/FMA run).
            for preset in [PolyphaseResampler.Preset.high, .fast] {
                Benchmark("Resample \(family) \(label) native-\(preset.rawValue)-portable") { benchmark in
                    let format = try ResamplingFormat(from: SampleRate(from), to: SampleRate(to))
                    measure(
                        benchmark, try PolyphaseResampler(format: format, preset: preset, kernel: .portable), input,
                        chunksPerIteration)
                }
            }
            // soxr only per second of audio: it buffers input, so most 20 ms calls return nothing.
            if family == "chunk" { continue }
            // The file path (`convert`): throughput mode, same output, outputs held back in blocks.
            Benchmark("Resample \(family) \(label) native-high-throughput") { benchmark in
                let format = try ResamplingFormat(from: SampleRate(from), to: SampleRate(to))
                measure(
                    benchmark, try PolyphaseResampler(format: format, preset: .high, mode: .throughput), input,
                    chunksPerIteration)
            }
            // The file path as `convert` runs it (PolyphaseResampler.Mode.multiStage): the half-band
            // cascade on 48k→16k and 44.1k→16k, throughput mode elsewhere (then the row above again).
            Benchmark("Resample \(family) \(label) native-high-file") { benchmark in
                let format = try ResamplingFormat(from: SampleRate(from), to: SampleRate(to))
                measure(
                    benchmark, try PolyphaseResampler.make(format: format, preset: .high, mode: .multiStage), input,
                    chunksPerIteration)
            }
            Benchmark("Resample \(family) \(label) peer soxr-hq") { benchmark in
                let s = Soxr(from: from, to: to, channels: 1)
                var out = [Float](repeating: 0, count: chunk * 4 + 1024)
                input.withUnsafeBufferPointer { src in
                    out.withUnsafeMutableBufferPointer { dst in
                        for _ in 0..<10 { _ = s.process(src, dst) }
                        benchmark.startMeasurement()
                        for _ in benchmark.scaledIterations {
                            for _ in 0..<chunksPerIteration { blackHole(s.process(src, dst)) }
                        }
                        benchmark.stopMeasurement()
                    }
                }
            }
        }
    }
}
