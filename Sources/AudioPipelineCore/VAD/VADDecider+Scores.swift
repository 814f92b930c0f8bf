/// The decider's per-frame figures that hold no state: split from VADDecider.swift (the core's
/// file-size rule).
extension VADDecider {
    /// The frame's score: the mean of its two largest band excesses (the bands where speech stands
    /// out, robust to one noisy band).
    @inline(__always)
    static func meanOfTwoLargest(_ excess: SIMD8<Double>, count: Int) -> Double {
        var first = -Double.infinity
        var second = -Double.infinity
        for b in 0..<count {
            let v = excess[b]
            if v > first {
                second = first
                first = v
            } else if v > second {
                second = v
            }
        }
        return (first + second) / 2
    }

    /// The band levels of powers `p`, dB: eight bands (the reference's steep ones) by `fastDB`,
    /// four as they always were; lanes past `count` at −140.
    @inline(__always)
    static func bandLevels(_ p: SIMD8<Double>, count: Int) -> SIMD8<Double> {
        if count == 8 { return fastDB(p) }
        var m = SIMD8<Double>(repeating: -140)
        for b in 0..<count { m[b] = db(p[b]) }
        return m
    }

    /// Late: the quarters' power over the noise floor (above 300 Hz, `floor`) jumped by `jumpRatio`
    /// or more into the third or the last quarter (a quarter at the floor counts as a tenth of it)
    /// and peaks there: the sound began in the frame's second half.
    @inline(__always)
    static func lateOnset(_ quarters: SIMD4<Float>, floor: Double, jumpRatio: Float) -> Bool {
        let q = quarters - Float(floor)
        let least = Float(0.1 * floor)
        return max(q[2], q[3]) >= q.max()
            && (q[2] > jumpRatio * max(q[1], least) || q[3] > jumpRatio * max(q[2], least))
    }

    /// How far over the noise's own score a frame must rise to count as an onset's lead-in, dB, at
    /// least: over the exit threshold alone (1.5 dB), a frame of steady noise that happened to
    /// fluctuate up became the lead-in of a click in the next frame, which then opened speech (2 of
    /// 200 noise draws in a test; false triggers on the click items 1.09 and 0.82 per minute). At
    /// 3 dB: none of 200, 0.00 and 0.27 per minute, and on the dev items F1, fresh-onset latency p50
    /// and p90 unchanged (docs/design/vad-experiments.md).
    static let leadInMinimum = 3.0
}
