/// The echo of the far-end reference expected at the microphone, per band and frame: what
/// `VADDecider` scores the microphone against when the client knows what it played.
///
/// ## Method
/// - **Delay, found.** The delay between the reference and its echo in the microphone is searched
///   over `echoDelayMinMilliseconds…echoDelayMaxMilliseconds` (0–500 ms by default: phones put
///   50–250 ms between the audio handed to the speaker and its echo, Bluetooth up to 500): a
///   running cross-correlation of the frame-to-frame changes of the band levels, mic against the
///   reference `d` frames back (levels clipped to [−100, 0] dBFS, changes to ±20 dB; time
///   constant `echoDelaySmoothingSeconds`), as WebRTC's delay estimator correlates band
///   envelopes. It is trusted once it has run `echoDelaySmoothingSeconds` of reference, its peak
///   stands `confidence` times above the mean magnitude over all lags, and it has pointed to the
///   same lag (within a frame) for half that long; the delay is where the peak's main lobe begins —
///   the earliest lag before the peak still at half of it (the direct path: reverberation drags
///   the peak itself later). (The first lag anywhere at half the peak was tried: a speech
///   reference's level changes correlate with themselves a syllable apart, and it picked lags far
///   too early.) It follows the room: an estimate three or more frames away that holds for the whole
///   time constant replaces it — if its lag explains the microphone's changes: their normalised
///   correlation with the reference's there is `moveCorrelation` or more. (A user loud over a weak
///   echo, in the frames before the detector declared him, made a lag stand out among the others
///   that explained nothing: on generated items the delay moved away, mostly to 400–430 ms, for
///   1–5 s after a user's turn, at a correlation of 0.06–0.26.) Neither the correlation nor the
///   gains learn while the detector hears the user (`nearEnd`): double talk is not echo. Nor do the
///   gains while what the microphone holds is not yet explained (`unexplained`: the frame before
///   stood out over the expected echo, or an onset is being counted): it may be a user not yet
///   declared.
/// - **What the echo follows.** With the delay found, the reference from one frame before that lag
///   (the delay's fraction of a frame) through its reverberant tail, the older frames counting
///   `60 dB · frame / RT60` less per frame (a room of `echoReverbMilliseconds`, or a slower one the
///   model measured in the reference's pauses: VADEchoModel+Reverb.swift). The tail — the lags
///   beyond the direct path's three frames — starts at the direct path's level until the room's own
///   is learnt: per band, the median of the microphone over gain and tail in frames where the
///   reference stopped (`tailGap` under its tail), within [−20, 0] dB — before `learnSeconds` of
///   such frames, from `tailEarlyFrames` of them, the loudest. In a room whose reverberation
///   is well under its direct sound, the expected echo then falls in the echo's dips as the echo
///   does, and a user under the echo shows there (generated items: latency p90 354 → 291 ms). Before it is found,
///   the flat maximum of the reference over the whole search range and the tail: the echo may be
///   anywhere in it.
/// - **Found in a pause.** The tracked model takes over from the window model the first frame its
///   direct path plays after the delay was first found, not the frame it was found. Found in a
///   pause of the agent's, the tracked model expects only the tail of what came before, at the
///   configured RT60 — in a hall (RT60 0.7–0.85 s, a tail as loud as the direct sound) 8–11 dB
///   under the room's own, at once, where the window model had expected the tail at full level:
///   the sample reply's 0.3 s pause after its first words stopped the agent in 9 of 40 generated
///   halls. The room's fall is measured in those frames all the same.
/// - **Gain, learnt — and before that, the worst.** Per band, the echo's level over the reference
///   it follows. With the delay found: the median of mic − reference over frames where the
///   reference played through the direct path's frames and is not stopping, with a margin from the
///   model's own error (a robust σ, within [`echoMarginMinimum`, `echoMargin`]). Before it, over
///   the window's maximum, with the full margin: first the 90th percentile of mic − window over
///   frames where something arrived — the band `arrivedMargin` over its own quiet level (before
///   the echo of the first reference reaches the microphone it holds noise alone, and a gain learnt
///   from that was far too low: a false barge-in when the echo came) — an upper envelope, for each
///   band once that band has `learnSeconds` of such frames of its own (the worst gain until then); once the
///   reference has filled the window and its tail (an echo would have arrived by then), the median
///   over every frame plus `settledMargin` (with headphones no echo arrives, and the envelope of
///   what did arrive is the user's voice: the median of the quiet frames is as low as it should
///   be; only while the reference plays within the search range, not in its tail alone, and only
///   until the delay is found: an echo has arrived then, and the envelope stands until the tracked
///   gain has learnt). Once
///   learnt, a frame teaches a gain at most `learnStep` over its value. Each needs
///   `learnSeconds` of frames; until then — the session's start, or after the delay moved — the
///   expected echo is the worst plausible, `initialEchoGain` over the window.
/// - **A louder echo path.** An echo that rose 10 dB or more at once (the volume turned up) stands
///   out in every frame and teaches nothing; `watchEchoLevel` sees it stand over what the gains
///   learnt while the reference plays, and the tracked gain learns anew (VADEchoModel+Change.swift)
///   — over 1.5 s, or within three frames where the microphone follows the reference's changes
///   frame by frame (`echoStepped`: the first frames of the response after a step in a pause).
/// - **A band's sound in the others.** A tone or an earcon reaches the other bands through their
///   filters' stopbands with its own band's gain: the expected echo counts that leak, and a gain
///   does not learn down from a lower-gain band's leak (VADEchoModel+Leakage.swift).
/// - **Onsets.** The reference is known before its echo arrives: for `echoOnsetGuardMilliseconds`
///   after the echo of an utterance that follows a pause of `onsetPauseSeconds` is due at the
///   estimated delay, speech does not start — the first frames of an echo are what a model learnt
///   on continuous speech fits worst. It begins `guardLeadFrames` before the echo is due, not at
///   the reference's onset: a user who started as the agent's next utterance did was deaf to it for
///   the whole delay. But while the delay's correlation no longer stands out (`delayStandsOut`: a
///   delay found on the user's words, before he was heard, is wrong, and the true lag's peak needs
///   seconds to move it) it begins at the reference's onset: the echo may come at any lag. (Before
///   the delay is found the flat window already expects the echo anywhere; a guard over the whole
///   search range then only deafened the session's start.)
///
/// Per frame it costs a pass over the search range (the correlation, in C: delaycorrelation.c)
/// and over the tail (the tracked echo), the window's maximum from blocks of eight frames
/// (`windowMax`), two running quantiles per band once the tracked gain is in use (five before: the
/// window model stops learning then, `windowRetired`; the louder-echo watch adds up to two every
/// second frame; the room's fall a few lane operations in a frame of the reference's tail, a bin
/// where a band's run of it ends, and a pass over the ring when the decay in use moves) and no
/// allocation. The helpers `update` calls that only read the
/// model (`windowMax`, `trackedParts`, `directPathPlays`, `withLeakage`, `referenceChange`) are
/// `mutating` all the same: as plain methods, called from a mutating path, the compiler handed
/// each a copy of the whole model (688 bytes, a `memcpy`, three to four a frame).
public struct VADEchoModel: Sendable {

