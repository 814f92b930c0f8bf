import CVectorKernels
import Testing

@testable import AudioPipelineCore

/// The echo model's delay correlation kernels (`CVectorKernels/delaycorrelation.c`): the portable
/// one and, where the CPU has it, the AVX2 one give the same bits as the rule written out in Swift
/// below (each lag's products summed in band order, m + α·(x − m), the first largest score above
/// 0, magnitudes in four partial sums), over lag ranges that start anywhere in the ring, wrap
/// around it, and leave a remainder after the groups of four.
@Suite struct VADDelayKernel {
    struct Peak: Equatable {
        var peak: Double
        var magnitude: Double
        var lag: Int
    }

    /// The rule, on the changes as rows (`rows[slot]`, the frame `d` back at slot (head − d) mod ring).
    static func rule(
        scores: inout [Double], reference: inout [Double], rows: [SIMD8<Double>], powers: [Double], head: Int,
        mic: SIMD8<Double>, lags: ClosedRange<Int>, alpha: Double
    ) -> Peak {
        var best = [Double](repeating: 0, count: 4)
        var bestLag = [Int](repeating: lags.lowerBound, count: 4)
        var magnitude = [Double](repeating: 0, count: 4)
        for d in lags {
            let slot = (head - d + rows.count) % rows.count
            let s = scores[d] + alpha * ((mic * rows[slot]).sum() - scores[d])
            scores[d] = s
            let k = (d - lags.lowerBound) % 4
            if s > best[k] {
                best[k] = s
                bestLag[k] = d
            }
            magnitude[k] += abs(s)
            reference[d] += alpha * (powers[slot] - reference[d])
        }
        var out = Peak(
            peak: 0, magnitude: (magnitude[0] + magnitude[1]) + (magnitude[2] + magnitude[3]), lag: lags.lowerBound)
        for k in 0..<4 where best[k] > out.peak || (best[k] == out.peak && best[k] > 0 && bestLag[k] < out.lag) {
            out.peak = best[k]
            out.lag = bestLag[k]
        }
        return out
    }

    /// The model's own columns (`pushChange`, frame by frame as `update` writes them) against rows
    /// of the same changes, over lag ranges anywhere in the search range and beyond the ring's wrap.
    @Test func everyKernelGivesTheRulesBits() {
        var g = SplitMix64(seed: 77)
        for trial in 0..<40 {
            var model = VADEchoModel(configuration: VADConfiguration())
            let ring = model.history.count
            var rows = [SIMD8<Double>](repeating: SIMD8(), count: ring)
            var scores = (0..<(model.searchMax + 1)).map { _ in Double.random(in: -50...50, using: &g) }
            var reference = scores.map { abs($0) }
            for frame in 0..<(ring / 2 + trial * 17) {
                var change = SIMD8<Double>()
                for b in 0..<8 { change[b] = Double.random(in: -20...20, using: &g).rounded() / (b == 3 ? 3 : 1) }
                // Ties between lags: repeat a frame now and then.
                if frame > 0 && trial % 3 == 0 { change = rows[(model.head + ring - 1) % ring] }
                rows[model.head] = change
                model.pushChange(change)
                let low = Int.random(in: 0...5, using: &g)
                let lags = low...Int.random(in: low...model.searchMax, using: &g)
                var mic = SIMD8<Double>()
                for b in 0..<8 { mic[b] = Double.random(in: -20...20, using: &g) }
                let alpha = 1.0 / Double.random(in: 2...300, using: &g)
                var ruleScores = scores
                var ruleReference = reference
                let powers = rows.map { ($0 * $0).sum() }
                let expected = Self.rule(
                    scores: &ruleScores, reference: &ruleReference, rows: rows, powers: powers, head: model.head,
                    mic: mic, lags: lags, alpha: alpha)
                // The four lanes' peak is the one a single pass over the lags finds (the first
                // strictly largest score above 0), as the model's Swift loop had it.
                var singlePeak = 0.0
                var singleLag = lags.lowerBound
                for d in lags where ruleScores[d] > singlePeak {
                    singlePeak = ruleScores[d]
                    singleLag = d
                }
                #expect(expected.peak == singlePeak && expected.lag == singleLag, "trial \(trial), frame \(frame)")
                for level in 0...Int(cvk_delay_level()) {
                    var levelScores = scores
                    var levelReference = reference
                    let got = Self.correlate(
                        level: level, scores: &levelScores, reference: &levelReference, columns: model.changeColumns,
                        at: model.columnSlot, mic: mic, lags: lags, alpha: alpha)
                    #expect(got == expected, "trial \(trial), frame \(frame), level \(level), lags \(lags)")
                    #expect(levelScores == ruleScores, "trial \(trial), frame \(frame), level \(level)")
                    #expect(levelReference == ruleReference, "trial \(trial), frame \(frame), level \(level)")
                }
                // What `estimateDelay` calls: the best kernel this CPU has.
                let inUse = VADEchoModel.correlate(
                    scores: &scores, referenceScores: &reference, columns: model.changeColumns, at: model.columnSlot,
                    micChange: mic, lags: lags, alpha: alpha)
                #expect(Peak(peak: inUse.peak, magnitude: inUse.magnitude, lag: inUse.lag) == expected)
                #expect(scores == ruleScores && reference == ruleReference)
                // A frame's reference change read back as the watches read it.
                #expect(model.referenceChange(0) == change)
                model.head = model.head + 1 == ring ? 0 : model.head + 1
            }
        }
    }

