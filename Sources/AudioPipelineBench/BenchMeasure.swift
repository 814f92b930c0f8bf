/// Times one chunk's work again and again and turns the samples into a `BenchRow`.
///
/// Warm-up first (and an estimate of the time per chunk); then, when the clock is coarse for the
/// stage, several chunks per timed sample (`batch`, reported); the samples are taken in `repeats`
/// blocks, whose p50s give the run's spread. Nothing is allocated while timing: the sample buffer
/// is reserved before, so the allocation count is the stage's own.
public struct BenchMeasure: Sendable {
    /// Chunks per row (fixed), or nil to fill `secondsPerRow`.
    public var iterations: Int?
    public var secondsPerRow: Double
    public var warmup: Int
    public var repeats: Int
    /// The clock's resolution and one read's cost, ns (measured once by `BenchRun`).
    public var resolutionNs: Double
    public var readNs: Double
    /// What calling an empty chunk body costs, ns (measured once).
    public var callNs: Double = 0

    public init(
        iterations: Int?, secondsPerRow: Double, warmup: Int, repeats: Int = 5, resolutionNs: Double,
        readNs: Double
    ) {
        (self.iterations, self.secondsPerRow, self.warmup) = (iterations, secondsPerRow, warmup)
        (self.repeats, self.resolutionNs, self.readNs) = (repeats, resolutionNs, readNs)
    }

    /// Shortest timed sample: well above the clock's step and the cost of reading it.
    var minimumSampleNs: Double { Swift.max(50 * resolutionNs, 40 * readNs) }

    /// Measures `body` (one chunk of `chunkSeconds` audio a call).
    public func run(
        _ name: String, _ description: String, chunkSeconds: Double, body: () -> Void
    ) -> BenchRow {
        let warm = Swift.max(warmup, 1)
        let w0 = BenchClock.now()
        for _ in 0..<warm { body() }
        let estimate = Swift.max(Double(BenchClock.now() - w0) / Double(warm), 0.5)
        let batch = Swift.max(1, Int((minimumSampleNs / estimate).rounded(.up)))
        let wanted = iterations ?? Int((secondsPerRow * 1e9 / estimate).rounded())
        let perRepeat = Swift.max(1, Swift.min(wanted, 10_000_000) / (batch * repeats))
        var samples = [Double](repeating: 0, count: perRepeat * repeats)
        var medians: [Double] = []
        var cpu: UInt64 = 0, allocations: UInt64 = 0
        let counting = BenchClock.countsAllocations
        samples.withUnsafeMutableBufferPointer { s in
            var k = 0
            for _ in 0..<repeats {
                let first = k
                if counting { BenchClock.startCounting() }
                let c0 = BenchClock.threadCPU()
                for _ in 0..<perRepeat {
                    let t0 = BenchClock.now()
                    for _ in 0..<batch { body() }
                    s[k] = Double(BenchClock.now() &- t0) / Double(batch)
                    k += 1
                }
                cpu &+= BenchClock.threadCPU() &- c0
                if counting { allocations &+= BenchClock.stopCounting() }
                medians.append(Self.median(Array(s[first..<k])))
            }
        }
        let chunks = samples.count * batch
        let sorted = samples.sorted()
        let mean = samples.reduce(0, +) / Double(samples.count)
        let m = Self.median(medians)
        let chunkNs = chunkSeconds * 1e9
        let cpuPerChunk = Double(cpu) / Double(chunks)
        var row = BenchRow(
            name: name, description: description, p50: Self.percentile(sorted, 0.5),
            p90: Self.percentile(sorted, 0.9), p99: Self.percentile(sorted, 0.99),
            p999: Self.percentile(sorted, 0.999), max: sorted.last ?? 0, mean: mean,
            allocationsPerChunk: counting ? Double(allocations) / Double(chunks) : nil, cpuNsPerChunk: cpuPerChunk,
            coreShare: cpuPerChunk / chunkNs, realtime: chunkNs / mean, chunksPerSecond: 1e9 / mean, chunks: chunks,
            batch: batch, spread: m > 0 ? ((medians.max() ?? 0) - (medians.min() ?? 0)) / m : 0,
            overheadNs: 2 * readNs / Double(batch) + callNs)
        row.samples = samples
        return row
    }

    /// Nearest-rank percentile of sorted values.
    public static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    static func median(_ values: [Double]) -> Double { percentile(values.sorted(), 0.5) }
}
