/// The echo model's watch for an echo path that got louder (the loudspeaker turned up, the call
/// moved from the earpiece to the speaker): split from VADEchoModel.swift (the core's file-size
/// rule); part of the per-frame path `update` describes.
///
/// The gains do not learn while the detector hears the user, nor from a frame that stood out over
/// the expected echo. An echo that rises 10 dB or more at once stands out in every frame, the
/// detector takes it for the user, and nothing learns it again: after a 10–22 dB step the rest of
/// a generated session was speech (docs/design/vad-experiments.md). The watch looks at the frames
/// where the reference plays through the direct path near its peaks (within `louderPeakGap` of
/// the window's loudest: there the expected echo is at its most exact) and keeps, per band, the
/// median of the microphone over the expected echo (before the margin) over the last
/// `louderWindowSeconds` of them, beside the same median over the frames the gains learnt from.
/// When three quarters of the bands or more stand `louderRaise` over what was learnt, and the
/// microphone's band-level changes in those bands still follow the reference's at the delay (a
/// running correlation of at least `louderCoherence`), the echo path has changed: the tracked gain
/// starts again from the last second (the worst plausible echo until it has `learnSeconds` of
/// frames). A user talking over the echo lifts it only while he talks, in the bands his voice
/// fills, and moves with his own voice: on 80 mixes of real speech over an echo at −16 to +6 dB
/// only a reader 20 dB over the echo reading on for 28 s set it off (once). It needs 1.5 s of the
/// agent's speech: a client that cuts the agent at each barge-in gives it a few frames a
/// response, and each response after the step was cut. So a second, fast watch (`echoStepped`)
/// reads the frames one by one: where three quarters of the bands or more (at least
/// `stepBandsMin`) stand `louderRaise` over what was learnt and the microphone's changes follow the
/// reference's at the delay over the last few frames (`stepCoherence`, running means of time
/// constant 1/`stepAlpha` frames, taken in every frame of the tracked stage so that the response's
/// onset counts), for `stepHold` frames in a row, the gain learns anew at once — within the onset
/// guard of a response that follows the step. A user's voice follows its own changes, not the
/// reference's. Sessions with a volume step of 8–22 dB (docs/design/vad-experiments.md, "A volume
/// step caught at the next response"): false barge-ins 54 → 6 and 53 → 30 on the 72 that chose it,
/// 49 → 24 on 40 drawn after; the echo grids, random rooms and barge-in items unchanged. What is
/// left: a step in the middle of the agent's speech (its first louder frames open speech before
/// three have been seen), and responses too short to show three frames near their peaks.
extension VADEchoModel {
    /// The watch's window, s (also the correlation's time constant).
    static let louderWindowSeconds = 1.5
    /// The medians take every this many frames of the watch's.
    static let louderStride = 2
    /// The watch's test runs every this many of its frames.
    static let louderCheckFrames = 10
    /// How far under the window's loudest reference (`flat`) the direct path's may be for a band's
    /// frame to count, dB: where the reference is near its peaks the expected echo is at its most
    /// exact (in its dips the model may lie well over the echo, and a louder echo stays under it).
    static let louderPeakGap = 10.0
    /// The quantile of the microphone's excess over the expected echo that the watch compares.
    static let louderQuantile = 0.5
    /// How far the recent excess must stand over the learnt one, dB.
    static let louderRaise = 6.0
    /// The normalised correlation of the microphone's band-level changes with the reference's at the
    /// delay in the raised bands, at least (0.3–0.96 on the echo alone in generated rooms of RT60
    /// 0.2–0.6 s, 0.1–0.14 in a sparse synthetic one; a voice that fills the microphone moves it with
    /// its own changes). A weak guard: the levels decide.
    static let louderCoherence = 0.1