    static func correlate(
        level: Int, scores: inout [Double], reference: inout [Double], columns: [Double], at: Int, mic: SIMD8<Double>,
        lags: ClosedRange<Int>, alpha: Double
    ) -> Peak {
        var m = mic
        let ring = columns.count / 18
        let got = scores.withUnsafeMutableBufferPointer { s in
            reference.withUnsafeMutableBufferPointer { r in
                columns.withUnsafeBufferPointer { c in
                    withUnsafeBytes(of: &m) { mp in
                        Self.run(
                            level: level, s.baseAddress!, r.baseAddress!, c.baseAddress!, ring, at,
                            mp.baseAddress!.assumingMemoryBound(to: Double.self), lags, alpha)
                    }
                }
            }
        }
        return Peak(peak: got.peak, magnitude: got.magnitude, lag: got.lag)
    }

    static func run(
        level: Int, _ s: UnsafeMutablePointer<Double>, _ r: UnsafeMutablePointer<Double>, _ c: UnsafePointer<Double>,
        _ ring: Int, _ at: Int, _ m: UnsafePointer<Double>, _ lags: ClosedRange<Int>, _ alpha: Double
    ) -> cvk_delay_peak {
        #if arch(x86_64)
            if level == 1 {
                return cvk_delay_correlate_avx2(s, r, c, ring, at, m, lags.lowerBound, lags.upperBound, alpha)
            }
        #endif
        return cvk_delay_correlate(s, r, c, ring, at, m, lags.lowerBound, lags.upperBound, alpha)
    }

    /// No lag scores above 0: the peak is 0 at the range's first lag (as the model's loop had it).
    @Test func noPositiveScoreGivesTheFirstLag() {
        var model = VADEchoModel(configuration: VADConfiguration())
        let ring = model.history.count
        for _ in 0..<ring {
            model.pushChange(SIMD8(repeating: 1))
            model.head = model.head + 1 == ring ? 0 : model.head + 1
        }
        for level in 0...Int(cvk_delay_level()) {
            var scores = [Double](repeating: 0, count: 12)
            var reference = scores
            let got = Self.correlate(
                level: level, scores: &scores, reference: &reference, columns: model.changeColumns,
                at: model.columnSlot, mic: SIMD8(repeating: -1), lags: 2...9, alpha: 0.5)
            #expect(got.peak == 0 && got.lag == 2, "level \(level)")
            #expect(got.magnitude == 8 * 4, "level \(level): 8 lags at |−8 · 0.5|")
            #expect(scores[2...9].allSatisfy { $0 == -4 } && scores[0] == 0 && scores[10] == 0, "level \(level)")
            #expect(reference[2...9].allSatisfy { $0 == 4 }, "level \(level)")
        }
    }
}
