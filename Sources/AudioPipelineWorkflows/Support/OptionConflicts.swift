import AudioPipelineCore

/// Options that another option given with them would silently ignore, refused before anything
/// runs (as `SessionModes.refuseConflicts` does for `session simulate`'s modes).
public enum OptionConflicts {
    /// `arguments`: the command line after the program's name (`vad detect mic.wav --scores …`).
    /// Refuses:
    /// - `bench --iterations` with `--duration` (the chunks per row, or the time they fill);
    /// - the energy VAD's parameters (`--enter-db`, `--param NAME=…`) with `vad detect --scores` or
    ///   `vad tune --emulate`, which run a framework's VAD instead, and `vad detect --resampler` with
    ///   `--scores` (no reference is read);
    /// - `--quantile` with `--policy fixed:MS` (`JitterSettings.validate` refuses the other
    ///   adaptive options);
    /// - `--shards` without `--shard auto`;
    /// - `info --name` (info writes no files).
    ///
    /// - Throws: a usage error (exit code 64) naming the option to drop or to add.
    public static func refuse(_ arguments: [String]) throws(AudioPipelineError) {
        // The command's name: a group's (vad, jitter, analyze, session) is two words.
        let words = ["vad", "jitter", "analyze", "session"].contains(arguments.first ?? "") ? 2 : 1
        let command = arguments.prefix(words).joined(separator: " ")
        let given = SessionModes.given(Array(arguments.dropFirst(words)))
        func has(_ name: String) -> Bool { given[name] != nil }
        if command == "bench", has("--iterations"), has("--duration") {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--iterations fixes the chunks per row, which --duration would set from the time: give one")
        }
        let framework = command == "vad detect" ? "--scores" : command == "vad tune" ? "--emulate" : nil
        if let framework, has(framework), let energy = energyParameters(given).first {
            let settings =
                framework == "--scores" ? "--config is the framework's" : "--config and --set are the framework's"
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(energy) sets the energy VAD, which \(framework) does not run (\(settings) there): drop \(energy)")
        }
        if framework == "--scores", has("--scores"), has("--resampler") {
            throw AudioPipelineError(
                .invalidConfiguration, "--resampler is for a reference, and --scores reads none: drop --resampler")
        }
        if let policy = given["--policy"] ?? nil, policy.hasPrefix("fixed:"), has("--quantile") {
            throw AudioPipelineError(
                .invalidConfiguration, "--quantile tunes the adaptive policy, not --policy \(policy): drop --quantile")
        }
        if has("--shards"), (given["--shard"] ?? nil) != "auto" {
            throw AudioPipelineError(
                .invalidConfiguration, "--shards is the number of shards of --shard auto: give --shard auto")
        }
        if command == "info", has("--name") {
            throw AudioPipelineError(
                .invalidConfiguration, "--name names the output files under -o DIR, and info writes none: drop --name")
        }
    }

    /// The energy VAD's options given (`--enter-db`, `--param enter_db`), in the order of its parameters.
    static func energyParameters(_ given: [String: String?]) -> [String] {
        VADConfiguration.parameterNames.flatMap { name in
            ["--" + String(name.map { $0 == "_" ? "-" : $0 }), "--param " + name]
        }.filter { given[$0] != nil }
    }
}
