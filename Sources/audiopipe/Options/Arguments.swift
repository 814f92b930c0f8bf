import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows

extension SampleEncoding: ExpressibleByArgument {}
extension OutputFileType: ExpressibleByArgument {}
extension PCMCompatibility: ExpressibleByArgument {}
extension ResamplerChoice: ExpressibleByArgument {}
extension WireDirection: ExpressibleByArgument {}
extension Chunker<Int16>.LastChunk: ExpressibleByArgument {}
extension LabelFormat: ExpressibleByArgument {}
extension VADSweep.Objective: ExpressibleByArgument {}
extension FrameworkVAD: ExpressibleByArgument {}

enum DitherOption: String, ExpressibleByArgument, CaseIterable {
    case none, tpdf
}

/// The resampler names, for help texts.
let resamplerNames = ResamplerChoice.allCases.map(\.rawValue).joined(separator: ", ")

/// `-o, --output FILE`, the data output of a command (its property is `outputPath`, beside the
/// `output` option group).
let dataOutput: NameSpecification = [.customShort("o"), .customLong("output")]

/// Help for a data output, shown as `--output <output>`.
func help(_ text: String) -> ArgumentHelp { ArgumentHelp(text, valueName: "output") }

extension SingleValueParsingStrategy {
    /// For every option that takes a number: the next argument is its value even when it starts
    /// with a minus, so `--echo-gain-db -6` works as people type it (by default the parser reads
    /// `-6` as an option and says "Missing value"). `make format-check` checks that every numeric
    /// option uses it.
    static var number: SingleValueParsingStrategy { .unconditional }
}

/// `--chunk-ms`: one meaning (audio per message) and one range wherever it is taken.
enum ChunkOption {
    static let help = ArgumentHelp("Audio per message, ms (\(OptionHelp.chunkRange)).")
    static func check(_ ms: Double) throws {
        if !CapturePath.Configuration.chunkMillisecondsRange.contains(ms) {
            throw ValidationError("--chunk-ms must be in \(OptionHelp.chunkRange) ms, not \(ms)")
        }
    }
}
