import AudioPipelineCore

/// The process exit codes of `audiopipe`, from BSD sysexits.h (documented in the README and
/// `--help`), and the one mapping from error codes to them — also what a batch reports per file.
public enum ExitStatus: Int32, Sendable {
    /// The job did what was asked.
    case success = 0
    /// A check the user asked for failed: a `bench` budget exceeded, a `bench compare` regression,
    /// no `vad tune` setting meeting the limits.
    case checkFailed = 1
    /// A bad option or configuration.
    case usage = 64
    /// Corrupt, truncated or unsupported input.
    case dataError = 65
    /// Input missing or unreadable.
    case noInput = 66
    /// Output cannot be created.
    case cannotCreate = 73
    /// I/O error part-way.
    case ioError = 74

    /// The exit status of an error of `code`.
    public init(_ code: AudioPipelineError.Code) {
        switch code {
        case .invalidConfiguration: self = .usage
        case .invalidData, .unsupportedFormat: self = .dataError
        case .inputUnavailable: self = .noInput
        case .outputFailed: self = .cannotCreate
        default: self = .ioError
        }
    }
}
