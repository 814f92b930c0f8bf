import RealModule

/// Streaming energy voice-activity detector for barge-in, optionally echo-aware.
///
/// ## Method
/// 1. **Bands.** Each sample goes through a DC/rumble high-pass and a cascade of one-pole
///    splits into four bands (below 300 Hz, 300–1000, 1000–3000, above 3000 Hz); a frame's
///    energy per band is its mean square in dB (full scale = 0 dB, as dBFS RMS).
/// 2. **Noise floor per band**: a running quantile (`floorQuantile`, default the 20th percentile)
///    of the band energy over the last `floorWindow` seconds. Stationary noise, hum and a talker's
///    own pauses set it; a quantile (not a minimum) also follows fluctuating noise such as babble.
///    A talker may fill up to (1 − quantile) of the window without lifting the floor; the price is
///    that a sudden lasting rise of the noise reads as speech for that long (4 s by default).
/// 3. **Echo model (with a far-end reference)**: the reference goes through the same bands. The
///    echo expected in band b is `G_b + max R_b` over the reference frames `echoDelayMin…Max` ago
///    (covers the echo path's delay and its reverberant tail), where the echo gain `G_b` is the
///    median of `mic_b − max R_b` over recent frames in which the reference was playing — mostly
///    echo-only frames, so the median ignores the user's double talk. Bands in which the
///    loudspeaker reproduces little (typically below 300 Hz) get a low gain, so the user's voice
///    there stands out even when the echo is louder overall.
/// 4. **Score**: per band, the excess of the frame energy over noise floor ⊕ expected echo (power
///    sum, echo raised by `echoMargin`), in dB; the frame score is the mean of the two largest band
///    excesses (the bands where speech stands out, robust to one noisy band).
/// 5. **Decision**: speech starts when the score is ≥ `enterThreshold` for `minimumSpeech` (and
///    the frame is above `absoluteThreshold` dBFS and within `talkerGate` of the loudest recent
///    speech); it ends when the score — averaged over `exitAverageFrames` frames, less the median
///    score of recent non-speech frames (what the noise alone shows over its floor) — has stayed
///    below `exitThreshold` for `hangover`. One decision per frame, stamped at the frame's end.
///
/// Streaming: input in any block sizes gives the same decisions (frames are assembled
/// internally); no allocation after init.
public struct VADConfiguration: Sendable, Hashable {
    /// Frame length, ms: 10, 20 or 30.
    public var frameMilliseconds: Double = 10
    /// Quantile of recent band energies taken as the noise floor.
    public var floorQuantile: Double = 0.2
    /// Window of the noise-floor quantile, s.
    public var floorWindowSeconds: Double = 5
    /// Start speech at this score (dB above noise ⊕ echo).
    public var enterThreshold: Double = 10
    /// Keep speech while the score is at least this, dB.
    public var exitThreshold: Double = 2
    /// Frames below this band-limited level (dBFS) are never speech.
    public var absoluteThreshold: Double = -65
    /// Speech must hold this long (ms) before it is declared; also the onset's confirmation delay.
    public var minimumSpeechMilliseconds: Double = 10
    /// Speech is held this long (ms) after the score drops below the exit threshold.
    public var hangoverMilliseconds: Double = 100
    /// With `--align`: onsets are moved back by the confirmation delay plus this, ms.
    public var preRollMilliseconds: Double = 0
    /// Speech starts and continues only within this many dB of the loudest recent speech (the 95th
    /// percentile of frame levels over `talkerWindowSeconds`): a voice far below the talker —
    /// babble, the agent's echo without a reference, a TV — is not speech. 0 disables.
    public var talkerGate: Double = 20
    public var talkerWindowSeconds: Double = 10
    /// Speech continues while the mean score of the last this-many frames is at least the exit
    /// threshold (1: the frame's own score); averaging keeps noise flicker from holding speech on.
    public var exitAverageFrames: Double = 5
    /// Reference: echo delay range searched (ms after the reference sample was played).
    public var echoDelayMinMilliseconds: Double = 10
    public var echoDelayMaxMilliseconds: Double = 150
    /// Reference: expected echo raised by this much, dB.
    public var echoMargin: Double = 6
    /// Reference: window of the echo-gain median, s, and the gain used before it has data, dB.
    public var echoGainWindowSeconds: Double = 4
    public var initialEchoGain: Double = 0
    /// Reference: a reference frame counts as playing above this level, dBFS.
    public var referenceActiveThreshold: Double = -55

    public init() {}

    /// Frames of score ≥ enter threshold needed to declare speech (`minimumSpeechMilliseconds` in
    /// whole frames, at least one).
    public var confirmFrames: Int { max(1, Int((minimumSpeechMilliseconds / frameMilliseconds).rounded(.up))) }

