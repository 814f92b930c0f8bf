import CAllocationCounter

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Musl)
    import Musl
#endif

/// The clocks and counters a measurement reads: wall time, the thread's CPU time, heap
/// allocations (where this build can count them), peak memory.
public enum BenchClock {
    /// Monotonic wall clock, ns.
    @inline(__always)
    public static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
    }

    /// CPU time of the calling thread, ns.
    @inline(__always)
    public static func threadCPU() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
    }

    /// The clock's resolution: the smallest non-zero step seen between consecutive reads (at
    /// least what `clock_getres` says), ns.
    public static func resolution() -> Double {
        var r = timespec()
        clock_getres(CLOCK_MONOTONIC, &r)
        let declared = Double(r.tv_sec) * 1e9 + Double(r.tv_nsec)
        var smallest = UInt64.max
        for _ in 0..<2000 {
            let a = now()
            var b = now()
            while b == a { b = now() }
            smallest = min(smallest, b - a)
        }
        return max(declared, Double(smallest))
    }

    /// What one read of the clock costs, ns (the median of 11 runs of 1,000 reads).
    public static func readCost() -> Double {
        var runs: [Double] = []
        for _ in 0..<11 {
            let start = now()
            var sink: UInt64 = 0
            for _ in 0..<1000 { sink &+= now() }
            runs.append(Double(now() - start) / 1000)
            if sink == 42 { print("") }  // keeps the reads
        }
        return runs.sorted()[5]
    }

    /// Whether heap allocations are counted in this process: the program links the interposer
    /// (product `AudioPipelineBenchAllocationCounting`; the CLI does) on glibc without a sanitizer,
    /// and a real allocation moves the count (checked, never assumed).
    public static let countsAllocations: Bool = {
        guard apc_available() != 0 else { return false }
        apc_start()
        let p = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
        let n = apc_stop()
        p.deallocate()
        return n >= 1
    }()

    /// Whether this build runs under a sanitizer (which keeps the allocator to itself).
    public static var isSanitizedBuild: Bool { apc_sanitized() != 0 }

    /// Starts counting the calling thread's allocations.
    @inline(__always) public static func startCounting() { apc_start() }
    /// Allocations since `startCounting`.
    @inline(__always) public static func stopCounting() -> UInt64 { apc_stop() }

    /// The process's peak resident memory, bytes (-1 when unknown).
    public static func peakMemory() -> Int { Int(apc_peak_memory()) }

    /// Pins the calling thread to one CPU (Linux); false where that is not possible.
    public static func pin(cpu: Int) -> Bool { cpu <= Int(Int32.max) && apc_pin_cpu(Int32(cpu)) == 0 }
}
