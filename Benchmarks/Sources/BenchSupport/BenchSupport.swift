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
    _ benchmark: Benchmark, _ input: [I], outputCount: Int, _ body: (UnsafeBufferPointer<I>, UnsafeMutableBufferPointer<O>) -> Void
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
