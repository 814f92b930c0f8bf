import AudioPipelineCore
import Foundation

/// One of N disjoint parts of a batch, for spreading it over machines (a Slurm job array, a
/// Kubernetes Indexed Job, GNU parallel): an input belongs to shard `index` when a stable hash of
/// its relative path (FNV-1a, 64-bit) modulo `count` says so — independent of listing order, so
/// every shard sees the same partition, and the N shards together cover every input once.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    /// How many shards the batch is split into.
    public let count: Int

    /// Shard `index` (1-based) of `count`.
    /// - Throws: `invalidConfiguration` unless 1 ≤ index ≤ count ≤ 1 000 000.
    public init(index: Int, count: Int) throws(AudioPipelineError) {
        guard count >= 1, count <= 1_000_000, (1...count).contains(index) else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--shard \(index)/\(count): the shard must be I/N with 1 ≤ I ≤ N (and N ≤ 1000000)")
        }
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    /// `I/N`, or `auto`: from a Slurm job array (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT`,
    /// `SLURM_ARRAY_TASK_MIN`) or a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`, 0-based, with
    /// `shards` giving N).
    public static func parse(
        _ text: String, shards: Int? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    )
        throws(AudioPipelineError) -> Shard
    {
        if text == "auto" { return try auto(shards: shards, environment: environment) }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw AudioPipelineError(.invalidConfiguration, "--shard '\(text)': give I/N (such as 2/8) or auto")
        }
        return try Shard(index: i, count: n)
    }

    static func auto(shards: Int?, environment env: [String: String]) throws(AudioPipelineError) -> Shard {
        func int(_ name: String) throws(AudioPipelineError) -> Int? {
            guard let v = env[name] else { return nil }
            guard let n = Int(v.trimmingSpaces) else {
                throw AudioPipelineError(.invalidConfiguration, "--shard auto: \(name)='\(v)' is not an integer")
            }
            // Bounded before any arithmetic on it (Slurm's task ids and counts stay far below this).
            guard (-1_000_000_000...1_000_000_000).contains(n) else {
                throw AudioPipelineError(
                    .invalidConfiguration, "--shard auto: \(name)=\(v) is out of range (at most 1000000000 either way)")
            }
            return n
        }
        if let id = try int("SLURM_ARRAY_TASK_ID") {
            guard let count = try int("SLURM_ARRAY_TASK_COUNT") else {
                throw AudioPipelineError(
                    .invalidConfiguration, "--shard auto: SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT")
            }
            // Task ids are min, min + step, …, max (`--array=1-7:2`); a list such as `--array=1,3,8`
            // has no step that says where a task is in it, so it is refused.
            let minimum = try int("SLURM_ARRAY_TASK_MIN") ?? 0, step = max(1, try int("SLURM_ARRAY_TASK_STEP") ?? 1)
            let maximum = try int("SLURM_ARRAY_TASK_MAX") ?? minimum + (count - 1) * step
            guard maximum - minimum == (count - 1) * step, (id - minimum) % step == 0 else {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "--shard auto: the job array's task ids (\(minimum)…\(maximum), \(count) tasks, step \(step)) "
                        + "are not evenly spaced; give --shard I/N instead")
            }
            return try Shard(index: (id - minimum) / step + 1, count: count)
        }
        if let index = try int("JOB_COMPLETION_INDEX") {
            guard let shards else {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "--shard auto: JOB_COMPLETION_INDEX is set; give the number of shards with --shards N")
            }
            return try Shard(index: index + 1, count: shards)
        }
        throw AudioPipelineError(
            .invalidConfiguration,
            "--shard auto: neither a Slurm job array (SLURM_ARRAY_TASK_ID) nor a Kubernetes Indexed Job "
                + "(JOB_COMPLETION_INDEX) is set")
    }

    /// Whether the input with this relative path is this shard's.
    public func contains(_ relativePath: String) -> Bool {
        Int(Self.hash(relativePath) % UInt64(count)) == index - 1
    }

    /// FNV-1a, 64-bit, of the UTF-8 bytes: stable across runs, machines and Swift versions (unlike
    /// `Hasher`, which is seeded per process).
    public static func hash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return h
    }
}
