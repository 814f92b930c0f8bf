/// How far a job has come, reported through a `ProgressHandler` (the CLI draws a bar from it on a
/// terminal; an app can show its own). The total comes from the job itself, so nobody opens an
/// input twice to learn its length.
public struct JobProgress: Sendable, Hashable {
    public enum Unit: Sendable, Hashable {
        /// Audio frames at this rate (a bar shows × realtime).
        case frames(rate: Int)
        /// Things counted by name ("settings", "files").
        case items(String)
    }

    public var done: Int
    /// nil when the job cannot know (a pipe).
    public var total: Int?
    public var unit: Unit

    public init(done: Int, total: Int?, unit: Unit) {
        self.done = done
        self.total = total
        self.unit = unit
    }
}

/// Called by a job from the thread that runs it, as work completes.
public typealias ProgressHandler = (JobProgress) -> Void