    /// One frame of the watch (tracked stage): `tracked` the reference the echo follows, `flat` the
    /// window's loudest reference, `echo` the expected echo (before the margin), `start` the direct
    /// path's first lag, `plays` whether it plays (`directPathPlays`), `learnable` whether the gains
    /// learn from the frame.
    @inline(never)
    mutating func watchEchoLevel(
        mic m: SIMD8<Double>, micChange: SIMD8<Double>, tracked: SIMD8<Double>, flat: SIMD8<Double>,
        echo: SIMD8<Double>,
        start: Int, plays: Bool, learnable: Bool
    ) {
        // (The reference's changes at the delay read once, for both watches.)
        let referenceChange = referenceChange(delay ?? start)
        if echoStepped(
            mic: m, micChange: micChange, referenceChange: referenceChange, tracked: tracked, flat: flat, echo: echo,
            plays: plays)
        {
            relearnLouder(start: start)
            return
        }
        guard plays else { return }
        // The medians from every `louderStride`-th frame (a quarter of the reference path's frame cost
        // when every frame fed them), the test every `louderCheckFrames`: a window of 1.5 s needs no more.
        if louderSeen % Self.louderStride == 0 {
            let excess = clampLanes(m - echo, SIMD8(repeating: -40), SIMD8(repeating: 40))
            // (Through the buffers: written by index, each array was checked for a unique owner per band.)
            let count = bandCount
            louderRecent.withUnsafeMutableBufferPointer { recent in
                louderBaselines.withUnsafeMutableBufferPointer { baselines in
                    for b in 0..<count where echo[b] > -120 && tracked[b] >= flat[b] - Self.louderPeakGap {
                        recent[b].add(excess[b])
                        if learnable { baselines[b].add(excess[b]) }
                    }
                }
            }
        }
        louderProducts += louderAlpha * (micChange * referenceChange - louderProducts)
        louderMicPowers += louderAlpha * (micChange * micChange - louderMicPowers)
        louderReferencePowers += louderAlpha * (referenceChange * referenceChange - louderReferencePowers)
        louderSeen += 1
        guard louderSeen >= louderWindow, louderSeen % Self.louderCheckFrames == 0 else { return }
        var raised = 0
        var bands = 0
        var product = 0.0
        var micPower = 0.0
        var referencePower = 0.0
        for b in 0..<bandCount where 2 * Self.louderStride * louderRecent[b].size >= louderWindow {
            bands += 1
            let baseline = louderBaselines[b].value(or: 0)
            guard louderRecent[b].value(or: baseline) - baseline >= Self.louderRaise else { continue }
            raised += 1
            product += louderProducts[b]
            micPower += louderMicPowers[b]
            referencePower += louderReferencePowers[b]
        }
        let powers = micPower * referencePower
        let coherent = powers > 0 && product >= Self.louderCoherence * powers.squareRoot()
        if bands > 0 && 4 * raised >= 3 * bands && coherent { relearnLouder(start: start) }
    }

    /// The echo path got louder: the tracked gain learns anew from the last second's frames (whether
    /// or not the detector took them for the user).
    mutating func relearnLouder(start: Int) {
        let held = min(louderWindow, replayFrames, frames)
        for b in 0..<bandCount {
            trackedGains[b].reset()
        }
        trackedLearnt = 0
        relearning = true
        for age in stride(from: held, through: 1, by: -1) {
            let parts = trackedParts(from: start, age: age)
            learnTracked(mic: micHistory[slot(age)], tracked: laneMax(parts.direct, parts.tail), start: start, age: age)
        }
        // (This frame is not yet in the rings' history for `age` 0: it teaches as the frames after it.)
        resetLouderWatch()
    }

    /// The watch starts again (a new delay, a relearnt gain, a reset).
    mutating func resetLouderWatch() {
        for b in 0..<Self.maxBands where !louderRecent[b].isEmpty { louderRecent[b].reset() }
        for b in 0..<Self.maxBands where !louderBaselines[b].isEmpty { louderBaselines[b].reset() }
        louderSeen = 0
        stepFrames = 0
        stepProducts = SIMD8()
        stepMicPowers = SIMD8()
        stepReferencePowers = SIMD8()
        louderProducts = SIMD8()
        louderMicPowers = SIMD8()
        louderReferencePowers = SIMD8()
    }