    let searchMin: Int, searchMax: Int
    /// Frames of reverberant tail the expected echo covers beyond a lag (RT60's, at most 1 s): the
    /// rings reach back `searchMax + tail` frames.
    let tail: Int
    let threshold: Double
    let alpha: Double, warmUp: Int, learnFrames: Int
    let worst: Double, marginMax: Double, marginMin: Double
    /// The tail's decay, dB per frame: `configuredDecay` (60 dB over `echoReverbMilliseconds`) until
    /// the room has shown a slower one (`learnDecay`, VADEchoModel+Reverb.swift).
    var decay: Double
    /// The decay `echoReverbMilliseconds` gives, dB per frame: the fastest the model assumes.
    let configuredDecay: Double
    /// The decay of a room of `slowestReverbSeconds`, dB per frame: the slowest the model assumes.
    let slowestDecay: Double
    let frameMilliseconds: Double
    /// The microphone's fall per frame in the reference's pauses, fitted over the bands' runs of tail
    /// frames, and how many frames it has learnt from.
    var decayFit: VADDecayFit
    var decayLearnt = 0
    /// Learning frames in a row whose measured fall stood more than `decayStep` from the decay in use.
    var decayOffFrames = 0
    let pauseFrames: Int, guardFrames: Int
    /// The louder-echo watch's window (frames) and smoothing (per frame).
    let louderWindow: Int, louderAlpha: Double
    /// How many bands the frames hold (4 or 8: `VADBandFrame.bandCount`); the lanes above hold
    /// −140 dB and take no part. Set before the first frame.
    public var bandCount = 8
    /// Frames of `replaySeconds`.
    let replayFrames: Int
    /// A ring (one slot per lag 0…searchMax and the tail, replay beyond): reference band levels (dB).
    /// (Their changes from the frame before are in `changeColumns`.)
    var history: [SIMD8<Double>]
    /// The reference's maximum per block of eight frames (block `a >> 3` of the stream's frame `a`,
    /// in slot `(a >> 3) & blockMask`; the current block's so far): the window's maximum over ~100
    /// lags takes ~12 blocks and at most 14 single frames (`windowMax`).
    var blockMax: [SIMD8<Double>]
    /// The same blocks' maxima of reference + decay · frame (`decayedMax`: the reverberant tail).
    var decayedBlockMax: [SIMD8<Double>]
    let blockMask: Int
    /// Rings of the same length: the microphone's band levels, and whether the gains learnt from the
    /// frame (the reference played, the detector did not hear the user, nothing stood out).
    var micHistory: [SIMD8<Double>], learnable: [Bool]
    var head = 0, frames = 0
    var previousMic = SIMD8<Double>(repeating: -100)
    /// Per lag, the running mean of Σ_b Δmic_b · Δref_b(lag).
    var scores: [Double]
    /// Per lag, the running mean of Σ_b Δref_b(lag)²; with `micChangePower`, the correlation's
    /// normalisation (`moveCorrelation`).
    var referenceScores: [Double]
    /// The reference's band-level changes from the frame before, in columns for the correlation's
    /// kernel (`cvk_delay_correlate`): per band, then Σ_b Δref_b², 2 · ring values each, the newest
    /// first, each value twice (`pushChange`, `referenceChange`).
    var changeColumns: [Double]
    /// The running mean of Σ_b Δmic_b².
    var micChangePower = 0.0
    var scored = 0
    var delay: Int?
    /// A new delay the estimate points at, and for how many updates in a row it has.
    var candidate = 0, candidateUpdates = 0
    /// The window model's gains, per band: the upper envelope (90th percentile over frames where
    /// something arrived) and the settled median (over every frame once the reference has filled the
    /// window and its tail); the tracked model's (median, with the 75th percentile for the error's
    /// spread); and how many frames each has learnt from.
    var envelopeGains: [RunningQuantile], settledGains: [RunningQuantile]
    var trackedGains: [RunningQuantile]
    /// Per band, the reverberant tail's level relative to the direct path's, learnt (dB, ≤ 0; see
    /// `tailGap`), and how many frames it has learnt from.
    var tailOffsets: [RunningQuantile]
    var tailLearnt = 0
    /// Per band, the loudest tail level learnt since the tail last started again (−inf before any).
    var tailOffsetMax = SIMD8<Double>(repeating: -.infinity)
    var windowLearnt = 0, settledLearnt = 0, trackedLearnt = 0
    /// The delay moved: until the tracked gain has learnt again, the worst plausible echo.
    var relearning = false
    /// The tracked gain has been in use: the window model (its gains and the microphone's quiet
    /// level they learn by) is never used again — after the delay moves the expectation is the
    /// worst plausible until the tracked gain has learnt anew — and stops learning (a third of a
    /// frame's running quantiles with eight bands).
    var windowRetired = false
    /// Whether the reference has played through the direct path since the delay was first found:
    /// until it has, the window model's expectation stands (see the type's note, "Found in a pause").
    var directPathHeard = false
    /// Per band, the microphone's quiet level (the 10th percentile of its last 5 s, echo or not): the
    /// window model learns from frames where something arrived above it.
    var micQuiet: [RunningQuantile]
    /// Frames in a row the window has held reference: after the whole window and its tail, every
    /// frame teaches the settled median (an echo has had time to arrive).
    var activeFrames = 0
    var quietFrames = Int.max / 2, sinceOnset = Int.max / 2
    /// Whether the delay's correlation still stands out (`estimateDelay`): while it does not, the
    /// onset guard holds from the reference's onset, not from where the echo is due.
    var delayStandsOut = false
    /// Per lag, the lowest the microphone has stood over the reference (`learnBound`), while
    /// `boundLearning` (from a reset until the delay moves or the tracked model is in use) and for
    /// `boundFrames` after `boundStart` (the first frame the reference played).
    var bounds: [SIMD8<Double>]
    var boundLearning = true
    var boundStart: Int?
    /// Per lag, the frames the microphone stood out while the reference there played (−1 once it did
    /// not); its level before the reference began; the longest lag the bounds are read at (`learnBound`).
    var arrivals: [Int]
    var arrivalBaseline = SIMD8<Double>(repeating: -140)
    var arrivalReach: Int
    let boundFrames: Int
    /// The louder-echo watch (`watchEchoLevel`): per band, the median of the microphone over the
    /// expected echo in the last `louderWindowSeconds` of frames the reference played through the
    /// direct path near its peaks and in those the gains learnt from, and how many such frames it
    /// has seen; per band, the running means of Δmic·Δref at the delay, Δmic² and Δref².
    var louderRecent: [RunningQuantile], louderBaselines: [RunningQuantile]
    var louderSeen = 0
    var louderProducts = SIMD8<Double>(), louderMicPowers = SIMD8<Double>(), louderReferencePowers = SIMD8<Double>()
    /// The step watch (`echoStepped`): the same running means over a few frames, and the frames in a
    /// row that stood over what was learnt and followed the reference.
    var stepProducts = SIMD8<Double>()
    var stepMicPowers = SIMD8<Double>()
    var stepReferencePowers = SIMD8<Double>()
    var stepFrames = 0

