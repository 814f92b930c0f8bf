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
