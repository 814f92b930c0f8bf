/// What `audiopipe bench` and `BenchRun` report: the machine, the settings, and per path
/// (`mic`, `speaker`) the whole path, each of its stages and the peers, per chunk. Codable: the CLI's
/// `--json` is this, and `bench compare` reads it back.
public struct BenchReport: Codable, Sendable {
    /// The machine the run measured.
    public var machine: BenchMachine
    /// The settings, by name (`deviceRate`, `profile`, `resampler` …), as the report prints them.
    public var settings: [String: String]
    /// The timer and what measuring costs.
    public var timer: TimerInfo
    /// The microphone and loudspeaker paths.
    public var paths: Paths
    /// The process's peak resident memory at the end of the run, bytes.
    public var peakMemoryBytes: Int
    /// Wall time of the whole run, s.
    public var seconds: Double
    /// Why a figure should not be trusted (a noisy run, a coarse timer, batched samples …).
    public var warnings: [String]
    /// Fast enough? The budgets given and whether each path keeps up with real time (nil in a report
    /// read from an older version).
    public var verdict: BenchVerdict?

    /// A report of the given parts (`BenchRun` makes them; tests fabricate them).
    public init(
        machine: BenchMachine, settings: [String: String], timer: TimerInfo, paths: Paths, peakMemoryBytes: Int,
        seconds: Double, warnings: [String]
    ) {
        self.machine = machine
        self.settings = settings
        self.timer = timer
        self.paths = paths
        self.peakMemoryBytes = peakMemoryBytes
        self.seconds = seconds
        self.warnings = warnings
    }

    /// The two paths a client runs per chunk.
    public struct Paths: Codable, Sendable {
        /// Device audio → messages.
        public var mic: BenchPath
        /// Server messages → device audio.
        public var speaker: BenchPath
        /// Both paths.
        public init(mic: BenchPath, speaker: BenchPath) { (self.mic, self.speaker) = (mic, speaker) }
    }

    /// The timer, and what measuring costs.
    public struct TimerInfo: Codable, Sendable {
        /// Smallest step of the monotonic clock, ns.
        public var resolutionNs: Double
        /// One clock read, ns.
        public var readNs: Double
        /// What timing and bookkeeping add to the mic path's time per chunk, ns and share of its p50.
        public var micOverheadNs: Double
        /// `micOverheadNs` as a share of the mic path's p50.
        public var micOverheadShare: Double
        /// Whether allocations are counted in this process (else every `allocationsPerChunk` is null).
        public var allocationsCounted: Bool

        /// The timer's figures as measured.
        public init(
            resolutionNs: Double, readNs: Double, micOverheadNs: Double, micOverheadShare: Double,
            allocationsCounted: Bool
        ) {
            (self.resolutionNs, self.readNs, self.micOverheadNs) = (resolutionNs, readNs, micOverheadNs)
            (self.micOverheadShare, self.allocationsCounted) = (micOverheadShare, allocationsCounted)
        }
    }

    /// Every row of the report, keyed `path.total`, `path.stage` or `path.peer:name`.
    public var rows: [(key: String, row: BenchRow)] {
        var all: [(String, BenchRow)] = []
        for (name, path) in [("mic", paths.mic), ("speaker", paths.speaker)] {
            if let t = path.total { all.append(("\(name).total", t)) }
            all += path.stages.map { ("\(name).\($0.name)", $0) }
            all += path.peers.map { ("\(name).peer:\($0.name)", $0) }
        }
        return all.map { (key: $0.0, row: $0.1) }
    }
}

/// One path: its total per chunk (what a client runs per chunk), its stages, its peers.
public struct BenchPath: Codable, Sendable {
    /// Audio per chunk, ms.
    public var chunkMilliseconds: Double
    /// What the path is, stage by stage.
    public var description: String
    /// Nil when the path could not be measured with these settings (`note` says why).
    public var total: BenchRow?
    /// The path's stages, in order (a stage may be part of another: `partOf`).
    public var stages: [BenchRow]
    /// The peers measured beside the path and its stages.
    public var peers: [BenchRow]
    /// Why the path or a row is missing or differs, when it does.
    public var note: String?

    /// A path of the given rows.
    public init(
        chunkMilliseconds: Double, description: String, total: BenchRow?, stages: [BenchRow], peers: [BenchRow],
        note: String? = nil
    ) {
        (self.chunkMilliseconds, self.description, self.total) = (chunkMilliseconds, description, total)
        (self.stages, self.peers, self.note) = (stages, peers, note)
    }
}

