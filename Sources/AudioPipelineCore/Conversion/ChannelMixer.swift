import CVectorKernels

/// Interleaved multichannel → mono: the mean of all channels, or one selected channel.
///
/// Frame-wise: `consumed` counts input frames, `produced` output (mono) samples. Stateless, latency 0.
/// The mean is `sum × (1 / channels)`, summed in channel order; for stereo that is `(L + R) × 0.5`,
/// exactly what sox's `-c 1` and libsndfile-based tools compute.
public struct ChannelMixer: StreamingStage, Sendable {
    /// Which mono signal the mixer makes.
    public enum Mode: Sendable, Hashable {
        /// The mean of all channels.
        case mean
        /// One channel, counted from 0.
        case channel(Int)
    }

    /// Interleaved channels of the input.
    public let channels: Int
    /// The mean of all channels, or one of them.
    public let mode: Mode

    /// - Throws: `invalidConfiguration` when `channels < 1` or the selected channel does not exist.
    public init(channels: Int, mode: Mode = .mean) throws(AudioPipelineError) {
        guard channels >= 1 else {
            throw AudioPipelineError(.invalidConfiguration, "channel count \(channels) is not positive")
        }
        if case .channel(let k) = mode, !(0..<channels).contains(k) {
            throw AudioPipelineError(
                .invalidConfiguration,
                "channel \(k) does not exist: the input has \(channels) channel(s), numbered 0…\(channels - 1)")
        }
        self.channels = channels
        self.mode = mode
    }

    /// 0: each output sample depends only on its own frame.
    public var latency: Int { 0 }
    public var inputStride: Int { channels }
    /// One mono sample per input frame.
    public func maxOutputCount(forInput frames: Int) -> Int { frames }
    /// Nothing to flush: writes 0.
    public mutating func finish(into output: UnsafeMutableBufferPointer<Float>) -> Int { 0 }
    /// Stateless: nothing to forget.
    public mutating func reset() {}

    /// Mixes `min(input.count / channels, output.count)` whole frames. A trailing partial frame in
    /// `input` is not consumed.
    public mutating func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
        let frames = Swift.min(input.count / channels, output.count)
        guard frames > 0, let src = input.baseAddress, let dst = output.baseAddress else {
            return ProcessResult(consumed: 0, produced: 0)
        }
        switch mode {
        case .channel(let k):
            if channels == 1 {
                dst.update(from: src, count: frames)
            } else {
                for f in 0..<frames { dst[f] = src[f &* channels &+ k] }
            }
        case .mean:
            if channels == 1 {
                dst.update(from: src, count: frames)
            } else if channels == 2 {
                Self.stereoMean(src, dst, frames)
            } else {
                let inv = 1 / Float(channels)
                for f in 0..<frames {
                    let base = src + f &* channels
                    var sum: Float = base[0]
                    for c in 1..<channels { sum += base[c] }
                    dst[f] = sum * inv
                }
            }
        }
        return ProcessResult(consumed: frames, produced: frames)
    }

    @inline(__always)
    static func stereoMean(
        _ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, _ frames: Int, kernel: VectorKernel = .best
    ) {
        var f = 0
        if kernel == .best && PCMKernels.vectorized { f = cvk_stereo_mean(src, dst, frames) }
        let half = SIMD8<Float>(repeating: 0.5)
        let raw = UnsafeRawPointer(src), out = UnsafeMutableRawPointer(dst)
        while f &+ 8 <= frames {
            let v = raw.loadUnaligned(fromByteOffset: f &* 8, as: SIMD16<Float>.self)
            out.storeBytes(of: (v.evenHalf + v.oddHalf) * half, toByteOffset: f &* 4, as: SIMD8<Float>.self)
            f &+= 8
        }
        while f < frames {
            dst[f] = (src[2 &* f] + src[2 &* f &+ 1]) * 0.5
            f &+= 1
        }
    }
}