    public static let parameterNames = [
        "frame_ms", "floor_quantile", "floor_window_s", "enter_db", "exit_db", "absolute_dbfs", "min_speech_ms",
        "hangover_ms", "preroll_ms", "echo_delay_min_ms", "echo_delay_max_ms", "echo_margin_db", "echo_gain_window_s",
        "initial_echo_gain_db", "reference_active_dbfs", "talker_gate_db", "talker_window_s", "exit_average_frames",
    ]

    /// Parameter by its JSON name.
    public subscript(name: String) -> Double? {
        get {
            switch name {
            case "frame_ms": return frameMilliseconds
            case "floor_quantile": return floorQuantile
            case "floor_window_s": return floorWindowSeconds
            case "enter_db": return enterThreshold
            case "exit_db": return exitThreshold
            case "absolute_dbfs": return absoluteThreshold
            case "min_speech_ms": return minimumSpeechMilliseconds
            case "hangover_ms": return hangoverMilliseconds
            case "preroll_ms": return preRollMilliseconds
            case "echo_delay_min_ms": return echoDelayMinMilliseconds
            case "echo_delay_max_ms": return echoDelayMaxMilliseconds
            case "echo_margin_db": return echoMargin
            case "echo_gain_window_s": return echoGainWindowSeconds
            case "initial_echo_gain_db": return initialEchoGain
            case "reference_active_dbfs": return referenceActiveThreshold
            case "talker_gate_db": return talkerGate
            case "talker_window_s": return talkerWindowSeconds
            case "exit_average_frames": return exitAverageFrames
            default: return nil
            }
        }
        set {
            guard let v = newValue else { return }
            switch name {
            case "frame_ms": frameMilliseconds = v
            case "floor_quantile": floorQuantile = v
            case "floor_window_s": floorWindowSeconds = v
            case "enter_db": enterThreshold = v
            case "exit_db": exitThreshold = v
            case "absolute_dbfs": absoluteThreshold = v
            case "min_speech_ms": minimumSpeechMilliseconds = v
            case "hangover_ms": hangoverMilliseconds = v
            case "preroll_ms": preRollMilliseconds = v
            case "echo_delay_min_ms": echoDelayMinMilliseconds = v
            case "echo_delay_max_ms": echoDelayMaxMilliseconds = v
            case "echo_margin_db": echoMargin = v
            case "echo_gain_window_s": echoGainWindowSeconds = v
            case "initial_echo_gain_db": initialEchoGain = v
            case "reference_active_dbfs": referenceActiveThreshold = v
            case "talker_gate_db": talkerGate = v
            case "talker_window_s": talkerWindowSeconds = v
            case "exit_average_frames": exitAverageFrames = v
            default: break
            }
        }
    }

    /// Checks ranges; the message names the parameter.
    public func validate() throws(AudioPipelineError) {
        func check(_ ok: Bool, _ what: String) throws(AudioPipelineError) {
            if !ok { throw AudioPipelineError(.invalidConfiguration, "VAD: \(what)") }
        }
        try check([10.0, 20, 30].contains(frameMilliseconds), "frame_ms must be 10, 20 or 30 (is \(frameMilliseconds))")
        try check(floorQuantile > 0 && floorQuantile < 1, "floor_quantile must be in (0, 1)")
        try check(floorWindowSeconds >= 0.2 && floorWindowSeconds <= 60, "floor_window_s must be in [0.2, 60]")
        try check(exitThreshold <= enterThreshold, "exit_db (\(exitThreshold)) must not exceed enter_db (\(enterThreshold))")
        try check(enterThreshold > -20 && enterThreshold < 60, "enter_db must be in (-20, 60)")
        try check(absoluteThreshold > -150 && absoluteThreshold <= 0, "absolute_dbfs must be in (-150, 0]")
        try check(minimumSpeechMilliseconds >= 0 && minimumSpeechMilliseconds <= 1000, "min_speech_ms must be in [0, 1000]")
        try check(hangoverMilliseconds >= 0 && hangoverMilliseconds <= 5000, "hangover_ms must be in [0, 5000]")
        try check(preRollMilliseconds >= 0 && preRollMilliseconds <= 2000, "preroll_ms must be in [0, 2000]")
        try check(echoDelayMinMilliseconds >= 0 && echoDelayMaxMilliseconds >= echoDelayMinMilliseconds && echoDelayMaxMilliseconds <= 1000,
                  "echo delay range must satisfy 0 ≤ min ≤ max ≤ 1000 ms")
        try check(talkerGate >= 0 && talkerGate <= 100, "talker_gate_db must be in [0, 100]")
        try check(exitAverageFrames >= 1 && exitAverageFrames <= 8 && exitAverageFrames == exitAverageFrames.rounded(), "exit_average_frames must be a whole number in [1, 8]")
        try check(talkerWindowSeconds >= 0.5 && talkerWindowSeconds <= 120, "talker_window_s must be in [0.5, 120]")
        try check(echoGainWindowSeconds >= 0.2 && echoGainWindowSeconds <= 60, "echo_gain_window_s must be in [0.2, 60]")
    }

