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

enum DitherOption: String, ExpressibleByArgument, CaseIterable {
    case none, tpdf
}

/// The resampler names, for help texts.
let resamplerNames = ResamplerChoice.allCases.map(\.rawValue).joined(separator: ", ")
