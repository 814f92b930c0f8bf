// The playback side's jitter buffer at 24 kHz with 20 ms packets and 20 ms ticks:
//   steady state: push + pull pairs of a live stream at constant delay, 1000 per iteration;
//   push only: 1000 packets of a TTS burst per iteration (the buffer emptied before each);
//   pull only: 1000 ticks of queued audio per iteration (normal speed).
// The buffer is created before measurement; nothing is allocated per packet or per tick.

import AudioPipelineCore
import BenchSupport
import Benchmark
import Foundation

let benchmarks: @Sendable () -> Void = {
    configureDefaults(maxSeconds: 1)
    let rate = 24_000
    let packet = (0..<480).map { Float(sin(Double($0) * 0.05)) * 0.3 }

    func makeBuffer() throws -> JitterBuffer {
        try JitterBuffer(configuration: .init(sampleRate: rate, tickMilliseconds: 20, capacitySeconds: 120))
    }

    Benchmark("Jitter push+pull 20ms steady AudioPipeline", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let jb = try makeBuffer()
        var out = [Float](repeating: 0, count: 480)
        var seq: Int64 = 0
        packet.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                // Warm up into steady playout (about 100 ms of delay).
                for _ in 0..<50 {
                    jb.push(p, sequence: seq, utterance: 0, media: seq * 480, arrival: jb.clock)
                    seq += 1
                    jb.pull(into: o)
                }
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    jb.push(p, sequence: seq, utterance: 0, media: seq * 480, arrival: jb.clock)
                    seq += 1
                    jb.pull(into: o)
                }
                benchmark.stopMeasurement()
            }
        }
        blackHole(jb.statistics)
    }

    Benchmark("Jitter push 20ms burst AudioPipeline", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let jb = try makeBuffer()
        packet.withUnsafeBufferPointer { p in
            benchmark.startMeasurement()
            for i in benchmark.scaledIterations {
                jb.push(p, sequence: Int64(i), utterance: 0, media: Int64(i) * 480, arrival: 0)
            }
            benchmark.stopMeasurement()
        }
        blackHole(jb.queued)
    }

    Benchmark("Jitter pull 20ms queued AudioPipeline", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let jb = try makeBuffer()
        var out = [Float](repeating: 0, count: 480)
        packet.withUnsafeBufferPointer { p in
            for i in 0..<(benchmark.scaledIterations.count + 20) {
                jb.push(p, sequence: Int64(i), utterance: 0, media: Int64(i) * 480, arrival: 0)
            }
        }
        out.withUnsafeMutableBufferPointer { o in
            // Past the start delay into playout.
            for _ in 0..<10 { jb.pull(into: o) }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { jb.pull(into: o) }
            benchmark.stopMeasurement()
        }
        blackHole(jb.statistics)
    }
}