    /// Reads every parameter present in a JSON object (the file `vad tune` writes); unknown keys
    /// are an error, so a typo is not silently ignored.
    public init(json: JSONValue) throws(AudioPipelineError) {
        self.init()
        guard let o = json.object else { throw AudioPipelineError(.invalidData, "VAD configuration must be a JSON object") }
        for (k, v) in o {
            if k == "_comment" || k == "scores" { continue }
            guard Self.parameterNames.contains(k) else {
                throw AudioPipelineError(.invalidData, "unknown VAD parameter '\(k)' (known: \(Self.parameterNames.joined(separator: ", ")))")
            }
            guard let d = v.number else { throw AudioPipelineError(.invalidData, "VAD parameter '\(k)' must be a number") }
            self[k] = d
        }
        try validate()
    }

    /// The configuration as a JSON object, one key per parameter.
    public var json: String {
        "{\n" + Self.parameterNames.map { "  \"\($0)\": \(formatNumber(self[$0]!))" }.joined(separator: ",\n") + "\n}\n"
    }
}

/// A running quantile over the last `window` values, on a histogram of 0.25 dB bins from −140 dB
/// to +20 dB. The quantile bin moves by small steps as values come and go: O(1) amortised.
struct RunningQuantile {
    static let low = -140.0, step = 0.25, bins = 640
    private var counts: [Int32]
    private var ring: [Int16]
    private var head = 0, count = 0
    private var index = 0, below = 0
    /// `power` of bin `index`'s centre.
    private var indexPower = power(low + 0.5 * step)
    let quantile: Double

    init(window: Int, quantile: Double) {
        counts = [Int32](repeating: 0, count: Self.bins)
        ring = [Int16](repeating: 0, count: max(1, window))
        self.quantile = quantile
    }

    var isEmpty: Bool { count == 0 }
    var size: Int { count }

    /// The bin of `v` dB (NaN counts as the lowest). Truncation of a non-negative value is its
    /// floor, and ×4 is exactly ÷0.25: no division and no libm `floor` call (SSE2 has no `roundsd`).
    @inline(__always) static func bin(_ v: Double) -> Int {
        let x = (v - low) * (1 / step)
        return x >= 0 ? (x < Double(bins) ? Int(x) : bins - 1) : 0
    }

    mutating func add(_ v: Double) {
        if count == ring.count { remove(Int(ring[head])); head = head + 1 == ring.count ? 0 : head + 1; count -= 1 }
        let b = Self.bin(v)
        var tail = head + count
        if tail >= ring.count { tail -= ring.count }
        ring[tail] = Int16(b)
        count += 1
        counts[b] += 1
        if b < index { below += 1 }
        settle()
    }

    private mutating func remove(_ b: Int) {
        counts[b] -= 1
        if b < index { below -= 1 }
    }

    mutating func reset() {
        for i in 0..<counts.count { counts[i] = 0 }
        head = 0; count = 0; index = 0; below = 0
        indexPower = power(Self.low + 0.5 * Self.step)
    }

    /// Moves `index` to the smallest bin whose cumulative count exceeds quantile·count.
    private mutating func settle() {
        let target = Double(count) * quantile
        let was = index
        defer { if index != was { indexPower = power(Self.low + (Double(index) + 0.5) * Self.step) } }
        while index > 0 && Double(below) > target {
            index -= 1
            below -= Int(counts[index])
        }
        while index < Self.bins - 1 && Double(below + Int(counts[index])) <= target {
            below += Int(counts[index])
            index += 1
        }
    }

    /// The quantile (centre of its bin), or `fallback` when empty.
    func value(or fallback: Double) -> Double {
        count == 0 ? fallback : Self.low + (Double(index) + 0.5) * Self.step
    }

    /// `value(or:)` and its power (`power(value)`); the power is recomputed only when the quantile
    /// moves to another bin (a noise floor does so rarely), not per frame.
    @inline(__always)
    func valueAndPower(or fallback: Double) -> (db: Double, power: Double) {
        count == 0 ? (fallback, power(fallback)) : (Self.low + (Double(index) + 0.5) * Self.step, indexPower)
    }
}

