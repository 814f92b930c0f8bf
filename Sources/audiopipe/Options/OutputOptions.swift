import ArgumentParser

/// How a command reports: every leaf command takes these.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON.") var json = false
    @Flag(name: [.short, .long], help: "Print nothing but errors.") var quiet = false
    @Flag(help: "Never draw a progress bar.") var noProgress = false

    /// A progress bar on stderr when it is a terminal (and neither --quiet nor --no-progress).
    func progressBar() -> ProgressBar { ProgressBar(enabled: !quiet && !noProgress) }
}