    /// What each steep band passes of the others' sound, dB (`leakageTable`), and the same without
    /// neighbours (`distant`), at the stream's rate.
    let leakage: [SIMD8<Double>], distantLeakage: [SIMD8<Double>]

    /// A model with nothing learnt (it expects the worst plausible echo); all state allocated here.
    /// `sampleRate`: the rate of the band analysis that feeds it (the steep bands' leakage into each
    /// other depends on it near the Nyquist frequency).
    public init(configuration c: VADConfiguration, sampleRate: Int = 16_000) {
        leakage = Self.leakageTable(sampleRate: sampleRate)
        distantLeakage = Self.distant(leakage)
        let frameSeconds = c.frameMilliseconds / 1000
        let frames = { (seconds: Double) in max(1, Int((seconds / frameSeconds).rounded())) }
        searchMin = Int((c.echoDelayMinMilliseconds / c.frameMilliseconds).rounded(.down))
        searchMax = max(searchMin, Int((c.echoDelayMaxMilliseconds / c.frameMilliseconds).rounded(.up)))
        threshold = c.referenceActiveThreshold
        alpha = min(1, frameSeconds / c.echoDelaySmoothingSeconds)
        warmUp = frames(c.echoDelaySmoothingSeconds)
        learnFrames = frames(Self.learnSeconds)
        configuredDecay = c.echoReverbMilliseconds > 0 ? 60 * c.frameMilliseconds / c.echoReverbMilliseconds : 0
        decay = configuredDecay
        frameMilliseconds = c.frameMilliseconds
        slowestDecay = 60 * c.frameMilliseconds / (Self.slowestReverbSeconds * 1000)
        decayFit = VADDecayFit(window: frames(Self.decayWindowSeconds))
        tail = min(frames(1), Int((c.echoReverbMilliseconds / c.frameMilliseconds).rounded(.up)))
        worst = c.initialEchoGain
        marginMax = c.echoMargin
        marginMin = min(c.echoMarginMinimum, c.echoMargin)
        pauseFrames = frames(Self.onsetPauseSeconds)
        guardFrames = Int((c.echoOnsetGuardMilliseconds / c.frameMilliseconds).rounded())
        replayFrames = frames(Self.replaySeconds)
        louderWindow = frames(Self.louderWindowSeconds)
        louderAlpha = min(1, frameSeconds / Self.louderWindowSeconds)
        let ring = searchMax + tail + 1 + replayFrames
        history = [SIMD8<Double>](repeating: SIMD8(repeating: -140), count: ring)
        var blocks = 1
        while blocks < ring / 8 + 3 { blocks *= 2 }
        blockMax = [SIMD8<Double>](repeating: SIMD8(repeating: -140), count: blocks)
        decayedBlockMax = blockMax
        blockMask = blocks - 1
        micHistory = [SIMD8<Double>](repeating: SIMD8(repeating: -140), count: ring)
        learnable = [Bool](repeating: false, count: ring)
        scores = [Double](repeating: 0, count: searchMax + 1)
        referenceScores = scores
        bounds = [SIMD8<Double>](repeating: SIMD8(repeating: .infinity), count: searchMax + 1)
        boundFrames = frames(Self.boundSeconds)
        arrivals = [Int](repeating: 0, count: searchMax + 1)
        arrivalReach = searchMax
        changeColumns = [Double](repeating: 0, count: 9 * 2 * ring)
        let window = frames(c.echoGainWindowSeconds)
        envelopeGains = (0..<Self.maxBands).map { _ in RunningQuantile(window: window, quantile: 0.9) }
        settledGains = (0..<Self.maxBands).map { _ in RunningQuantile(window: window, quantile: 0.5) }
        trackedGains = (0..<Self.maxBands).map { _ in
            RunningQuantile(window: window, quantile: 0.5, upperQuantile: 0.75)
        }
        tailOffsets = (0..<Self.maxBands).map { _ in RunningQuantile(window: window, quantile: 0.5) }
        micQuiet = (0..<Self.maxBands).map { _ in RunningQuantile(window: frames(5), quantile: 0.1) }
        louderRecent = (0..<Self.maxBands).map { [louderWindow] _ in
            RunningQuantile(window: louderWindow / Self.louderStride, quantile: Self.louderQuantile)
        }
        louderBaselines = (0..<Self.maxBands).map { _ in
            RunningQuantile(window: window / Self.louderStride, quantile: Self.louderQuantile)
        }
    }

