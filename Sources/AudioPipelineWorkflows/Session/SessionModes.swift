import AudioPipelineCore

/// `session simulate`'s modes — one conversation, a sweep, a folder of scenarios, random rooms —
/// and the options each takes: an option another one would silently override is refused.
public enum SessionModes {
    /// The options that neither set the conversation nor a mode: where the outputs go and how the
    /// run reports (`--scenarios` takes them as every mode does).
    static let reportingOptions: Set = [
        "--scenarios", "--jobs", "--output", "-o", "--json", "--quiet", "-q", "--no-progress",
    ]

    /// The options on a command line (`--name VALUE`, `--name=VALUE`, a flag; short `-o` and `-q`), by
    /// name, each with its value as given ("" for a flag; the first of a repeated one), and
    /// `--param NAME` for each `--param NAME=VALUE`: which options the user set, where an option's
    /// default is indistinguishable from its value. Read from the arguments as ArgumentParser reads
    /// them (`session simulate` takes no positional argument: a word after an option is its value).
    public static func given(_ arguments: [String]) -> [String: String?] {
        var given: [String: String?] = [:]
        var k = 0
        while k < arguments.count, arguments[k] != "--" {
            let word = arguments[k]
            k += 1
            guard word.hasPrefix("-"), word.count > 1, Double(word) == nil else { continue }
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            var value = parts.count == 2 ? parts[1] : ""
            if parts.count == 1, k < arguments.count, !arguments[k].hasPrefix("-") || Double(arguments[k]) != nil {
                value = arguments[k]
                k += 1
            }
            let name =
                parts[0] == "--param"
                ? "--param " + (value.split(separator: "=").first.map(String.init) ?? "") : parts[0]
            if given[name] == nil { given[name] = value }
        }
        return given
    }

    /// `given`: the options given, by name (`SessionModes.given`). With `--scenarios` every setting
    /// comes from the files, so any option that sets the conversation is refused; with `--rooms`,
    /// `--seed` (each room is seeded from `--room-seed`) and `--echo-ir` (the rooms draw the echo
    /// path); with `--sweep NAME`, the option that sets NAME; `--room` and `--room-seed` without
    /// `--rooms`; `--no-echo` with the echo's delay or gain. Throws a usage error (exit code 64)
    /// naming the option to drop or to add.
    public static func refuseConflicts(_ given: [String: String?]) throws(AudioPipelineError) {
        func has(_ name: String) -> Bool { (given[name] ?? nil) != nil }
        let setting = given.keys.filter { has($0) && !reportingOptions.contains($0) }.sorted()
        if has("--scenarios"), let first = setting.first(where: { $0 != "--rooms" }) {
            throw AudioPipelineError(
                .invalidConfiguration, "--scenarios takes every setting from its scenario files; drop \(first)")
        }
        if has("--no-echo"), let echo = ["--echo-delay-ms", "--echo-gain-db"].first(where: has) {
            throw AudioPipelineError(
                .invalidConfiguration, "--no-echo leaves no echo path for \(echo): give one of them")
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
        if has("--rooms") && has("--seed") {
            throw AudioPipelineError(
                .invalidConfiguration, "--rooms seeds each room from --room-seed (room i: seed + i): drop --seed")
        }
        if has("--rooms") && has("--echo-ir") {
            throw AudioPipelineError(
                .invalidConfiguration, "--rooms draws the echo path; --echo-ir gives one: drop one of them")
        }
        if !has("--rooms") && has("--room") {
            throw AudioPipelineError(.invalidConfiguration, "--room sets a range of --rooms: give --rooms N")
        }
        if !has("--rooms") && has("--room-seed") {
            throw AudioPipelineError(.invalidConfiguration, "--room-seed seeds the rooms --rooms draws: give --rooms N")
        }
        if let sweep = given["--sweep"] ?? nil {
            let name = sweep.split(separator: "=", maxSplits: 1).first.map(String.init) ?? sweep
            if let option = settingOption(name, given: given) {
                throw AudioPipelineError(
                    .invalidConfiguration, "--sweep \(name) varies what \(spoken(option)) sets: drop \(spoken(option))")
            }
        }
    }

    /// The room parameters that options given with `--rooms` fix in every room (as `--room
    /// NAME=VALUE` would): `--echo-delay-ms`, `--echo-gain-db`, `--noise-dbfs`, and the jitter of a
    /// `--network` that names one — from `configuration`, which holds their values. Refuses one that
    /// `ranges` (the `--room` values) names too.
    public static func fixedInRooms(
        _ given: [String: String?], ranges: [String], configuration c: SessionConfiguration
    ) throws(AudioPipelineError) -> [String] {
        guard (given["--rooms"] ?? nil) != nil else { return [] }
        let fixed: [(option: String, name: String, value: Double?)] = [
            ("--echo-delay-ms", "echo_delay_ms", c.echo.delayMs), ("--echo-gain-db", "echo_gain_db", c.echo.gainDb),
            ("--noise-dbfs", "noise_dbfs", c.noiseDbfs), ("--network jitter", "jitter_ms", c.network.jitterMs),
        ]
        let given = given.merging(networkFigures(given)) { a, _ in a }
        var out: [String] = []
        for f in fixed where (given[f.option] ?? nil) != nil {
            guard let value = f.value else { continue }
            if ranges.contains(where: { $0.split(separator: "=").first.map(String.init) == f.name }) {
                let message = "\(spoken(f.option)) fixes \(f.name) in every room, and --room \(f.name)=… draws it"
                throw AudioPipelineError(.invalidConfiguration, message + ": give one of them")
            }
            out.append("\(f.name)=\(value)")
        }
        return out
    }

    /// The option given that sets the `--sweep` parameter `name` (nil: none): a session setting's
    /// own option, `--network NAME` for a figure the `--network` value names, a VAD parameter's own
    /// option or `--param NAME`.
    static func settingOption(_ name: String, given: [String: String?]) -> String? {
        let given = given.merging(networkFigures(given)) { a, _ in a }
        let session = [
            "echo_gain_db": "--echo-gain-db", "echo_delay_ms": "--echo-delay-ms", "noise_dbfs": "--noise-dbfs",
            "min_barge_in_ms": "--min-barge-in-ms", "ignore_first_ms": "--ignore-first-ms",
            "jitter_ms": "--network jitter", "delay_ms": "--network delay", "loss_pct": "--network loss",
        ]
        let candidates = [session[name], "--" + String(name.map { $0 == "_" ? "-" : $0 }), "--param " + name]
        return candidates.compactMap { $0 }.first { (given[$0] ?? nil) != nil }
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

    /// The figures a `--network` value names, as options (`--network jitter`: its value): only those
    /// are set by it; the others keep `NetworkConditions`' defaults, which a sweep or a room may vary.
    static func networkFigures(_ given: [String: String?]) -> [String: String?] {
        guard let network = given["--network"] ?? nil else { return [:] }
        var figures: [String: String?] = [:]
        for item in network.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            if let name = parts.first {
                figures["--network " + name.trimmingCharacters(in: .whitespaces)] = String(item)
            }
        }
        return figures
    }

    /// An option as `networkFigures` names it, for people: `--network jitter` → `--network's jitter=`.
    static func spoken(_ option: String) -> String {
        option.hasPrefix("--network ") ? "--network's \(option.dropFirst("--network ".count))=" : option
    }
}
