import CVectorKernels

/// The echo model's delay estimate and the reference's onsets: split from VADEchoModel.swift (the
/// core's file-size rule); part of the per-frame path `update` describes.
extension VADEchoModel {
    /// Which delay correlation kernel runs (`cvk_delay_level`): 1 AVX2, 0 the portable one.
    static let delayKernelLevel = Int(cvk_delay_level())

    /// Change of clipped band levels (dB), clipped: loud onsets count, not silence's −140 dB.
    @inline(__always)
    static func change(_ now: SIMD8<Double>, from before: SIMD8<Double>) -> SIMD8<Double> {
        let lo = SIMD8<Double>(repeating: -100)
        let hi = SIMD8<Double>(repeating: 0)
        let d = clampLanes(now, lo, hi) - clampLanes(before, lo, hi)
        return clampLanes(d, SIMD8(repeating: -20), SIMD8(repeating: 20))
    }

    /// Updates the correlation while the reference plays in the window; once it is confident,
    /// takes its direct-path lag as the delay when it has pointed there (within a frame) for half
    /// of `echoDelaySmoothingSeconds` of updates in a row and there is no delay yet, or for the whole
    /// of it two frames or more away from the delay (a room that changed, not a burst of double
    /// talk); then the tracked gain starts learning anew.
    @inline(__always)
    mutating func estimateDelay(micChange: SIMD8<Double>, active: Bool) {
        guard active, decay > 0 else { return }
        let correlation = Self.correlate(
            scores: &scores, referenceScores: &referenceScores, columns: changeColumns, at: columnSlot,
            micChange: micChange, lags: searchMin...searchMax, alpha: alpha)
        let peak = correlation.peak
        let magnitude = correlation.magnitude
        let peakLag = correlation.lag
        micChangePower += alpha * ((micChange * micChange).sum() - micChangePower)
        scored += 1
        let mean = magnitude / Double(searchMax - searchMin + 1)
        // Whether the delay in use would still be found: its direct path's lags still stand out.
        // (Found during the user's words, before he was heard, it may be wrong; its correlation then
        // falls under the mean while the true lag's peak waits to explain enough for a move.)
        if let d = delay {
            var atDelay = scores[d]
            if d + 1 <= searchMax { atDelay = max(atDelay, scores[d + 1]) }
            if d + 2 <= searchMax { atDelay = max(atDelay, scores[d + 2]) }
            delayStandsOut = atDelay > 0 && atDelay >= Self.confidence * mean
        }
        guard scored >= warmUp, peak > 0, peak >= Self.confidence * mean else { return }
        // The direct path: the start of the peak's main lobe, where it falls below half the peak.
        var first = peakLag
        while first > searchMin && scores[first - 1] >= peak / 2 { first -= 1 }
        let found = first
        if let d = delay, abs(d - found) < 3 {
            candidateUpdates = 0
            return
        }
        // A first estimate must hold half the warm-up, a new one the whole of it (a noise peak
        // wanders from lag to lag; an echo path stays).
        if abs(found - candidate) > 1 || candidateUpdates == 0 {
            candidate = found
            candidateUpdates = 1
            return
        }
        candidateUpdates += 1
        guard candidateUpdates >= (delay == nil ? warmUp / 2 : warmUp) else { return }
        // A move: the new lag must explain the microphone's changes, not merely stand out.
        let explains = peak >= Self.moveCorrelation * (micChangePower * referenceScores[peakLag]).squareRoot()
        guard delay == nil || explains else { return }
        let firstFound = delay == nil
        relearning = !firstFound
        delay = found
        candidateUpdates = 0
        for b in 0..<bandCount {
            trackedGains[b].reset()
        }
        trackedLearnt = 0
        forgetTail()
        resetLouderWatch()
        // Found for the first time: the last second teaches the tracked gain now. (After a move, the
        // last second may hold the old path: the worst plausible echo until it has learnt anew.)
        if firstFound { replay(start: max(searchMin, found - 1)) }
    }

    /// The correlation's update over `lags` (`scores`, `referenceScores`), its peak (the first lag
    /// with the largest score above 0; `lags`' first when none is) and Σ|score| over the lags: a C
    /// kernel (`cvk_delay_correlate`, delaycorrelation.c), four lags a register with AVX2, on the
    /// reference's changes in columns (`changeColumns`). In Swift on the SSE2 baseline this loop was
    /// 0.24 µs of the 2.3 µs frame with the agent talking. The same bits from every kernel.
    @inline(__always)
    static func correlate(
        scores: inout [Double], referenceScores: inout [Double], columns: [Double], at: Int,
        micChange: SIMD8<Double>, lags: ClosedRange<Int>, alpha: Double
    ) -> cvk_delay_peak {
        var mic = micChange
        let ring = columns.count / 18
        return scores.withUnsafeMutableBufferPointer { s in
            referenceScores.withUnsafeMutableBufferPointer { r in
                columns.withUnsafeBufferPointer { c in
                    withUnsafeBytes(of: &mic) { m in
                        let m = m.baseAddress!.assumingMemoryBound(to: Double.self)
                        return delayKernelLevel == 1
                            ? cvk_delay_correlate_avx2(
                                s.baseAddress!, r.baseAddress!, c.baseAddress!, ring, at, m,
                                lags.lowerBound, lags.upperBound, alpha)
                            : cvk_delay_correlate(
                                s.baseAddress!, r.baseAddress!, c.baseAddress!, ring, at, m,
                                lags.lowerBound, lags.upperBound, alpha)
                    }
                }
            }
        }
    }

    /// Writes this frame's reference band-level changes into `changeColumns`, with their sum of
    /// squares: the frame `d` back sits at `columnSlot + d` in each column, and again a ring further.
    /// (Not inlined: inlined into `update`, the frame with a talking reference took 20–40 ns more,
    /// though the push itself is 18 stores — the rest of `update` compiled differently.)
    @inline(never)
    mutating func pushChange(_ change: SIMD8<Double>) {
        let power = (change * change).sum()
        let ring = history.count
        let at = columnSlot
        changeColumns.withUnsafeMutableBufferPointer { columns in
            let c = columns.baseAddress!
            for b in 0..<8 {
                c[b * 2 * ring + at] = change[b]
                c[b * 2 * ring + at + ring] = change[b]
            }
            c[16 * ring + at] = power
            c[17 * ring + at] = power
        }
    }

    /// The reference's band-level changes `d` frames back (from `changeColumns`).
    /// (`mutating` though it only reads: see the type's note on its cost.)
    @inline(__always)
    mutating func referenceChange(_ d: Int) -> SIMD8<Double> {
        let ring = history.count
        let at = columnSlot + d
        return changeColumns.withUnsafeBufferPointer { c in
            var v = SIMD8<Double>()
            for b in 0..<8 { v[b] = c[b * 2 * ring + at] }
            return v
        }
    }

    /// The columns' slot of this frame: they run backwards, so lags ascend.
    var columnSlot: Int { history.count - 1 - head }

    /// Counts frames since the last reference onset that followed a pause.
    @inline(__always)
    mutating func trackOnsets(_ r: SIMD8<Double>) {
        if sinceOnset < Int.max / 2 { sinceOnset += 1 }
        if largestLane(r) > threshold {
            if quietFrames >= pauseFrames { sinceOnset = 0 }
            quietFrames = 0
        } else if quietFrames < Int.max / 2 {
            quietFrames += 1
        }
    }
}