    /// Whether the reference played through the direct path (the lag `start` and the two after it)
    /// `age` frames back and is not stopping (within `offsetGap` of the loudest frame it follows).
    /// (`mutating` though it only reads: see the type's note on its cost.)
    @inline(__always)
    mutating func directPathPlays(start: Int, age: Int, tracked: SIMD8<Double>) -> Bool {
        guard start + age <= frames else { return false }
        var quietest = Double.infinity
        for d in start...min(start + 2, searchMax, frames - age) {
            quietest = min(quietest, largestLane(history[slot(age + d)]))
        }
        return quietest > threshold && largestLane(history[slot(age + start)]) >= largestLane(tracked) - Self.offsetGap
    }

    /// Frames in a row the fast watch must see raised and following the reference: a user's two
    /// frames that happen to follow it do not relearn the gain.
    static let stepHold = 3
    /// The correlation of the microphone's band-level changes with the reference's at the delay, over
    /// the last few frames, at least: an echo that stepped louder follows the reference from its
    /// first frames (0.70–0.78 in the frames of a generated step it caught); a voice does not.
    static let stepCoherence = 0.6
    /// The running means' weight of the newest frame (a time constant of five frames).
    static let stepAlpha = 0.2
    /// The fewest bands near the reference's peaks the fast watch decides on.
    static let stepBandsMin = 4
    /// The fewest of the slow watch's baseline entries (every `louderStride`-th learning frame near
    /// the peaks) a band needs for the fast watch to read it: a client that cut the agent at each
    /// barge-in leaves a second or two of them, not the slow watch's 1.5 s window.
    static let stepBaselineMinimum = 4

    /// The fast watch for an echo that stepped louder (see the extension's note): whether it has
    /// now held `stepHold` frames. `referenceChange`: the reference's changes at the delay
    /// (`referenceChange`). `plays`: the direct path plays (`directPathPlays`); its running
    /// means take every frame of the tracked stage (the response's onset, where the direct path's
    /// first lags are still silent, is where an echo follows its reference most plainly), its test
    /// only the frames where the direct path plays.
    @inline(__always)
    mutating func echoStepped(
        mic m: SIMD8<Double>, micChange: SIMD8<Double>, referenceChange: SIMD8<Double>, tracked: SIMD8<Double>,
        flat: SIMD8<Double>, echo: SIMD8<Double>, plays: Bool
    ) -> Bool {
        let a = Self.stepAlpha
        stepProducts += a * (micChange * referenceChange - stepProducts)
        stepMicPowers += a * (micChange * micChange - stepMicPowers)
        stepReferencePowers += a * (referenceChange * referenceChange - stepReferencePowers)
        guard plays else {
            stepFrames = 0
            return false
        }
        var bands = 0
        var raised = 0
        var product = 0.0
        var micPower = 0.0
        var referencePower = 0.0
        for b in 0..<bandCount where echo[b] > -120 && tracked[b] >= flat[b] - Self.louderPeakGap {
            guard louderBaselines[b].size >= Self.stepBaselineMinimum else { continue }
            bands += 1
            if m[b] - echo[b] - louderBaselines[b].value(or: 0) >= Self.louderRaise { raised += 1 }
            product += stepProducts[b]
            micPower += stepMicPowers[b]
            referencePower += stepReferencePowers[b]
        }
        let powers = micPower * referencePower
        let coherent = powers > 0 && product >= Self.stepCoherence * powers.squareRoot()
        stepFrames = bands >= Self.stepBandsMin && 4 * raised >= 3 * bands && coherent ? stepFrames + 1 : 0
        return stepFrames >= Self.stepHold
    }
}