    /// One frame: the microphone's band levels `m` (dB) and the reference's band powers `rp`.
    /// - Parameters:
    ///   - m: The microphone's band levels, dB.
    ///   - rp: The reference's band powers.
    ///   - nearEnd: The detector hears the user (its last decision): the delay and the gains do not
    ///     learn from the frame — double talk is not echo.
    ///   - unexplained: The microphone stood out over what this model expected in the frame before,
    ///     or the detector is counting toward an onset: the gains do not learn from the frame (the
    ///     delay still does). It may be the user, not yet declared — a user talking over the agent's
    ///     first words taught the window model a gain as loud as his voice within a few frames, and
    ///     was then not heard at all (docs/design/vad-experiments.md).
    ///   - e: Set to the echo expected in this frame, with what it rests on (every field written: in
    ///     the caller's storage, where a returned estimate was copied twice, 234 bytes by `memcpy`).
    public mutating func update(
        mic m: SIMD8<Double>, reference rp: SIMD8<Double>, nearEnd: Bool = false, unexplained: Bool = false,
        into e: inout Estimate
    ) {
        // (A NaN band — a frame with a NaN sample — counts as silence, as the lane maxima below pass it over.)
        var r = fastDB(rp)
        r.replace(with: -140, where: .!(r .>= -140))
        for b in bandCount..<8 { r[b] = -140 }
        pushChange(Self.change(r, from: frames > 0 ? history[slot(1)] : r))
        history[head] = r
        writeBlock(r)
        // The same over the search range alone (without the tail): whether an echo may still be
        // arriving through the direct path.
        var direct = SIMD8<Double>(repeating: -140)
        windowMax(frames - searchMax, frames - searchMin, into: &direct)
        // The flat window: the whole search range and, beyond it, the reverberant tail at full level.
        var flat = direct
        windowMax(frames - searchMax - tail, frames - searchMax - 1, into: &flat)
        let active = largestLane(flat) > threshold
        activeFrames = active ? activeFrames + 1 : 0
        if !windowRetired {
            for b in 0..<bandCount { micQuiet[b].add(m[b]) }
        }
        micHistory[head] = m
        if boundInUse { learnBound(mic: m, reference: r) }
        learnable[head] = active && !nearEnd && !unexplained
        let micChange = Self.change(m, from: previousMic)
        previousMic = m
        estimateDelay(micChange: micChange, active: active && !nearEnd)
        trackOnsets(r)
        e = Estimate()
        e.bandCount = bandCount
        e.delayFrames = delay
        e.delayInDoubt = delay != nil && !delayStandsOut
        e.reverbMilliseconds = reverbMilliseconds
        e.reverbMeasured = decay < configuredDecay
        // (Before the delay is found, the flat window already expects the echo anywhere in it.)
        e.onsetGuard =
            delay.map { d in
                sinceOnset <= d + guardFrames && (sinceOnset >= d - Self.guardLeadFrames || !delayStandsOut)
            } ?? false
        // The echo follows from one frame before the direct path (the delay's fraction of a frame).
        // (`parts` is read only with a `start`: not an optional, whose 129 bytes went by `memcpy`.)
        let start = delay.map { max(searchMin, $0 - 1) }
        var parts = (direct: SIMD8<Double>(repeating: -140), tail: SIMD8<Double>(repeating: -140))
        if let start { parts = trackedParts(from: start) }
        let tracked = start.map { _ in laneMax(parts.direct, parts.tail) }
        // Whether the direct path plays in this frame, read by the tracked gain's learning, the watch
        // and `directPathHeard` (each passed over the ring for it: three times a frame).
        var plays = false
        if let start, let tracked { plays = directPathPlays(start: start, age: 0, tracked: tracked) }
        if active && !nearEnd && !unexplained {
            learn(mic: m, flat: flat, direct: direct, tracked: tracked, start: start, plays: plays)
            if start != nil, trackedLearnt >= learnFrames { learnTail(mic: m, parts: parts) }
        }
        // The decay learns from the pauses' frames whether or not they stood out (a slower room's tail
        // does): only what the detector heard as the user is left out.
        if active && !nearEnd, start != nil, trackedLearnt >= learnFrames {
            learnDecay(mic: m, change: micChange, parts: parts)
        }
        if !directPathHeard, start != nil { directPathHeard = plays }
        expect(into: &e, flat: flat, tracked: tracked, parts: parts)
        // A reference that has not played in the search window and its tail (no frame over
        // `reference_active_dbfs`: digital silence, or a 16-bit track's dither at −96 dBFS) brings no
        // echo. (Its dither's echo, expected far under the room's noise in every frame, kept the
        // bands' floors from ever learning: the noise read as speech.)
        if !active { e.echo = SIMD8(repeating: -.infinity) }
        if e.stage == .tracked, let tracked, let start {
            watchEchoLevel(
                mic: m, micChange: micChange, tracked: tracked, flat: flat, echo: e.echo, start: start,
                plays: plays, learnable: active && !nearEnd && !unexplained)
        }
        head = head + 1 == history.count ? 0 : head + 1
        frames += 1
    }

