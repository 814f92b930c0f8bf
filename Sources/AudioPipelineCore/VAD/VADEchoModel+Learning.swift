/// The echo model's learning of its gains and its room's tail: split from VADEchoModel.swift (the
/// core's file-size rule); part of the per-frame path `update` describes.
extension VADEchoModel {
    /// The tail's level relative to the direct path's, per band, from frames where the reference
    /// stopped `tailGap` ago or more: the microphone over the gain and the tail, at most 0 (the
    /// model's tail starts at the direct path's level) and at least −20 dB; its median, and the
    /// loudest (used from `tailEarlyFrames` frames until the median has learnt).
    @inline(__always)
    mutating func learnTail(mic m: SIMD8<Double>, parts: (direct: SIMD8<Double>, tail: SIMD8<Double>)) {
        guard largestLane(parts.tail) > threshold, largestLane(parts.direct) < largestLane(parts.tail) - Self.tailGap
        else { return }
        for b in 0..<bandCount where parts.tail[b] > -120 {
            let v = m[b] - (trackedGains[b].value(or: worst) + parts.tail[b])
            let offset = min(0, max(-20, v))
            tailOffsets[b].add(offset)
            tailOffsetMax[b] = max(tailOffsetMax[b], offset)
        }
        tailLearnt += 1
    }

    /// Forgets the tail's learnt level (a new delay, a new decay: the offsets were measured against
    /// a tail that is no longer the model's); until it has learnt anew, the tail starts at the
    /// direct path's level.
    mutating func forgetTail() {
        for b in 0..<Self.maxBands { tailOffsets[b].reset() }
        tailLearnt = 0
        tailOffsetMax = SIMD8(repeating: -.infinity)
    }

    /// Learns the window model's gains from frames with reference in the window (`flat`: its loudest
    /// frame with the tail; `direct`: without it), and the tracked
    /// model's from frames whose direct path (the delay's frame and the two after it) played and is
    /// not stopping (`plays`: `directPathPlays` of this frame).
    @inline(__always)
    mutating func learn(
        mic m: SIMD8<Double>, flat: SIMD8<Double>, direct: SIMD8<Double>, tracked: SIMD8<Double>?, start: Int?,
        plays: Bool
    ) {
        // The envelope only where something arrived: before the echo of the reference's first frames
        // can reach the microphone, it holds the noise alone, and a gain learnt from that is far too
        // low. The settled median from every frame once an echo has had time to arrive, while the
        // reference plays within the search range: in a pause only the window's tail holds it (up to
        // 1 s), the echo has died away, and those frames put the gain 27 dB too low (a false barge-in
        // on the next utterance, generated item 010_s103).
        var arrived = false
        let settled = !windowRetired && activeFrames > searchMax + tail && largestLane(direct) > threshold
        for b in 0..<bandCount where !windowRetired && flat[b] > -120 {
            if m[b] > micQuiet[b].value(or: m[b]) + Self.arrivedMargin {
                // (Limited once the band's own envelope has learnt, as the expectation uses it.)
                let learnt = envelopeGains[b].size >= learnFrames
                envelopeGains[b].add(Self.limited(m[b] - flat[b], envelopeGains[b], learnt: learnt))
                arrived = true
            }
            if settled {
                settledGains[b].add(Self.limited(m[b] - flat[b], settledGains[b], learnt: settledLearnt >= learnFrames))
            }
        }
        if arrived { windowLearnt += 1 }
        if settled { settledLearnt += 1 }
        guard let tracked, let start else { return }
        learnTracked(mic: m, tracked: tracked, start: start, age: 0, plays: plays)
    }
}
