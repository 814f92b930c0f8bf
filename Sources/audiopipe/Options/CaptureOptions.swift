import ArgumentParser
import AudioPipelineWorkflows

/// How to read a captured session (deframe, jitter play).
struct CaptureOptions: ParsableArguments {
    @Option(help: ArgumentHelp(ProfileLoader.help + " Default: detected.")) var profile: String?
    @Flag(help: "Skip and count bad messages instead of stopping at the first.") var lenient = false

    func deframeOptions() throws -> DeframeOptions {
        var o = DeframeOptions()
        o.profile = try profile.map { try ProfileLoader.load($0) }
        o.lenient = lenient
        return o
    }
}
