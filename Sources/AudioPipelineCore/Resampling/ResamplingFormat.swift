/// The rates and channel count a resampler converts between, with the ratio reduced by their gcd.
public struct ResamplingFormat: Hashable, Sendable, CustomStringConvertible {
    /// Rate of the input.
    public let inputRate: SampleRate
    /// Rate of the output.
    public let outputRate: SampleRate
    /// Interleaved channels, the same in and out.
    public let channels: Int
    /// `outputRate / inputRate` reduced: `upFactor / downFactor` (48k→16k is 1/3, 44.1k→16k 160/441).
    public let upFactor: Int
    /// The reduced ratio's denominator (`inputRate / gcd`).
    public let downFactor: Int

    /// - Throws: `invalidConfiguration` for a channel count outside `1...1024`.
    public init(
        from inputRate: SampleRate, to outputRate: SampleRate, channels: Int = 1
    ) throws(AudioPipelineError) {
        guard (1...1024).contains(channels) else {
            throw AudioPipelineError(.invalidConfiguration, "channel count \(channels) is outside 1…1024")
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        let g = gcd(inputRate.hz, outputRate.hz)
        upFactor = outputRate.hz / g
        downFactor = inputRate.hz / g
    }

    /// `outputRate / inputRate`.
    public var ratio: Double { Double(outputRate.hz) / Double(inputRate.hz) }

    /// The documented total output length: `ceil(inputFrames × outputRate / inputRate)`, computed
    /// exactly in integers. Output frame *k* stands for time *k / outputRate*; it exists when that
    /// instant lies within the input's span [0, inputFrames / inputRate). Every resampler in the
    /// toolkit produces exactly this many frames once `finish` has returned 0 (48k→16k of 163 640
    /// frames gives 54 547; one frame gives one frame).
    public func totalOutputFrames(forInputFrames n: Int) -> Int {
        let a = n.multipliedFullWidth(by: outputRate.hz)
        let (q, r) = inputRate.hz.dividingFullWidth((high: a.high, low: a.low))
        return r > 0 ? q + 1 : q
    }

    public var description: String { "\(inputRate.hz) Hz → \(outputRate.hz) Hz, \(channels) ch" }
}
