/// A sample rate in frames per second.
///
/// Validated on construction: rates must be in `1...768_000` Hz, the range every tool in this
/// package accepts (768 kHz is the highest rate in common hardware).
public struct SampleRate: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The highest rate accepted anywhere in the toolkit.
    public static let maximumHz = 768_000

    /// The rate in frames per second, in `1...768_000`.
    public let hz: Int

    /// - Throws: `AudioPipelineError.invalidConfiguration` for 0, negative, or > 768 kHz.
    public init(_ hz: Int) throws(AudioPipelineError) {
        guard hz > 0 else {
            throw AudioPipelineError(.invalidConfiguration, "sample rate \(hz) Hz is not positive")
        }
        guard hz <= Self.maximumHz else {
            throw AudioPipelineError(
                .invalidConfiguration, "sample rate \(hz) Hz is above the supported maximum of \(Self.maximumHz) Hz")
        }
        self.hz = hz
    }

    public static func < (a: SampleRate, b: SampleRate) -> Bool { a.hz < b.hz }
    public var description: String { "\(hz) Hz" }

    /// Duration of `frames` frames, in seconds.
    public func seconds(frames: Int) -> Double { Double(frames) / Double(hz) }
    /// Number of whole frames in `milliseconds` (rounded to nearest).
    public func frames(milliseconds: Double) -> Int { Int((milliseconds * Double(hz) / 1000).rounded()) }
}