/// The per-frame band analysis: splits a signal into four bands and returns per-frame band powers
/// (mean square, linear: full scale = 1). Streaming over any block sizes: samples are gathered
/// into whole frames (straight from the caller's buffer when a whole frame is there), and each
/// frame goes through the same computation, so block sizes cannot change a result.
///
/// ## Four segments at once
/// The filters are recursions (each sample needs the previous output), so one sample at a time
/// they run at ~9 cycles per sample on x86-64's SSE2 baseline — one multiply-add chain per
/// filter and ~36 instructions. The cascade is linear, though, so a frame is cut into four
/// segments of L samples that run side by side in the lanes of `SIMD4<Float>`:
/// 1. Where segment k would end from a zero state is a fixed linear function of its samples:
///    four dot products (one per state) with weights worked out at init.
/// 2. True start states, one segment after the other: start(k+1) = Aᴸ·start(k) + zeroStateEnd(k),
///    Aᴸ being the cascade's state after L silent samples per unit start state (also from init)
///    — a 4×4 matrix per frame, not per sample.
/// 3. All four segments from their true starts, squaring and summing the bands.
/// The result is the sequential one up to float rounding (test against a Double reference: 7e-6
/// relative). Band analysis per 20 ms frame at 16 kHz on this machine (benchmark "band analysis
/// only"): 0.80 µs sample by sample; 0.42 µs with the segments but step 1 as a zero-state SIMD
/// run of the recursions; 0.37 µs with the dot products. Measured first and all slower than the
/// sequential loop (Zen 4, SSE2): two samples per step (y[n+2] = b²·y[n] + …), the three
/// low-passes in SIMD4 lanes of one sample, the complement form r = b·(x − s′), the cascade
/// software-pipelined over three samples, and bands stored and squared afterwards.
public struct VADBandAnalyzer: Sendable {
    public static let bandCount = 4
    public static let splitsHz: [Double] = [300, 1000, 3000]
    /// Band powers of silence (−140 dB each): what a missing reference frame counts as.
    public static let silence = SIMD4<Double>(repeating: 1e-14)
    public let frameLength: Int
    private let coefficients: Coefficients
    private let handOff: HandOff
    private let segmentLength: Int
    private var state = State()
    private var buffer: [Float]
    private var filled = 0

    /// Samples of the current, incomplete frame.
    public var pending: Int { filled }

    /// Below this many samples per segment a frame goes sample by sample (the hand-off's fixed
    /// cost would outweigh the gain); only partial last frames are this short.
    static let minimumSegment = 8

    public init(sampleRate: Int, frameLength: Int) {
        self.frameLength = frameLength
        func onePole(_ hz: Double) -> Double { 1 - Double.exp(-2 * Double.pi * hz / Double(sampleRate)) }
        let r = Double.exp(-2 * Double.pi * 80 / Double(sampleRate))
        let a = (onePole(Self.splitsHz[0]), onePole(Self.splitsHz[1]), onePole(Self.splitsHz[2]))
        coefficients = Coefficients(r: Float(r), a: (Float(a.0), Float(a.1), Float(a.2)))
        segmentLength = frameLength / 4
        buffer = [Float](repeating: 0, count: max(1, frameLength))
        handOff = HandOff(segmentLength: segmentLength, r: r, a: a)
    }

    public mutating func reset() {
        state = State(); filled = 0
    }

    /// Feeds samples; calls `frame` with the four band powers (mean square) of every completed frame.
    @inline(__always)
    public mutating func process(_ x: UnsafeBufferPointer<Float>, _ frame: (_ bands: SIMD4<Double>) -> Void) {
        guard let base = x.baseAddress else { return }
        var i = 0
        let n = x.count
        while i < n {
            if filled == 0 && n - i >= frameLength {
                frame(analyze(base + i, frameLength))
                i += frameLength
                continue
            }
            let m = min(frameLength - filled, n - i)
            let at = filled
            buffer.withUnsafeMutableBufferPointer { $0.baseAddress!.advanced(by: at).update(from: base + i, count: m) }
            filled += m
            i += m
            if filled == frameLength {
                filled = 0
                frame(buffer.withUnsafeBufferPointer { analyze($0.baseAddress!, frameLength) })
            }
        }
    }

    /// End of input: the band powers of the last, incomplete frame (over the samples it has), if
    /// there is one.
    public mutating func finish(_ frame: (_ bands: SIMD4<Double>) -> Void) {
        guard filled > 0 else { return }
        let n = filled
        filled = 0
        frame(buffer.withUnsafeBufferPointer { analyze($0.baseAddress!, n) })
    }

    /// Band powers of `n` samples that continue the stream.
    private mutating func analyze(_ x: UnsafePointer<Float>, _ n: Int) -> SIMD4<Double> {
        let sums: SIMD4<Float>
        if n == frameLength && segmentLength >= Self.minimumSegment {
            sums = handOff.weights.withUnsafeBufferPointer {
                Self.segmented(x, segmentLength, n, &state, coefficients, handOff, $0.baseAddress!)
            }
        } else {
            sums = Self.sequential(x, n, &state, coefficients)
        }
        // A NaN or infinite sample (a corrupt float file) would poison the recursions for good:
        // that frame is lost (NaN powers count as silence-less non-speech), the next starts clean.
        if !(state.hpIn + state.hpOut + state.s0 + state.s1 + state.s2).isFinite { state = State() }
        return SIMD4<Double>(sums) * (1 / Double(n))
    }

    struct Coefficients {
        /// High-pass pole and the three one-pole low-pass coefficients.
        var r: Float
        var a: (Float, Float, Float)
    }

    /// Filter state between frames.
    struct State {
        var hpIn: Float = 0, hpOut: Float = 0
        var s0: Float = 0, s1: Float = 0, s2: Float = 0
    }

