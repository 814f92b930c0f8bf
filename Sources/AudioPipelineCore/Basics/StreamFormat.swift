/// Rate and channel count of an interleaved stream. A *frame* holds one sample per channel;
/// buffers are interleaved, so `samples = frames × channels`.
public struct StreamFormat: Hashable, Sendable, CustomStringConvertible {
    /// Frames per second.
    public let sampleRate: SampleRate
    /// Interleaved channels per frame, in `1...1024`.
    public let channels: Int

    /// - Throws: `invalidConfiguration` when `channels` is not in `1...1024`.
    public init(sampleRate: SampleRate, channels: Int) throws(AudioPipelineError) {
        guard channels >= 1 else {
            throw AudioPipelineError(.invalidConfiguration, "channel count \(channels) is not positive")
        }
        guard channels <= 1024 else {
            throw AudioPipelineError(.invalidConfiguration, "channel count \(channels) is above 1024")
        }
        self.sampleRate = sampleRate
        self.channels = channels
    }

    public var description: String { "\(sampleRate.hz) Hz, \(channels) ch" }
}
