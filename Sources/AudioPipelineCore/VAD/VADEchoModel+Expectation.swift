/// The echo model's expectation from its stage: split from VADEchoModel.swift (the core's
/// file-size rule); part of the per-frame path `update` describes.
extension VADEchoModel {
    /// Fills `e`'s stage, gains, margins and expected echo: the tracked gain over the reference from
    /// the delay on (`tracked`, with the learnt tail from `parts`) once it has learnt, else the window
    /// model's gain over `flat` (or the worst plausible gain before it has learnt). The bands'
    /// quantiles are read one by one into lane buffers (through memory: a lane written by index in a
    /// loop took the whole vector out of its registers and back each time — with the same for the
    /// decider's excesses, 1.92 → 1.70 µs per 10 ms frame with a reference), and the rest is worked
    /// on eight lanes; lanes from `bandCount` on keep the estimate's defaults. `parts`: `tracked`'s
    /// (`trackedParts`), read only with it (not an optional: its 129 bytes went by `memcpy`, twice).
    @inline(__always)
    mutating func expect(
        into e: inout Estimate, flat: SIMD8<Double>, tracked: SIMD8<Double>?,
        parts: (direct: SIMD8<Double>, tail: SIMD8<Double>)
    ) {
        var x: SIMD8<Double>
        var gains = SIMD8<Double>()
        if let tracked, trackedLearnt >= learnFrames, windowRetired || directPathHeard {
            relearning = false
            windowRetired = true
            boundLearning = false
            e.stage = .tracked
            x = tracked
            var spread = SIMD8<Double>()
            var offsets = SIMD8<Double>()
            // The tail's level learnt: its median once it has learnt, before that (from
            // `tailEarlyFrames`) the loudest it has shown, the direct path's where a band had none.
            let tailInUse = tailLearnt >= Self.tailEarlyFrames
            let tailMedian = tailLearnt >= learnFrames
            withUnsafeMutableBytes(of: &gains) { g in
                withUnsafeMutableBytes(of: &spread) { sp in
                    withUnsafeMutableBytes(of: &offsets) { o in
                        for b in 0..<bandCount {
                            let gain = trackedGains[b].value(or: worst)
                            g.storeBytes(of: gain, toByteOffset: b * 8, as: Double.self)
                            sp.storeBytes(
                                of: trackedGains[b].upperValue(or: gain), toByteOffset: b * 8, as: Double.self)
                            if tailInUse {
                                let loudest = tailOffsetMax[b] > -.infinity ? tailOffsetMax[b] : 0
                                let offset = tailMedian ? tailOffsets[b].value(or: 0) : loudest
                                o.storeBytes(of: offset, toByteOffset: b * 8, as: Double.self)
                            }
                        }
                    }
                }
            }
            if tailInUse {
                let withTail = laneMax(parts.direct, parts.tail + offsets)
                for b in 0..<bandCount { x[b] = withTail[b] }
            }
            let sigma = 1.4826 * (spread - gains)
            let margins = clampLanes(sigma, SIMD8(repeating: marginMin), SIMD8(repeating: marginMax))
            e.gains = gains
            e.margins = margins
            for b in bandCount..<8 {
                e.gains[b] = 0
                e.margins[b] = 0
            }
        } else {
            x = flat
            // The settled median is the no-echo case's (headphones): once the delay is found an echo
            // has arrived, and until the tracked gain has learnt the envelope bounds it. (With a sparse
            // agent into a quiet microphone the median, learnt mostly in the gaps, lay 25 dB under the
            // echo: generated item 010_s1304_bargein_m20.)
            let settled = settledLearnt >= learnFrames && delay == nil
            e.stage = !relearning && (settled || windowLearnt >= learnFrames) ? .window : .worstCase
            e.margins = SIMD8(repeating: marginMax + (settled ? Self.settledMargin : 0))
            if e.stage == .window {
                gains = windowGains(settled: settled)
            } else {
                for b in 0..<bandCount { gains[b] = worst }
            }
            if relearning { boundLearning = false }
            if boundInUse { gains = capped(gains, flat: flat) }
            e.gains = gains
        }
        // (Raised where a band's reference is another band's leak: VADEchoModel+Leakage.swift.)
        let echo = withLeakage(gains: e.gains, x: x)
        e.echo = echo.replacing(with: -.infinity, where: .!(x .> -120))
        for b in bandCount..<8 { e.echo[b] = -.infinity }
    }

    /// The window model's gains per band (lanes from `bandCount` on hold 0): the settled median
    /// (`settled`), else the envelope.
    @inline(__always)
    private func windowGains(settled: Bool) -> SIMD8<Double> {
        var gains = SIMD8<Double>()
        withUnsafeMutableBytes(of: &gains) { g in
            for b in 0..<bandCount {
                // A band's envelope once that band has learnt from `learnFrames` frames where its echo
                // arrived (the stage counts frames where any band's did); until then the worst
                // plausible gain. An agent that opens on a fricative: the weak echo of its low bands
                // arrives while the window already holds the vowel after it, whose echo has not yet; at
                // the vowel's echo 300–600 Hz stood 16–19 dB over an envelope learnt from 11 frames.
                // docs/design/vad-experiments.md, "A band's envelope from its own frames".
                let learnt = settled || envelopeGains[b].size >= learnFrames
                let window = settled ? settledGains[b] : envelopeGains[b]
                let gain = learnt ? window.value(or: worst) : worst
                g.storeBytes(of: gain, toByteOffset: b * 8, as: Double.self)
            }
        }
        return gains
    }
}
