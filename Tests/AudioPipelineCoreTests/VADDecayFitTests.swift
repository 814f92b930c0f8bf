import Foundation
import Testing

@testable import AudioPipelineCore

/// The room's fall fitted over the bands' runs of tail frames (VADDecayFit.swift).
struct VADDecayFitTests {
    private static let none = SIMDMask<SIMD8<Double>.MaskStorage>(repeating: false)
    private static let band0 = {
        var mask = none
        mask[0] = true
        return mask
    }()

    /// Feeds band 0 one run of `changes` from `frame` on, then a frame where it takes no part (the
    /// run ends); returns the frame after.
    private static func run(_ changes: [Double], from frame: Int, into fit: inout VADDecayFit) -> Int {
        var f = frame
        for c in changes {
            fit.add(frame: f, taking: band0, change: SIMD8(repeating: c))
            f += 1
        }
        fit.add(frame: f, taking: none, change: SIMD8())
        return f + 1
    }

    /// A run's slope is the least-squares line through its level: a straight fall is read within a
    /// bin, whatever the run's length.
    @Test func aStraightFallIsReadWithinABin() {
        for length in [1, 2, 7, 40] {
            var fit = VADDecayFit(window: 400)
            #expect(fit.isEmpty && fit.slope(or: 5) == 5)
            _ = Self.run([Double](repeating: -0.7, count: length), from: 10, into: &fit)
            #expect(abs(fit.slope(or: 0) + 0.7) <= VADDecayFit.step / 2, "length \(length): \(fit.slope(or: 0))")
        }
    }

    /// What the fit is for (halls' tails read too fast, 2026-12-06): most frames that hold the tail
    /// are the first of a short run and still fall with the direct path's last echo (here −2.5 dB a
    /// frame, one or two frames), while the room's tail falls 0.75 dB a frame with 3–4 dB of jitter
    /// over the few long runs. The median of the frames' changes reads the short runs' fall; the
    /// runs' weighted median reads the room's.
    @Test func longRunsOutweighTheFirstFramesOfShortOnes() {
        var fit = VADDecayFit(window: 10_000)
        var rng = SplitMix64(seed: 7)
        var frame = 0
        var changes: [Double] = []
        for k in 0..<200 {
            if k % 10 == 0 {
                // A long run: the room's fall and jitter (a level that jitters by ±3.5 dB a frame).
                var jitter = 0.0
                var run: [Double] = []
                for _ in 0..<12 {
                    let next = (Double(rng.next() >> 11) / Double(1 << 53) - 0.5) * 7
                    run.append(-0.75 + next - jitter)
                    jitter = next
                }
                changes += run
                frame = Self.run(run, from: frame, into: &fit)
            } else {
                let run = [Double](repeating: -2.5, count: 1 + k % 2)
                changes += run
                frame = Self.run(run, from: frame, into: &fit)
            }
        }
        let medianOfChanges = changes.sorted()[changes.count / 2]
        #expect(medianOfChanges < -2, "the frames' median \(medianOfChanges)")
        #expect(abs(fit.slope(or: 0) + 0.75) < 0.1, "fit \(fit.slope(or: 0))")
    }

    /// The weights are forgotten by `e` every `window` learning frames, through rescaling too: the fit
    /// is the weighted median of every ended run's slope with weight Σ(x − x̄)²·e^(frame/window),
    /// computed here from scratch (runs of random length and slope, some bands at once, frames
    /// between runs that learn nothing; a window of 10 frames rescales every ~2,300).
    @Test func theFitIsTheForgettingWeightedMedianOfTheRuns() {
        let window = 10
        var fit = VADDecayFit(window: window)
        var rng = SplitMix64(seed: 11)
        var ended: [(slope: Double, spread: Double, call: Int)] = []
        var open: [[Double]] = Array(repeating: [], count: 8)
        var last = [Int](repeating: -5, count: 8)
        var frame = 0
        var checks = 0
        for call in 0..<8_000 {
            frame += rng.next() % 16 == 0 ? 2 : 1
            var taking = Self.none
            var change = SIMD8<Double>()
            for b in 0..<8 {
                taking[b] = rng.next() % 5 != 0
                change[b] = Double(Int(rng.next() % 4001) - 3000) / 1000
            }
            for b in 0..<8 where !open[b].isEmpty && !(taking[b] && last[b] == frame - 1) {
                let n = Double(open[b].count + 1)
                var y = 0.0
                var sumY = 0.0
                var sumXY = 0.0
                for (i, c) in open[b].enumerated() {
                    y += c
                    sumY += y
                    sumXY += Double(i + 1) * y
                }
                let spread = n * (n * n - 1) / 12
                ended.append(((sumXY - (n - 1) / 2 * sumY) / spread, spread, call))
                open[b] = []
            }
            for b in 0..<8 where taking[b] {
                open[b].append(change[b])
                last[b] = frame
            }
            fit.add(frame: frame, taking: taking, change: change)
            guard call % 97 == 0, !ended.isEmpty else { continue }
            checks += 1
            #expect(fit.slope(or: .nan) == Self.weightedMedian(ended, now: call, window: window), "call \(call)")
        }
        #expect(checks > 50)
    }

    /// The centre of the bin of the weighted median (VADDecayFit's bins), weights relative to `now`.
    private static func weightedMedian(
        _ runs: [(slope: Double, spread: Double, call: Int)], now: Int, window: Int
    ) -> Double {
        var weights = [Double](repeating: 0, count: VADDecayFit.bins)
        for r in runs {
            let at = ((r.slope - VADDecayFit.lowest) / VADDecayFit.step).rounded(.down)
            let bin = Int(min(Double(VADDecayFit.bins - 1), max(0, at)))
            weights[bin] += r.spread * exp(Double(r.call - now) / Double(window))
        }
        let half = weights.reduce(0, +) / 2
        var sum = 0.0
        for (i, w) in weights.enumerated() {
            sum += w
            if sum >= half { return VADDecayFit.lowest + (Double(i) + 0.5) * VADDecayFit.step }
        }
        return .nan
    }
}
