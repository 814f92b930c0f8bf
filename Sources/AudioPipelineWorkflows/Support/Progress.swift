import Foundation

/// How far a job has come, reported through a `ProgressHandler` (the CLI draws a bar from it on a
/// terminal; an app can show its own). The total comes from the job itself, so nobody opens an
/// input twice to learn its length.
public struct JobProgress: Sendable, Hashable {
    /// What `done` and `total` count.
    public enum Unit: Sendable, Hashable {
        /// Audio frames at this rate (a bar shows × realtime).
        case frames(rate: Int)
        /// Things counted by name ("settings", "files").
        case items(String)
    }

    /// Units done so far.
    public var done: Int
    /// nil when the job cannot know (a pipe).
    public var total: Int?
    /// What they count.
    public var unit: Unit

    /// Progress of `done` of `total` (nil: unknown) units.
    public init(done: Int, total: Int?, unit: Unit) {
        self.done = done
        self.total = total
        self.unit = unit
    }
}

extension JobProgress {
    /// A one-line bar: `[#####-----]  42%  310× realtime  ETA 3 s` (or `N settings/s`); nil without a total.
    public func bar(elapsed: Double, width: Int = 30) -> String? {
        guard let total, total > 0 else { return nil }
        let fraction = min(1, Double(done) / Double(total))
        let filled = Int(fraction * Double(width))
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let speed: String
        switch unit {
        case .frames(let rate):
            speed = String(format: "%.0f× realtime", Double(done) / Double(rate) / max(elapsed, 1e-9))
        case .items(let label): speed = String(format: "%.0f %@/s", Double(done) / max(elapsed, 1e-9), label)
        }
        return String(format: "[%@] %3.0f%%  %@  ETA %.0f s", bar, fraction * 100, speed, eta)
    }
}

/// Called by a job from the thread that runs it, as work completes.
public typealias ProgressHandler = (JobProgress) -> Void