    /// One step of the cascade for every lane: `u` is the input's first difference (the high-pass
    /// is h = r·(h′ + x − x′)); updates the states and returns the four band values. Each
    /// recursion is written state·b + input·a, so its dependency chain is one multiply and one add.
    @inline(__always)
    static func step(
        _ u: SIMD4<Float>, _ h: inout SIMD4<Float>, _ s0: inout SIMD4<Float>, _ s1: inout SIMD4<Float>, _ s2: inout SIMD4<Float>,
        _ r: Float, _ a: (Float, Float, Float), _ b: (Float, Float, Float)
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        h = r * (h + u)
        s0 = b.0 * s0 + a.0 * h
        let r1 = h - s0
        s1 = b.1 * s1 + a.1 * r1
        let r2 = r1 - s1
        s2 = b.2 * s2 + a.2 * r2
        return (s0, s1, s2, r2 - s2)
    }

    /// Sample by sample (partial frames and the few samples past the segments); returns the sums
    /// of squares. Lane 0 only: a packed SSE operation costs what a scalar one does.
    @inline(never)
    static func sequential(_ x: UnsafePointer<Float>, _ n: Int, _ st: inout State, _ c: Coefficients) -> SIMD4<Float> {
        var prev = SIMD4<Float>(st.hpIn, 0, 0, 0), h = SIMD4<Float>(st.hpOut, 0, 0, 0)
        var s0 = SIMD4<Float>(st.s0, 0, 0, 0), s1 = SIMD4<Float>(st.s1, 0, 0, 0), s2 = SIMD4<Float>(st.s2, 0, 0, 0)
        let b = (1 - c.a.0, 1 - c.a.1, 1 - c.a.2)
        var e = SIMD4<Float>()
        for k in 0..<n {
            let v = SIMD4<Float>(x[k], 0, 0, 0)
            let (y0, y1, y2, y3) = step(v - prev, &h, &s0, &s1, &s2, c.r, c.a, b)
            prev = v
            let y = SIMD4(y0[0], y1[0], y2[0], y3[0])
            e += y * y
        }
        st = State(hpIn: prev[0], hpOut: h[0], s0: s0[0], s1: s1[0], s2: s2[0])
        return e
    }

    /// What carries a segment's state to the next: Aᴸ, the cascade's state after L silent samples
    /// per unit start state (by columns: h, s0, s1, s2), and the weights that give a segment's
    /// zero-state end state as dot products with its samples. All worked out in Double at init.
    struct HandOff {
        var carry: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
        /// Group i of four samples: weights[4i + d] for state d (zero past the segment's end).
        var weights: [SIMD4<Float>]
        var groups: Int
        /// Weights of the sample before the segment (the high-pass takes first differences).
        var previous: SIMD4<Float>

        init(segmentLength L: Int, r: Double, a: (Double, Double, Double)) {
            func step(_ s: SIMD4<Double>, _ u: Double) -> SIMD4<Double> {
                var (h, s0, s1, s2) = (s[0], s[1], s[2], s[3])
                h = r * (h + u)
                s0 += a.0 * (h - s0)
                s1 += a.1 * (h - s0 - s1)
                s2 += a.2 * (h - s0 - s1 - s2)
                return SIMD4(h, s0, s1, s2)
            }
            func decay(_ start: SIMD4<Double>) -> SIMD4<Float> {
                var s = start
                for _ in 0..<L { s = step(s, 0) }
                return SIMD4<Float>(s)
            }
            carry = (decay(SIMD4(1, 0, 0, 0)), decay(SIMD4(0, 1, 0, 0)), decay(SIMD4(0, 0, 1, 0)), decay(SIMD4(0, 0, 0, 1)))
            // g[j]: the end state from a unit first difference at sample j (the response decayed
            // over the L − 1 − j samples after it). End = Σ g[j]·(x[j] − x[j−1]) = Σ (g[j] − g[j+1])·x[j] − g[0]·x[−1].
            var g = [SIMD4<Double>](repeating: .zero, count: L + 1)
            if L > 0 {
                g[L - 1] = step(.zero, 1)
                for j in stride(from: L - 2, through: 0, by: -1) { g[j] = step(g[j + 1], 0) }
            }
            groups = (L + 3) / 4
            weights = [SIMD4<Float>](repeating: .zero, count: max(1, 4 * groups))
            for j in 0..<L {
                let w = g[j] - g[j + 1]
                for d in 0..<4 { weights[4 * (j / 4) + d][j % 4] = Float(w[d]) }
            }
            previous = SIMD4<Float>(-g[0])
        }

        /// The state after a segment that started at `start`.
        @inline(__always)
        func advance(_ start: SIMD4<Float>, zeroStateEnd: SIMD4<Float>) -> SIMD4<Float> {
            let decayed: SIMD4<Float> = carry.0 * start[0] + carry.1 * start[1]
            let rest: SIMD4<Float> = carry.2 * start[2] + carry.3 * start[3]
            return decayed + rest + zeroStateEnd
        }
    }

