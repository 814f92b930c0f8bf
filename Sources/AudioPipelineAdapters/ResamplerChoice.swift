import AudioPipelineCore

/// The resamplers a command can use, by the names the CLI accepts.
public enum ResamplerChoice: String, Sendable, CaseIterable, CustomStringConvertible {
    case srcBest = "src-best"
    case srcMedium = "src-medium"
    case srcFastest = "src-fastest"
    case srcLinear = "src-linear"
    case srcZOH = "src-zoh"

    /// libsamplerate's best sinc: the highest quality available until the native resampler lands.
    public static let `default`: ResamplerChoice = .srcBest

    public var description: String { rawValue }

    /// A new resampler of this kind for `format`.
    public func make(_ format: ResamplingFormat) throws(AudioPipelineError) -> any Resampler {
        switch self {
        case .srcBest: return try LibSampleRateResampler(format: format, converter: .sincBest)
        case .srcMedium: return try LibSampleRateResampler(format: format, converter: .sincMedium)
        case .srcFastest: return try LibSampleRateResampler(format: format, converter: .sincFastest)
        case .srcLinear: return try LibSampleRateResampler(format: format, converter: .linear)
        case .srcZOH: return try LibSampleRateResampler(format: format, converter: .zeroOrderHold)
        }
    }
}
