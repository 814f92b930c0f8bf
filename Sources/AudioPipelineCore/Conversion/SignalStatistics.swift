/// Running level statistics of an interleaved stream, as `soxi` + `sox -n stats` report them.
///
/// Feed blocks with `accumulate(_:)`; read the results at any time. Levels are in dBFS relative to
/// a full-scale square wave (sox's convention: a full-scale sine has RMS −3.01 dBFS).
///
/// A sample counts as *clipped* when it is at or beyond full scale: `x ≥ positiveFullScale` or
/// `x ≤ −1`. For an integer file `positiveFullScale` is the largest code (32767/32768 for PCM16),
/// so a run of maximal codes counts; for a float file it is 1.0, so only |x| ≥ 1 counts.
public struct SignalStatistics: Sendable {
    /// Interleaved channels of the stream.
    public let channels: Int
    /// The positive sample value that counts as full scale (1.0 for float, 32767/32768 for PCM16).
    public let positiveFullScale: Float
    /// Frames accumulated so far.
    public private(set) var frames = 0
    /// Samples at or beyond full scale so far (all channels).
    public private(set) var clippedSamples = 0
    private var peaks: [Float]
    private var sums: [Double]
    private var sumSquares: [Double]

    /// Statistics of a stream of `channels` interleaved channels whose full scale is `positiveFullScale`.
    public init(channels: Int, positiveFullScale: Float = 1.0) {
        precondition(channels >= 1)
        self.channels = channels
        self.positiveFullScale = positiveFullScale
        peaks = Array(repeating: 0, count: channels)
        sums = Array(repeating: 0, count: channels)
        sumSquares = Array(repeating: 0, count: channels)
    }

    /// Adds whole frames of interleaved samples (a trailing partial frame is ignored). NaNs are
    /// ignored for peak and clipping but propagate into RMS and DC, as they would in any sum.
    public mutating func accumulate(_ block: UnsafeBufferPointer<Float>) {
        let n = block.count / channels
        guard n > 0 else { return }
        for c in 0..<channels {
            var peak = peaks[c]
            var s: Double = 0, ss: Double = 0
            var clipped = 0
            var i = c
            for _ in 0..<n {
                let x = block[i]
                let a = abs(x)
                if a > peak { peak = a }
                if x >= positiveFullScale || x <= -1 { clipped &+= 1 }
                let d = Double(x)
                s += d
                ss += d * d
                i &+= channels
            }
            peaks[c] = peak
            sums[c] += s
            sumSquares[c] += ss
            clippedSamples &+= clipped
        }
        frames &+= n
    }

    /// Largest absolute sample value over all channels (linear, 1.0 = full scale).
    public var peak: Float { peaks.max() ?? 0 }
    /// Peak of one channel.
    public func peak(channel c: Int) -> Float { peaks[c] }
    /// Root mean square over all samples of all channels (linear).
    public var rms: Double {
        frames == 0 ? 0 : (sumSquares.reduce(0, +) / Double(frames * channels)).squareRoot()
    }
    /// Root mean square of channel `c` (linear).
    public func rms(channel c: Int) -> Double { frames == 0 ? 0 : (sumSquares[c] / Double(frames)).squareRoot() }
    /// Mean sample value over all channels (DC offset, linear).
    public var dcOffset: Double { frames == 0 ? 0 : sums.reduce(0, +) / Double(frames * channels) }
    /// Mean sample value of channel `c` (DC offset, linear).
    public func dcOffset(channel c: Int) -> Double { frames == 0 ? 0 : sums[c] / Double(frames) }

    /// 20·log10(x); −∞ for silence.
    public static func dBFS(_ linear: Double) -> Double { amplitudeDB(linear) }
}

extension SignalStatistics {
    /// How many leading samples of `x[0 ..< count]` are known to be finite, scanned with the C
    /// vector kernels where the CPU has them (whole groups of 32 or 64 samples; 0 without them, or
    /// when the first group holds a NaN or an infinity): a reader checks the rest itself.
    /// - Parameters:
    ///   - x: the samples.
    ///   - count: how many.
    /// - Returns: a prefix length in `0...count` whose samples are all finite.
    public static func finitePrefix(_ x: UnsafePointer<Float>, count: Int) -> Int {
        PCMKernels.finitePrefix(x, count)
    }
}