    /// A whole frame as four segments of `L` samples in SIMD lanes (see the type's notes), the
    /// `n − 4L` samples left over sample by sample; returns the sums of squares.
    @inline(never)
    static func segmented(
        _ x: UnsafePointer<Float>, _ L: Int, _ n: Int, _ st: inout State, _ c: Coefficients, _ handOff: HandOff,
        _ weights: UnsafePointer<SIMD4<Float>>
    ) -> SIMD4<Float> {
        let (x1, x2, x3) = (x + L, x + 2 * L, x + 3 * L)  // (pointers: no overflow checks per sample)
        // Where segment k would end from a zero state: four dot products with its samples. Reads up
        // to 3 samples past the segment (zero weights), still inside the frame (k ≤ 2, L ≥ 3).
        func zeroStateEnd(_ p: UnsafePointer<Float>, before: Float) -> SIMD4<Float> {
            var eh = SIMD4<Float>(), e0 = SIMD4<Float>(), e1 = SIMD4<Float>(), e2 = SIMD4<Float>()
            let raw = UnsafeRawPointer(p)
            for i in 0..<handOff.groups {
                let v = raw.loadUnaligned(fromByteOffset: 16 * i, as: SIMD4<Float>.self)
                eh += weights[4 * i] * v
                e0 += weights[4 * i + 1] * v
                e1 += weights[4 * i + 2] * v
                e2 += weights[4 * i + 3] * v
            }
            return SIMD4(eh.sum(), e0.sum(), e1.sum(), e2.sum()) + handOff.previous * before
        }
        // True start states, one segment after the other.
        let start0 = SIMD4(st.hpOut, st.s0, st.s1, st.s2)
        let start1 = handOff.advance(start0, zeroStateEnd: zeroStateEnd(x, before: st.hpIn))
        let start2 = handOff.advance(start1, zeroStateEnd: zeroStateEnd(x1, before: x[L - 1]))
        let start3 = handOff.advance(start2, zeroStateEnd: zeroStateEnd(x2, before: x[2 * L - 1]))
        // Every segment from its true start, summing squares.
        let b = (1 - c.a.0, 1 - c.a.1, 1 - c.a.2)
        var h = SIMD4(start0[0], start1[0], start2[0], start3[0])
        var s0 = SIMD4(start0[1], start1[1], start2[1], start3[1])
        var s1 = SIMD4(start0[2], start1[2], start2[2], start3[2])
        var s2 = SIMD4(start0[3], start1[3], start2[3], start3[3])
        var prev = SIMD4(st.hpIn, x[L - 1], x[2 * L - 1], x[3 * L - 1])
        var e0 = SIMD4<Float>(), e1 = SIMD4<Float>(), e2 = SIMD4<Float>(), e3 = SIMD4<Float>()
        for j in 0..<L {
            let v = SIMD4(x[j], x1[j], x2[j], x3[j])
            let (y0, y1, y2, y3) = step(v - prev, &h, &s0, &s1, &s2, c.r, c.a, b)
            prev = v
            e0 += y0 * y0
            e1 += y1 * y1
            e2 += y2 * y2
            e3 += y3 * y3
        }
        st = State(hpIn: x[4 * L - 1], hpOut: h[3], s0: s0[3], s1: s1[3], s2: s2[3])
        let sums = SIMD4(e0.sum(), e1.sum(), e2.sum(), e3.sum())
        return 4 * L < n ? sums + sequential(x + 4 * L, n - 4 * L, &st, c) : sums
    }
}

/// The per-frame tracker and decision logic, fed band energies. Separate from the band analysis so
/// `vad tune` computes the bands once per file and sweeps settings over them.
public struct VADDecider: Sendable {
    public struct Frame: Sendable, Hashable {
        /// Band-limited level of the frame (dBFS), its noise floor, the expected echo (−inf without a
        /// reference), the score (dB) and the decision.
        public var level: Double
        public var floor: Double
        public var echo: Double
        public var score: Double
        public var speech: Bool

        public init(level: Double, floor: Double, echo: Double, score: Double, speech: Bool) {
            self.level = level
            self.floor = floor
            self.echo = echo
            self.score = score
            self.speech = speech
        }
    }

    public let configuration: VADConfiguration
    public let frameSeconds: Double
    private var floors: [RunningQuantile]
    private var gains: [RunningQuantile]
    private var talker: RunningQuantile
    /// Median score of recent non-speech frames: the excess noise alone shows over its low-quantile
    /// floor (band-energy flicker). Subtracted, so thresholds are "above what the noise does".
    private var bias: RunningQuantile
    private var refHistory: [SIMD4<Double>]  // ring of reference band energies
    private var refHead = 0, refFrames = 0
    private let delayMin: Int, delayMax: Int
    /// Frames of score ≥ enter threshold needed to declare speech.
    public let confirmFrames: Int
    private let hangoverFrames: Int
    private var run = 0, quiet = 0
    private var recentScores = SIMD8<Double>()
    private var scoreCount = 0
    public private(set) var speaking = false

