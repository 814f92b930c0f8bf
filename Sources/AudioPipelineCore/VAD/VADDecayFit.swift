import RealModule

/// The room's fall per frame, fitted over each band's runs of tail frames (the echo model's
/// `learnDecay`, VADEchoModel+Reverb.swift).
///
/// A band's run: the frames in a row in which it holds the room's tail (over the direct path and
/// its quiet level). Each run's slope is the least-squares line through its level (the running sum
/// of its frames' changes, from the frame before the run), weighted by the spread of its frames'
/// times (Σ(x − x̄)², which grows as the cube of its length); the fall is the weighted median of the
/// slopes, its weights forgotten by `e` every `window` learning frames.
///
/// Why not the median of the frames' changes (the method until 2026-12-06): a 10 ms frame of a
/// band 150–800 Hz wide holds 3–16 degrees of freedom, and its level jitters by 3–5 dB from frame
/// to frame, as much as a hall's tail falls in five frames; and most frames that hold the tail are
/// the first of a short run, whose change still carries the last of the direct path's echo (in a
/// hall of 786 ms: the runs' first three frames fell 2.2 dB a frame at the median, the later ones
/// 0.7–0.9, the room 0.76). In 80 generated halls (RT60 400–900 ms, the two draws that chose the
/// fit) the median of the changes left 8 rooms at 0.8× their RT60 or faster (0.57× the worst), and a
/// tail expected too fast stopped the agent on its own echo; the fit leaves 2, both rooms whose
/// echo is too weak to measure (the configured RT60 stands). In 120 halls of three draws never used
/// to choose it: 17 → 4 (0.59× → 0.63× the worst) (docs/design/vad-experiments.md, "A hall's fall
/// fitted over runs").
struct VADDecayFit {
    /// The slopes the histogram holds, dB per frame (outside, the end bins), and its bin width.
    static let lowest = -8.0
    static let highest = 4.0
    static let step = 1.0 / 32
    static let bins = Int(((highest - lowest) / step).rounded())

    /// Per band: the run's changes so far (0: no run), its level (the sum of its changes), Σ y and
    /// Σ x·y over its points (x = 0 the frame before the run), the frame it last took.
    private var count = SIMD8<Double>()
    private var level = SIMD8<Double>()
    private var sumY = SIMD8<Double>()
    private var sumXY = SIMD8<Double>()
    private var lastFrame = SIMD8<Double>(repeating: -2)

    /// The weighted histogram of the runs' slopes, its total and the weight under the median's bin.
    /// A weight enters scaled by `scale`, which grows by `growth` every learning frame: the older
    /// weights are so forgotten relative to the new without touching the bins (they are scaled
    /// down together when `scale` grows large).
    private var weights: [Double]
    private var total = 0.0
    private var below = 0.0
    private var index = 0
    private var scale = 1.0
    private let growth: Double

    /// `window`: the learning frames over which a weight falls by `e`.
    init(window: Int) {
        weights = [Double](repeating: 0, count: Self.bins)
        growth = Double.exp(1 / Double(max(1, window)))
        index = Self.bins / 2
    }

    /// Whether a run has ended yet (the fall has a value).
    var isEmpty: Bool { total == 0 }

    /// The weighted median of the runs' slopes (the bin's centre), dB per frame; `fallback` before
    /// any run has ended.
    func slope(or fallback: Double) -> Double {
        isEmpty ? fallback : Self.lowest + (Double(index) + 0.5) * Self.step
    }

    /// One learning frame: `taking` marks the bands that hold the tail in frame `frame`, `change`
    /// their levels' change from the frame before. A run that does not go on (the band left the tail,
    /// or a frame between was not learnt from) ends and enters the histogram.
    mutating func add(frame: Int, taking: SIMDMask<SIMD8<Double>.MaskStorage>, change: SIMD8<Double>) {
        let now = SIMD8<Double>(repeating: Double(frame))
        let goesOn = taking .& (lastFrame .== now - 1)
        let ends = (count .> 0) .& .!goesOn
        if any(ends) { endRuns(ends) }
        // A run that does not go on starts from nothing; a band that takes this frame adds its point.
        count.replace(with: 0, where: .!goesOn)
        level.replace(with: 0, where: .!goesOn)
        sumY.replace(with: 0, where: .!goesOn)
        sumXY.replace(with: 0, where: .!goesOn)
        count = (count + 1).replacing(with: 0, where: .!taking)
        level = (level + change).replacing(with: 0, where: .!taking)
        sumY += level
        sumXY += count * level
        lastFrame.replace(with: now, where: taking)
        scale *= growth
        if scale > 1e100 { rescale() }
    }

    /// Forgets every run and slope.
    mutating func reset() {
        count = SIMD8()
        level = SIMD8()
        sumY = SIMD8()
        sumXY = SIMD8()
        lastFrame = SIMD8(repeating: -2)
        for i in weights.indices { weights[i] = 0 }
        total = 0
        below = 0
        index = Self.bins / 2
        scale = 1
    }

    /// The runs in `ends` enter the histogram: the least-squares slope through their points
    /// x = 0 … k (y₀ = 0), weighted by Σ(x − x̄)² = n(n² − 1)/12 for n = k + 1 points.
    private mutating func endRuns(_ ends: SIMDMask<SIMD8<Double>.MaskStorage>) {
        for b in 0..<8 where ends[b] {
            let n = count[b] + 1
            let spread = n * (n * n - 1) / 12
            let slope = (sumXY[b] - count[b] / 2 * sumY[b]) / spread
            guard slope.isFinite else { continue }
            let at = ((slope - Self.lowest) / Self.step).rounded(.down)
            let bin = at < 0 ? 0 : at >= Double(Self.bins - 1) ? Self.bins - 1 : Int(at)
            let w = spread * scale
            weights[bin] += w
            total += w
            if bin < index { below += w }
        }
        settle()
    }

    /// Moves `index` to the weighted median's bin: the first whose weights up to it hold half the total.
    private mutating func settle() {
        let half = total / 2
        while index > 0 && below >= half {
            index -= 1
            below -= weights[index]
        }
        while index < Self.bins - 1 && below + weights[index] < half {
            below += weights[index]
            index += 1
        }
    }

    /// Scales the weights down with `scale` (their ratios stay), and sums `below` anew.
    private mutating func rescale() {
        let s = 1 / scale
        for i in weights.indices { weights[i] *= s }
        total *= s
        below = 0
        for i in 0..<index { below += weights[i] }
        scale = 1
    }
}
