/// The worst plausible echo bounded by what the microphone has shown: split from
/// VADEchoModel.swift (the core's file-size rule); part of the per-frame path `update` describes,
/// in a session's first `boundSeconds` after the reference first plays only.
///
/// Before the echo's gain has been learnt the model expects the worst plausible echo
/// (`initial_echo_gain_db` over the loudest reference anywhere in the delay window). The microphone
/// rules most of that out within a few syllables: an echo at lag d arrives whenever the reference
/// played d earlier, so wherever the microphone stayed quiet while the reference at lag d was loud,
/// no loud echo comes through lag d. Per lag and band the model keeps the lowest the microphone has
/// stood over the reference at that lag (`bounds`); the echo at a lag is at most that plus
/// `boundMargin`, over the loudest reference at that lag or before it (the reverberant tail at full
/// level). Lags the reference has not yet reached, or has reached only while the microphone was
/// loud, keep the worst. The gains in use (worst-case and window stages) are capped by it.
///
/// The bound only ever falls (a minimum), so a user's voice never raises it, and it is learnt from
/// every frame, his included. Against the true lag the microphone holds the echo (plus the room's
/// noise and tail, which only add): the bound lies under the echo's gain only by a frame's
/// fluctuation — a frame straddling the reference's onset counts the quieter of its two frames, the
/// microphone counts at least its band's quiet level (noise dips), and `boundMargin` covers the
/// rest. It cannot follow a path that gets louder (headphones unplugged), so it is dropped
/// `boundSeconds` after the reference first played, when the delay moves (`relearning`) and once
/// the tracked model is in use. docs/design/vad-experiments.md, "The worst echo bounded by what the
/// microphone showed".
///
/// **The first arrival.** Lags the reference reached only while the microphone was loud keep the
/// worst — and a user who starts within `echo_delay_max_ms` of the agent's first sound is exactly
/// that: at each new lag his voice is one frame's evidence of an echo "just arriving" there, and he
/// stays covered until the delay is found (0.4–0.7 s late on generated items). But an echo's direct
/// path comes first, and what comes through later lags is its reverberation, which the bounded
/// echo already counts at full level (the loudest reference at that lag or before it). So once the
/// echo has arrived — at a lag where, from the first frame the reference played there, the
/// microphone stood `arrivalMargin` over its quiet level and over its level just before the
/// reference began (a background talker already there does not count), for `arrivalSeconds`, in
/// every such frame since (`arrivals`, −1 once one was not) — lags more than `arrivalReachSeconds`
/// past the shortest such lag are not read. A noise that rises between the reference's start and
/// its echo can look like the arrival and hide a longer lag's echo: babble at −55 and −60 dBFS did
/// at a 6 dB margin, not at 10 (docs/design/vad-experiments.md, "The echo's first arrival").
extension VADEchoModel {
    /// What the bound adds to the lowest microphone-over-reference level of a lag, dB.
    static let boundMargin = 6.0
    /// How long after the reference first plays the bound is used, s.
    static let boundSeconds = 3.0
    /// How far the microphone must stand over its quiet level, and over its level before the
    /// reference began, for the echo to have arrived (in two bands), dB.
    static let arrivalMargin = 10.0
    /// How long it must stand there, from the first frame the reference at a lag plays, s.
    static let arrivalSeconds = 0.05
    /// The lags past the first arrival that the bounded echo still reads (the direct path's spread), s.
    static let arrivalReachSeconds = 0.05
    /// How fast the microphone's level before the reference began is forgotten, dB/s.
    static let arrivalBaselineFall = 40.0

    /// Whether the bound is in use this frame (and learns from it). (The helpers here are
    /// `mutating` though they only read: see the type's note on its cost.)
    @inline(__always)
    var boundInUse: Bool {
        mutating get {
            guard boundLearning else { return false }
            guard let start = boundStart else { return true }
            return frames - start < boundFrames
        }
    }

