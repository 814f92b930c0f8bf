/// The one error type of the AudioPipeline libraries.
///
/// Modelled on swift-subprocess's `SubprocessError`: a struct with an extensible `Code` and a message
/// a person can act on. Only configuration and I/O throw; the per-chunk hot path never does.
public struct AudioPipelineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes can be added without breaking callers that switch on
    /// `rawValue` ranges or compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's number: 1–6 are the toolkit's own (`invalidConfiguration` … `ioFailure`).
        public let rawValue: Int
        /// A code by its number; the static members name the known ones.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A parameter out of range or inconsistent (sample rate 0, unknown channel, ratio …).
        public static let invalidConfiguration = Code(rawValue: 1)
        /// Input data that cannot be understood (corrupt header, bad record, odd byte count …).
        public static let invalidData = Code(rawValue: 2)
        /// A file or encoding the toolkit does not handle.
        public static let unsupportedFormat = Code(rawValue: 3)
        /// The input does not exist or cannot be opened for reading.
        public static let inputUnavailable = Code(rawValue: 4)
        /// The output cannot be created, written or renamed into place.
        public static let outputFailed = Code(rawValue: 5)
        /// A read or write failed part-way.
        public static let ioFailure = Code(rawValue: 6)

        public var description: String {
            switch self {
            case .invalidConfiguration: return "invalid configuration"
            case .invalidData: return "invalid data"
            case .unsupportedFormat: return "unsupported format"
            case .inputUnavailable: return "input unavailable"
            case .outputFailed: return "output failed"
            case .ioFailure: return "I/O failure"
            default: return "error \(rawValue)"
            }
        }
    }

    /// What kind of failure this is; the CLI maps it to its exit code.
    public let code: Code
    /// One line a person can act on, naming the thing that is wrong (file, parameter, offset).
    public let message: String

    /// An error of kind `code` with a message a person can act on (name the file, option or offset).
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
