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
extension VADEchoModel {
    /// What the bound adds to the lowest microphone-over-reference level of a lag, dB.
    static let boundMargin = 6.0
    /// How long after the reference first plays the bound is used, s.
    static let boundSeconds = 3.0

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
        guard boundStart != nil else { return }
        var quiet = m
        for b in 0..<bandCount { quiet[b] = micQuiet[b].value(or: m[b]) }
        let level = laneMax(m, quiet)
        let last = min(searchMax, frames - 1)
        guard last >= searchMin else { return }
        for d in searchMin...last {
            let now = history[slot(d)]
            let before = history[slot(d + 1)]
            let quieter = now.replacing(with: before, where: before .< now)
            let over = level - quieter
            bounds[d] = bounds[d].replacing(with: over, where: over .< bounds[d])
        }
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
            guard lag <= searchMax else { continue }
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
