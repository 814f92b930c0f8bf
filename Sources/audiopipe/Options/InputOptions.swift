import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore

/// How to read a headerless raw input (libsndfile cannot guess it).
struct RawInputOptions: ParsableArguments {
    @Option(name: .customLong("in-rate"), parsing: .number, help: "Sample rate of a raw input, Hz.") var rate: Int?
    @Option(name: .customLong("in-channels"), parsing: .number, help: "Channels of a raw input.") var channels: Int?
    @Option(
        name: .customLong("in-encoding"),
        help: ArgumentHelp(
            "Encoding of a raw input: \(SampleEncoding.allCases.map(\.rawValue).joined(separator: ", ")) "
                + "(little-endian).")
    )
    var encoding: SampleEncoding?
    @Flag(help: "A truncated input (shorter than its header says) is an error, not a warning.") var strict = false

    /// The raw format, when any raw option is given; all three are then required.
    func rawFormat() throws -> RawFormat? {
        if rate == nil && channels == nil && encoding == nil { return nil }
        guard let rate, let channels, let encoding else {
            throw ValidationError("a raw input needs all of --in-rate, --in-channels and --in-encoding")
        }
        do {
            return RawFormat(
                format: try StreamFormat(sampleRate: try SampleRate(rate), channels: channels), encoding: encoding)
        } catch {
            throw AudioPipelineError(.invalidConfiguration, "--in-rate/--in-channels: \(error.message)")
        }
    }
}
