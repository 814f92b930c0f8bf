import AudioPipelineCore

/// `session simulate`'s modes — one conversation, a sweep, a folder of scenarios, random rooms —
/// and the options each takes: an option another one would silently override is refused.
public enum SessionModes {
    /// `given`: the options' values by name (`--agent`, `--user`, `--recorded`, `--reference`,
    /// `--trace`, `--network`, `--sweep`, `--scenarios`, `--rooms`, `--room`), nil when not given.
    /// Throws a usage error (exit code 64) naming the option to drop or to add.
    public static func refuseConflicts(_ given: [String: String?]) throws(AudioPipelineError) {
        func has(_ name: String) -> Bool { (given[name] ?? nil) != nil }
        let overridden = ["--agent", "--user", "--recorded", "--reference", "--trace", "--network", "--sweep"]
        if has("--scenarios"), let first = overridden.first(where: has) {
            throw AudioPipelineError(
                .invalidConfiguration, "--scenarios takes every setting from its scenario files; drop \(first)")
        }
        if has("--trace") && has("--network") {
            throw AudioPipelineError(
                .invalidConfiguration, "--trace replays recorded arrivals, --network simulates them: give one")
        }
        if has("--rooms") && (has("--sweep") || has("--scenarios")) {
            throw AudioPipelineError(
                .invalidConfiguration, "--rooms draws its own rooms: drop \(has("--sweep") ? "--sweep" : "--scenarios")"
            )
        }
        if !has("--rooms") && has("--room") {
            throw AudioPipelineError(.invalidConfiguration, "--room sets a range of --rooms: give --rooms N")
        }
    }
}

extension SessionModes {
    /// What `session simulate` asks for beyond the conversation's configuration: a folder of
    /// scenarios, random rooms or a sweep instead of the one session, and where the outputs go.
    public struct Request: Sendable {
        /// A directory of scenario files (`SessionConfiguration` JSON) to run instead.
        public var scenarios: String?
        /// Draw this many random rooms and run the session in each.
        public var rooms: Int?
        /// The seed of the rooms drawn.
        public var roomSeed: UInt64 = 1
        /// Room parameters' ranges, `NAME=LOW:HIGH` or `NAME=VALUE`.
        public var roomRanges: [String] = []
        /// One parameter varied, `NAME=v1,v2,…`.
        public var sweep: String?
        /// Scenarios or rooms simulated at once (nil: the cores; 1…`BatchOptions.maximumJobs`).
        public var jobs: Int?
        /// The output directory.
        public var output: String

        /// One session into `output`.
        public init(output: String) { self.output = output }
    }

    /// What ran: its report, the report's text, and the exit status a failed scenario asks for
    /// (0: none failed).
    public struct Outcome {
        /// The scenarios', rooms', sweep's or session's report.
        public var report: any WorkflowReport
        /// Its text summary.
        public var text: String
        /// A failed scenario's exit code (0 when every one succeeded, and for the other modes).
        public var exitCode: Int32
    }

    /// Runs the mode `request` names on `configuration` (scenarios take every setting from their
    /// files): the scenarios, the rooms, the sweep or the one session. `failure` gets each failed
    /// scenario's or room's message as it comes, `warning` each scenario's warnings (a room's are
    /// its report's).
    public static func run(
        _ configuration: SessionConfiguration, _ request: Request, failure: @escaping (String) -> Void,
        warning: @escaping (String) -> Void
    ) throws(AudioPipelineError) -> Outcome {
        // Checked in every mode: a bad --jobs is refused even where one session leaves it unused.
        let batch = try BatchOptions(jobs: request.jobs)
        if let scenarios = request.scenarios {
            let r = try SessionScenarios.run(directory: scenarios, output: request.output, options: batch) { f in
                f.error.map(failure)
                f.warnings.forEach(warning)
            }
            return Outcome(report: r, text: r.text, exitCode: r.summary.exitCode)
        }
        if let rooms = request.rooms {
            let r = try SessionRooms.run(
                configuration: configuration, rooms: rooms, seed: request.roomSeed,
                ranges: try SessionRooms.ranges(request.roomRanges), output: request.output, options: batch
            ) { f in f.error.map(failure) }
            return Outcome(report: r, text: r.text, exitCode: 0)
        }
        if let sweep = request.sweep {
            let r = try SessionSweep.run(configuration: configuration, sweep: sweep, output: request.output)
            return Outcome(report: r, text: r.text, exitCode: 0)
        }
        let r = try SessionSimulator(configuration: configuration).run(outputDirectory: request.output)
        return Outcome(report: r, text: r.text, exitCode: 0)
    }
}
