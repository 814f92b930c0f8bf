// Shared by the benchmark targets: the run configuration (full, or quick for the allocation check
// in CI) and the helper that measures a stage over buffers allocated before measurement starts.

import Benchmark
import Foundation

/// `AUDIOPIPE_BENCH_QUICK=1` (set by `scripts/check-allocations.sh`): a few iterations per
/// benchmark, enough for exact malloc counts, not for timing.
public let quickMode = ProcessInfo.processInfo.environment["AUDIOPIPE_BENCH_QUICK"] != nil

public func configureDefaults(maxSeconds: Int = 2) {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: quickMode ? 2 : 10,
        maxDuration: quickMode ? .milliseconds(50) : .seconds(maxSeconds),
        maxIterations: quickMode ? 20 : 100_000
    )
}

/// Runs `body` once per scaled iteration over buffers allocated before the measurement starts.
public func measure<I, O: Numeric>(
    _ benchmark: Benchmark, _ input: [I], outputCount: Int,
    _ body: (UnsafeBufferPointer<I>, UnsafeMutableBufferPointer<O>) -> Void
) {
    var out = [O](repeating: 0, count: outputCount)
    input.withUnsafeBufferPointer { src in
        out.withUnsafeMutableBufferPointer { dst in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { body(src, dst) }
            benchmark.stopMeasurement()
        }
    }
}

/// `× realtime`: seconds of audio processed per second of wall clock (custom metric, per run).
public let realtimeMetric = BenchmarkMetric.custom("x realtime", polarity: .prefersLarger, useScalingFactor: false)

/// The defaults plus the `× realtime` metric, for benchmarks of one audio chunk per iteration.
public func realtimeConfiguration(scaling: BenchmarkScalingFactor = .kilo) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal, realtimeMetric], scalingFactor: scaling)
}

/// Runs `body` once per scaled iteration inside the measurement and records × realtime for chunks
/// of `chunkSeconds` of audio each.
@inline(__always)
public func measureRealtime(_ benchmark: Benchmark, chunkSeconds: Double, _ body: () -> Void) {
    let clock = ContinuousClock()
    let start = clock.now
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { body() }
    benchmark.stopMeasurement()
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    benchmark.measurement(
        realtimeMetric, Int(chunkSeconds * Double(benchmark.scaledIterations.count) / max(seconds, 1e-12)))
}