    public init(configuration c: VADConfiguration) throws(AudioPipelineError) {
        try c.validate()
        configuration = c
        frameSeconds = c.frameMilliseconds / 1000
        let frames = { (seconds: Double) in max(1, Int((seconds / (c.frameMilliseconds / 1000)).rounded())) }
        floors = (0..<VADBandAnalyzer.bandCount).map { _ in RunningQuantile(window: frames(c.floorWindowSeconds), quantile: c.floorQuantile) }
        gains = (0..<VADBandAnalyzer.bandCount).map { _ in RunningQuantile(window: frames(c.echoGainWindowSeconds), quantile: 0.5) }
        talker = RunningQuantile(window: frames(c.talkerWindowSeconds), quantile: 0.95)
        bias = RunningQuantile(window: frames(c.floorWindowSeconds), quantile: 0.5)
        delayMin = Int((c.echoDelayMinMilliseconds / c.frameMilliseconds).rounded(.down))
        delayMax = max(delayMin, Int((c.echoDelayMaxMilliseconds / c.frameMilliseconds).rounded(.up)))
        refHistory = [SIMD4<Double>](repeating: SIMD4(repeating: -140), count: delayMax + 1)
        confirmFrames = c.confirmFrames
        hangoverFrames = Int((c.hangoverMilliseconds / c.frameMilliseconds).rounded())
    }

    public mutating func reset() {
        for i in floors.indices { floors[i].reset(); gains[i].reset() }
        talker.reset()
        bias.reset()
        for i in refHistory.indices { refHistory[i] = SIMD4(repeating: -140) }
        refHead = 0; refFrames = 0; run = 0; quiet = 0; speaking = false
        recentScores = SIMD8(); scoreCount = 0
    }

    /// One frame: the mic's band powers (mean square, as `VADBandAnalyzer` gives them) and, with a
    /// far-end reference, the reference's.
    ///
    /// Cost: without a reference a frame takes six `log10` (four bands, the level and the floor) and
    /// no `exp10` — a noise floor is a histogram bin whose power comes from a table, and the excess
    /// over a floor alone is a difference of dB values. (The first version converted back and forth
    /// per band, about 20 transcendental calls, 0.4–0.5 µs of a 1.3 µs frame.)
    public mutating func process(mic p: SIMD4<Double>, reference rp: SIMD4<Double>? = nil) -> Frame {
        let c = configuration
        let m = SIMD4(db(p[0]), db(p[1]), db(p[2]), db(p[3]))
        var echo = SIMD4<Double>(repeating: -.infinity)
        let hasReference = rp != nil
        if let rp {
            let reference = SIMD4(db(rp[0]), db(rp[1]), db(rp[2]), db(rp[3]))
            // Store this frame's reference, then take the max over the delay window.
            refHistory[refHead] = reference
            let slots = delayMax + 1
            var maxR = SIMD4<Double>(repeating: -140)
            for d in delayMin...delayMax where d <= refFrames {
                var slot = refHead - d
                if slot < 0 { slot += slots }
                maxR = pointwiseMax(maxR, refHistory[slot])
            }
            refHead = refHead + 1 == slots ? 0 : refHead + 1
            refFrames += 1
            let playing = maxR.max() > c.referenceActiveThreshold
            for b in 0..<4 where maxR[b] > -120 {
                if playing { gains[b].add(m[b] - maxR[b]) }
                echo[b] = gains[b].value(or: c.initialEchoGain) + maxR[b]
            }
        }
        var excess = SIMD4<Double>()
        var floorPower = 0.0, echoPower = 0.0
        for b in 0..<4 {
            // With a reference, the noise floor learns only from frames without echo in the band (else
            // a talkative agent would lift the floor to its echo level); before any, it is negligible.
            let f = floors[b].valueAndPower(or: hasReference ? -100 : m[b])
            if echo[b] > -.infinity {
                excess[b] = m[b] - db(f.power + power(echo[b] + c.echoMargin))
                echoPower += power(echo[b])
            } else {
                floors[b].add(m[b])
                excess[b] = m[b] - f.db
            }
            floorPower += f.power
        }
        let level = pointwiseMax(p, SIMD4(repeating: 1e-14)).sum()
        // Mean of the two largest band excesses.
        var first = -Double.infinity, second = -Double.infinity
        for b in 0..<4 {
            let v = excess[b]
            if v > first { second = first; first = v } else if v > second { second = v }
        }
        let score = (first + second) / 2
        // What the noise alone shows (median score of recent non-speech frames), for the exit test.
        let noiseScore = max(0, bias.value(or: 0))
        if !speaking { bias.add(score) }
        let averaged = Int(c.exitAverageFrames)
        recentScores[scoreCount % 8] = score
        scoreCount += 1
        var exitScore = 0.0
        let taken = min(averaged, scoreCount)
        for k in 0..<taken { exitScore += recentScores[(scoreCount - 1 - k) % 8] }
        exitScore = exitScore / Double(taken) - noiseScore
        let levelDB = db(level)
        let loud = levelDB >= c.absoluteThreshold
        talker.add(levelDB)
        let dominant = c.talkerGate <= 0 || levelDB >= talker.value(or: levelDB) - c.talkerGate
        if speaking {
            if exitScore >= c.exitThreshold && loud && dominant { quiet = 0 } else { quiet += 1 }
            if quiet > hangoverFrames { speaking = false; quiet = 0; run = 0 }
        } else {
            if score >= c.enterThreshold && loud && dominant { run += 1 } else { run = 0 }
            if run >= confirmFrames { speaking = true; quiet = 0 }
        }
        return Frame(level: levelDB, floor: db(floorPower), echo: echoPower > 0 ? db(echoPower) : -.infinity, score: score, speech: speaking)
    }
}

