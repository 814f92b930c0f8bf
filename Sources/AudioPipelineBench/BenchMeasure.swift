/// Times one chunk's work again and again and turns the samples into a `BenchRow`.
///
/// Warm-up first (and an estimate of the time per chunk, from its fastest block); then, when the
/// clock is coarse for the stage, several chunks per timed sample (`batch`, reported, so a sample
/// spans at least 50 clock steps); the samples are taken in `repeats` blocks, whose p50s give the
/// run's spread. Nothing is allocated while timing: the sample buffer
/// is reserved before, so the allocation count is the stage's own.
public struct BenchMeasure: Sendable {
    /// Chunks per row (fixed), or nil to fill `secondsPerRow`.
    public var iterations: Int?
    /// Measuring time per row, s (when `iterations` is nil).
    public var secondsPerRow: Double
    /// Chunks run before timing.
    public var warmup: Int
    /// Blocks the samples are taken in (their p50s give the spread).
    public var repeats: Int
    /// The clock's resolution and one read's cost, ns (measured once by `BenchRun`).
    public var resolutionNs: Double
    /// Cost of one clock read, ns.
    public var readNs: Double
    /// What calling an empty chunk body costs, ns (measured once).
    public var callNs: Double = 0

    /// A measurer with the given counts and the clock's measured resolution and read cost.
    public init(
        iterations: Int?, secondsPerRow: Double, warmup: Int, repeats: Int = 5, resolutionNs: Double,
        readNs: Double
    ) {
        self.iterations = iterations
        self.secondsPerRow = secondsPerRow
        self.warmup = warmup
        self.repeats = repeats
        self.resolutionNs = resolutionNs
        self.readNs = readNs
    }

    /// Shortest timed sample: well above the clock's step and the cost of reading it.
    var minimumSampleNs: Double { Swift.max(50 * resolutionNs, 40 * readNs) }

    /// Measures `body` (one chunk of `chunkSeconds` audio a call).
    public func run(
        _ name: String, _ description: String, chunkSeconds: Double, body: () -> Void
    ) -> BenchRow {
        withoutActuallyEscaping(body) { run(name, description, chunkSeconds: chunkSeconds, placements: [$0]) }
    }

    /// Measures one stage set up several times, each instance with its own memory (`placements`, one
    /// per repeat, cycled): where a stage's buffers fall changes its speed from process to process
    /// (the jitter buffer's push and pulls took 118 to 138 ns in eight runs of one build), so each
    /// repeat times another instance, the spread shows that variation and the p50 is the middle of it
    /// — what `bench compare` can then tell from a regression.
    public func run(
        _ name: String, _ description: String, chunkSeconds: Double, placements: [() -> Void]
    ) -> BenchRow {
        precondition(!placements.isEmpty, "bench: a row needs a body")
        // The warm-up in up to five blocks; the estimate is the fastest block's mean, since the first
        // chunks are slow (cold caches, first-touch page faults) and a whole-warm-up mean made batches
        // too small: a 105 ns stage timed 2 chunks a sample, 10 clock steps, which then moved its p50
        // by 8 % between runs.
        // Every placement is warmed first (untimed), so no block below is a placement's first use.
        let warm = Swift.max(warmup, 1)
        for body in placements {
            for _ in 0..<Swift.max(1, warm / (2 * placements.count)) { body() }
        }
        let blocks = Swift.min(5, warm)
        var estimate = Double.infinity
        var warmed = 0
        for b in 0..<blocks {
            let n = (warm - warmed) / (blocks - b)
            let body = placements[b % placements.count]
            let w0 = BenchClock.now()
            for _ in 0..<n { body() }
            estimate = Swift.min(estimate, Double(BenchClock.now() - w0) / Double(n))
            warmed += n
        }
        estimate = Swift.max(estimate, 0.5)
        let batch = Swift.max(1, Int((minimumSampleNs / estimate).rounded(.up)))
        let wanted = iterations ?? Int((secondsPerRow * 1e9 / estimate).rounded())
        let perRepeat = Swift.max(1, Swift.min(wanted, 10_000_000) / (batch * repeats))
        var samples = [Double](repeating: 0, count: perRepeat * repeats)
        var medians: [Double] = []
        var cpu: UInt64 = 0, allocations: UInt64 = 0
        let counting = BenchClock.countsAllocations
        samples.withUnsafeMutableBufferPointer { s in
            var k = 0
            for r in 0..<repeats {
                let body = placements[r % placements.count]
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
        let p50 = Self.percentile(sorted, 0.5)
        let typical = Swift.max(p50, 1e-3)  // (a body faster than the clock can tell is not infinitely fast)
        var row = BenchRow(
            name: name, description: description, p50: p50,
            p90: Self.percentile(sorted, 0.9), p99: Self.percentile(sorted, 0.99),
            p999: Self.percentile(sorted, 0.999), max: sorted.last ?? 0, mean: mean,
            allocationsPerChunk: counting ? Double(allocations) / Double(chunks) : nil, cpuNsPerChunk: cpuPerChunk,
            coreShare: cpuPerChunk / chunkNs, realtime: chunkNs / typical, chunksPerSecond: 1e9 / typical,
            chunks: chunks,
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