/// One measured row: latency per chunk and what it costs.
public struct BenchRow: Codable, Sendable {
    /// The row's name: `total`, a stage or a peer.
    public var name: String
    /// What the row times, for people.
    public var description: String
    /// Wall time per chunk, ns: percentiles over the samples, the largest, the mean.
    public var p50: Double
    /// 90th percentile per chunk, ns.
    public var p90: Double
    /// 99th percentile per chunk, ns.
    public var p99: Double
    /// 99.9th percentile per chunk, ns.
    public var p999: Double
    /// The slowest chunk, ns.
    public var max: Double
    /// Mean per chunk, ns.
    public var mean: Double
    /// Heap allocations per chunk, counted in-process; null when this platform or build cannot
    /// count them (never a made-up 0).
    public var allocationsPerChunk: Double?
    /// CPU time of the measuring thread per chunk, ns, and the share of one core it needs to keep
    /// up in real time.
    public var cpuNsPerChunk: Double
    /// CPU time per chunk ÷ the chunk's duration: the share of one core.
    public var coreShare: Double
    /// Chunk duration ÷ the p50, and chunks per second at the p50: the typical chunk, as the table
    /// leads with (a mean is pulled by the rare slow chunk the percentiles show apart).
    public var realtime: Double
    /// Chunks per second at the p50.
    public var chunksPerSecond: Double
    /// Chunks measured; chunks per timed sample (more than 1 when the timer is coarse for the stage).
    public var chunks: Int
    /// Chunks per timed sample.
    public var batch: Int
    /// Spread of the p50 across the run's repeats: (max − min) ÷ median.
    public var spread: Double
    /// Timing and bookkeeping per chunk included in these figures, ns.
    public var overheadNs: Double
    /// For a peer: the row of ours it stands beside (`total` or a stage), and its p50 ÷ ours.
    public var peerOf: String?
    /// For a peer: its p50 ÷ ours (above 1: ours is faster).
    public var ratio: Double?
    /// For a stage: the row whose time includes it — `total`, or a stage it is part of (the mic's
    /// resample within convert); nil for a stage that runs beside the path and is not in its total
    /// (the mic's VAD).
    public var partOf: String?
    /// The per-sample times (ns per chunk), for plots; not encoded.
    public var samples: [Double] = []

    enum CodingKeys: String, CodingKey {
        case name, description, p50, p90, p99, p999, max, mean, allocationsPerChunk, cpuNsPerChunk, coreShare
        case realtime, chunksPerSecond, chunks, batch, spread, overheadNs, peerOf, ratio, partOf
    }

    /// A row of the given figures (`peerOf`, `ratio` and `partOf` are set after).
    public init(
        name: String, description: String, p50: Double, p90: Double, p99: Double, p999: Double, max: Double,
        mean: Double, allocationsPerChunk: Double?, cpuNsPerChunk: Double, coreShare: Double, realtime: Double,
        chunksPerSecond: Double, chunks: Int, batch: Int, spread: Double, overheadNs: Double
    ) {
        (self.name, self.description, self.p50, self.p90, self.p99) = (name, description, p50, p90, p99)
        (self.p999, self.max, self.mean, self.allocationsPerChunk) = (p999, max, mean, allocationsPerChunk)
        (self.cpuNsPerChunk, self.coreShare, self.realtime) = (cpuNsPerChunk, coreShare, realtime)
        (self.chunksPerSecond, self.chunks, self.batch) = (chunksPerSecond, chunks, batch)
        (self.spread, self.overheadNs) = (spread, overheadNs)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(description, forKey: .description)
        for (k, v) in [(CodingKeys.p50, p50), (.p90, p90), (.p99, p99), (.p999, p999), (.max, max), (.mean, mean)] {
            try c.encode(v, forKey: k)
        }
        try c.encode(allocationsPerChunk, forKey: .allocationsPerChunk)  // null when not measured
        try c.encode(cpuNsPerChunk, forKey: .cpuNsPerChunk)
        try c.encode(coreShare, forKey: .coreShare)
        try c.encode(realtime, forKey: .realtime)
        try c.encode(chunksPerSecond, forKey: .chunksPerSecond)
        try c.encode(chunks, forKey: .chunks)
        try c.encode(batch, forKey: .batch)
        try c.encode(spread, forKey: .spread)
        try c.encode(overheadNs, forKey: .overheadNs)
        try c.encodeIfPresent(peerOf, forKey: .peerOf)
        try c.encodeIfPresent(ratio, forKey: .ratio)
        try c.encodeIfPresent(partOf, forKey: .partOf)
    }

    /// A statistic by its name in budgets and comparisons (p50 p90 p99 p999 max mean).
    public func statistic(_ name: String) -> Double? {
        switch name {
        case "p50": p50
        case "p90": p90
        case "p99": p99
        case "p999", "p99.9": p999
        case "max": max
        case "mean": mean
        default: nil
        }
    }

    /// The statistics a budget may name.
    public static let statisticNames = ["p50", "p90", "p99", "p999", "max", "mean"]
}