    /// Per lag, the lowest the microphone (at least its bands' quiet level) has stood over the
    /// quieter of the reference's two frames at that lag (`r`: this frame's reference, in the
    /// history already).
    @inline(__always)
    mutating func learnBound(mic m: SIMD8<Double>, reference r: SIMD8<Double>) {
        if boundStart == nil, largestLane(r) > threshold { boundStart = frames }
        guard boundStart != nil else {
            let fallen = arrivalBaseline - Self.arrivalBaselineFall * frameMilliseconds / 1000
            arrivalBaseline = laneMax(fallen, m)
            return
        }
        var quiet = m
        for b in 0..<bandCount { quiet[b] = micQuiet[b].value(or: m[b]) }
        let level = laneMax(m, quiet)
        let arrived = standsOut(m, over: quiet)
        let last = min(searchMax, frames - 1)
        guard last >= searchMin else { return }
        let held = arrivalFrames(Self.arrivalSeconds)
        var firstHeld = Int.max
        for d in searchMin...last {
            let now = history[slot(d)]
            let before = history[slot(d + 1)]
            let quieter = now.replacing(with: before, where: before .< now)
            let over = level - quieter
            bounds[d] = bounds[d].replacing(with: over, where: over .< bounds[d])
            if arrivals[d] >= 0, largestLane(now) > threshold { arrivals[d] = arrived ? arrivals[d] + 1 : -1 }
            if firstHeld == .max, arrivals[d] >= held { firstHeld = d }
        }
        let reach = firstHeld == .max ? searchMax : firstHeld + arrivalFrames(Self.arrivalReachSeconds)
        arrivalReach = min(searchMax, reach)
    }

    /// Whether the microphone stands `arrivalMargin` over its quiet level and over its level before
    /// the reference began, in two bands or more: what an echo's arrival shows.
    @inline(__always)
    func standsOut(_ m: SIMD8<Double>, over quiet: SIMD8<Double>) -> Bool {
        let excess = m - laneMax(quiet, arrivalBaseline)
        var bands = 0
        for b in 0..<bandCount where excess[b] >= Self.arrivalMargin { bands += 1 }
        return bands >= 2
    }

    @inline(__always)
    func arrivalFrames(_ seconds: Double) -> Int {
        max(1, Int((seconds * 1000 / frameMilliseconds).rounded()))
    }

    /// The most echo the bounds allow in this frame, per band: over the lags the reference has
    /// reached, its gain (the bound and `boundMargin`, at most the worst) over the loudest reference
    /// at that lag or older, up to the reverberant tail beyond the search (the flat window's reach).
    /// −inf before the reference has played.
    @inline(__always)
    mutating func boundedEcho() -> SIMD8<Double> {
        var expected = SIMD8<Double>(repeating: -.infinity)
        guard let start = boundStart else { return expected }
        let oldest = min(frames - start, searchMax + tail)
        guard oldest >= searchMin else { return expected }
        var loudest = SIMD8<Double>(repeating: -140)
        let worstGain = SIMD8<Double>(repeating: worst)
        for lag in stride(from: oldest, through: searchMin, by: -1) {
            loudest = laneMax(loudest, history[slot(lag)])
            guard lag <= arrivalReach else { continue }
            let bounded = bounds[lag] + Self.boundMargin
            let gain = worstGain.replacing(with: bounded, where: bounded .< worstGain)
            expected = laneMax(expected, gain + loudest)
        }
        return expected
    }

    /// `gains` (over `flat`) capped by the bounds; as they are before the reference has played (no
    /// echo is expected then, and `--frames` shows the worst plausible gain as before).
    @inline(__always)
    mutating func capped(_ gains: SIMD8<Double>, flat: SIMD8<Double>) -> SIMD8<Double> {
        guard boundStart != nil else { return gains }
        let allowed = boundedEcho() - flat
        var g = gains.replacing(with: allowed, where: allowed .< gains)
        g.replace(with: -120, where: g .< -120)
        return g
    }
}