/// The streaming detector, a `StreamingStage` (DESIGN.md): microphone samples in (mono, any block
/// sizes), one `VADDecider.Frame` out per completed frame, into caller-owned storage. With a far-end
/// reference, pass the same number of reference samples (the audio handed to playback, on the
/// mic's timeline) to `process(_:reference:into:)`. `finish` decides the last, incomplete frame.
/// `latency`: a speech onset shows in the decision of the `confirmFrames`-th frame from its start.
public struct EnergyVAD: StreamingStage, Sendable {
    public typealias Input = Float
    public typealias Output = VADDecider.Frame

    public let sampleRate: Int
    public let frameLength: Int
    private var mic: VADBandAnalyzer
    private var ref: VADBandAnalyzer
    public private(set) var decider: VADDecider
    /// Whether this stream came with a reference (so `finish` closes the reference's frame too).
    private var hasReference = false

    public init(sampleRate: Int, configuration: VADConfiguration) throws(AudioPipelineError) {
        try configuration.validate()
        guard sampleRate >= 4000 && sampleRate <= 384_000 else {
            throw AudioPipelineError(.invalidConfiguration, "VAD: sample rate \(sampleRate) Hz is out of range (4 kHz … 384 kHz)")
        }
        self.sampleRate = sampleRate
        frameLength = Int((Double(sampleRate) * configuration.frameMilliseconds / 1000).rounded())
        mic = VADBandAnalyzer(sampleRate: sampleRate, frameLength: frameLength)
        ref = VADBandAnalyzer(sampleRate: sampleRate, frameLength: frameLength)
        decider = try VADDecider(configuration: configuration)
    }

    public var latency: Int { decider.confirmFrames }

    /// Decisions `count` more samples can complete; with 0, what `finish` writes (at most one).
    public func maxOutputCount(forInput count: Int) -> Int {
        count == 0 ? 1 : (mic.pending + count) / frameLength
    }

    public mutating func reset() {
        mic.reset(); ref.reset(); decider.reset(); hasReference = false
    }

    public mutating func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<VADDecider.Frame>) -> ProcessResult {
        run(input, reference: nil, into: output)
    }

    /// As `process(_:into:)`, with the far-end reference: `reference.count` must equal `input.count`.
    public mutating func process(
        _ input: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<VADDecider.Frame>
    ) -> ProcessResult {
        precondition(reference.count == input.count, "VAD: reference block (\(reference.count)) differs from the mic block (\(input.count))")
        hasReference = true
        return run(input, reference: reference, into: output)
    }

    public mutating func finish(into output: UnsafeMutableBufferPointer<VADDecider.Frame>) -> Int {
        guard output.count > 0, mic.pending > 0 else { return 0 }
        var refFrame: SIMD4<Double>?
        if hasReference { ref.finish { refFrame = $0 } }
        var produced = 0
        mic.finish { bands in
            output[0] = decider.process(mic: bands, reference: hasReference ? refFrame ?? VADBandAnalyzer.silence : nil)
            produced = 1
        }
        return produced
    }

    /// Feeds at most up to the end of the current frame per step, so each step completes at most one
    /// frame in both streams (they are aligned), and stops when `output` is full.
    private mutating func run(
        _ input: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>?, into output: UnsafeMutableBufferPointer<VADDecider.Frame>
    ) -> ProcessResult {
        var consumed = 0, produced = 0
        while consumed < input.count && produced < output.count {
            let step = min(input.count - consumed, frameLength - mic.pending)
            var refFrame: SIMD4<Double>?
            if let reference { ref.process(UnsafeBufferPointer(rebasing: reference[consumed..<(consumed + step)])) { refFrame = $0 } }
            mic.process(UnsafeBufferPointer(rebasing: input[consumed..<(consumed + step)])) { bands in
                output[produced] = decider.process(mic: bands, reference: reference == nil ? nil : refFrame ?? VADBandAnalyzer.silence)
                produced += 1
            }
            consumed += step
        }
        return ProcessResult(consumed: consumed, produced: produced)
    }
}