    /// The ring slot of the reference frame `d` frames before the current one (`head`).
    @inline(__always)
    func slot(_ d: Int) -> Int {
        let s = head - d
        return s < 0 ? s + history.count : s
    }

    /// The reference the echo follows once the delay is known, in two parts: the direct path (the
    /// lags `start` to `start + 2`) and the reverberant tail beyond it (to `start + tail`), each per
    /// band the max over its lags of the reference less `decay` per frame beyond `start` — for the
    /// frame `age` frames before the current one (0: this one, the tail from `decayedMax`; the
    /// replay uses older ones, lag by lag).
    /// (`mutating` though it only reads: see the type's note on its cost.)
    @inline(__always)
    mutating func trackedParts(from start: Int, age: Int = 0) -> (direct: SIMD8<Double>, tail: SIMD8<Double>) {
        var direct = SIMD8<Double>(repeating: -140)
        var tailPart = direct
        guard start + age <= frames else { return (direct, tailPart) }
        let last = min(start + tail, frames - age)
        for d in start...min(start + 2, last) {
            direct = laneMax(direct, history[slot(age + d)] - decay * Double(d - start))
        }
        guard start + 3 <= last else { return (direct, tailPart) }
        if age == 0 {
            // The frames `frames − last … frames − start − 3`, as g[u] = reference + decay·u.
            decayedMax(frames - last, frames - start - 3, into: &tailPart, less: decay * Double(frames - start))
        } else {
            for d in (start + 3)...last {
                tailPart = laneMax(tailPart, history[slot(age + d)] - decay * Double(d - start))
            }
        }
        return (direct, tailPart)
    }
}
