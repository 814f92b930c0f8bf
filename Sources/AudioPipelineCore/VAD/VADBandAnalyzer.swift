import RealModule

/// The per-frame band analysis: splits a signal into four bands and returns per-frame band powers
/// (mean square, linear: full scale = 1), how the frame's energy is spread over its four
/// quarters, and how much of it above 1 kHz its samples 2 ms earlier predict (`VADBandFrame`,
/// `VADRingPredictor`). Streaming over any block sizes: samples are gathered
/// into whole frames (straight from the caller's buffer when a whole frame is there), and each
/// frame goes through the same computation, so block sizes cannot change a result.
///
/// Full frames run as four segments side by side in SIMD lanes (VADBandAnalyzer+Segmented.swift);
/// partial frames and the rest sample by sample (`sequential`).
public struct VADBandAnalyzer: Sendable {
    /// Number of bands (four, split at `splitsHz`).
    public static let bandCount = 4
    /// Where the bands split, Hz: below 300, 300–1000, 1000–3000, above 3000.
    public static let splitsHz: [Double] = [300, 1000, 3000]
    /// Band powers of silence (−140 dB each): what a missing reference frame counts as.
    public static let silence = SIMD4<Double>(repeating: 1e-14)
    /// Samples per frame.
    public let frameLength: Int
    let coefficients: Coefficients
    let handOff: HandOff
    let segmentLength: Int
    private var state = State()
    private var buffer: [Float]
    private var filled = 0
    /// The ring measure's filter and history (`VADBandFrame.ring`).
    private var predictor: VADRingPredictor

    /// Samples of the current, incomplete frame.
    public var pending: Int { filled }

    /// Below this many samples per segment a frame goes sample by sample (the hand-off's fixed
    /// cost would outweigh the gain); only partial last frames are this short.
    static let minimumSegment = 8

    /// An analyzer of audio at `sampleRate` in frames of `frameLength` samples; all state allocated here.
    public init(sampleRate: Int, frameLength: Int) {
        self.frameLength = frameLength
        func onePole(_ hz: Double) -> Double { 1 - Double.exp(-2 * Double.pi * hz / Double(sampleRate)) }
        let r = Double.exp(-2 * Double.pi * 80 / Double(sampleRate))
        let a = (onePole(Self.splitsHz[0]), onePole(Self.splitsHz[1]), onePole(Self.splitsHz[2]))
        coefficients = Coefficients(r: Float(r), a: (Float(a.0), Float(a.1), Float(a.2)))
        segmentLength = frameLength / 4
        buffer = [Float](repeating: 0, count: max(1, frameLength))
        handOff = HandOff(segmentLength: segmentLength, r: r, a: a)
        predictor = VADRingPredictor(sampleRate: sampleRate, frameLength: frameLength)
    }

    /// Forgets the stream: filters and the pending frame start again.
    public mutating func reset() {
        state = State()
        filled = 0
        predictor.reset()
    }

    /// Feeds samples; calls `frame` with the band powers, quarter energies and ring correlations
    /// of every completed frame.
    @inline(__always)
    public mutating func process(_ x: UnsafeBufferPointer<Float>, _ frame: (_ frame: VADBandFrame) -> Void) {
        process(x, withPredictor: { f, predictor in frame(predictor.summed(into: f)) })
    }

    /// Feeds samples; calls `frame` with every completed frame and the ring predictor that holds its
    /// filtered samples (`VADBandFrame.ring` is left empty): the callback sums the correlations
    /// (`VADRingPredictor.correlations()`, most of the analysis' cost) only where it reads them
    /// (`VADDecider.process(mic:reference:ring:)`).
    @inline(__always)
    public mutating func process(
        _ x: UnsafeBufferPointer<Float>, withPredictor frame: (_ frame: VADBandFrame, _ ring: VADRingPredictor) -> Void
    ) {
        guard let base = x.baseAddress else { return }
        var i = 0
        let n = x.count
        while i < n {
            if filled == 0 && n - i >= frameLength {
                frame(analyze(base + i, frameLength), predictor)
                i += frameLength
                continue
            }
            let m = min(frameLength - filled, n - i)
            let at = filled
            buffer.withUnsafeMutableBufferPointer {
                $0.baseAddress!.advanced(by: at).update(from: base + i, count: m)
            }
            filled += m
            i += m
            if filled == frameLength {
                filled = 0
                let f = buffer.withUnsafeBufferPointer { analyze($0.baseAddress!, frameLength) }
                frame(f, predictor)
            }
        }
    }

    /// End of input: the band powers of the last, incomplete frame (over the samples it has), if
    /// there is one.
    public mutating func finish(_ frame: (_ frame: VADBandFrame) -> Void) {
        finish(withPredictor: { f, predictor in frame(predictor.summed(into: f)) })
    }

    /// `finish`, handing `frame` the ring predictor (see `process(_:withPredictor:)`).
    public mutating func finish(withPredictor frame: (_ frame: VADBandFrame, _ ring: VADRingPredictor) -> Void) {
        guard filled > 0 else { return }
        let n = filled
        filled = 0
        let f = buffer.withUnsafeBufferPointer { analyze($0.baseAddress!, n) }
        frame(f, predictor)
    }

    /// Band powers and quarter energies of `n` samples that continue the stream; the samples go
    /// through the ring measure's filter (its correlations are summed on demand).
    private mutating func analyze(_ x: UnsafePointer<Float>, _ n: Int) -> VADBandFrame {
        let sums: (bands: SIMD4<Float>, quarters: SIMD4<Float>)
        if n == frameLength && segmentLength >= Self.minimumSegment {
            sums = handOff.weights.withUnsafeBufferPointer {
                Self.segmented(x, segmentLength, n, &state, coefficients, handOff, $0.baseAddress!)
            }
        } else {
            var quarters = SIMD4<Float>()
            let length = (n + 3) / 4
            let bands = Self.sequential(x, n, &state, coefficients, quarters: &quarters, quarterLength: length)
            // Mean squares: the last quarter holds what the first three left (at least one sample).
            let counts = SIMD4<Float>(Float(length), Float(length), Float(length), Float(max(1, n - 3 * length)))
            sums = (bands, quarters / counts)
        }
        // A NaN or infinite sample (a corrupt float file) would poison the recursions for good:
        // that frame is lost (NaN powers count as silence-less non-speech), the next starts clean.
        if !(state.hpIn + state.hpOut + state.s0 + state.s1 + state.s2).isFinite { state = State() }
        predictor.filter(x, n)
        return VADBandFrame(bands: SIMD4<Double>(sums.bands) * (1 / Double(n)), quarters: sums.quarters)
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
        _ u: SIMD4<Float>, _ h: inout SIMD4<Float>, _ s0: inout SIMD4<Float>, _ s1: inout SIMD4<Float>,
        _ s2: inout SIMD4<Float>, _ r: Float, _ a: (Float, Float, Float), _ b: (Float, Float, Float)
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
    /// of squares per band and adds each sample's energy above 300 Hz (bands 1–3) to
    /// `quarters[k / quarterLength]` (the last quarter at most). Lane 0 only: a packed SSE
    /// operation costs what a scalar one does.
    @inline(never)
    static func sequential(
        _ x: UnsafePointer<Float>, _ n: Int, _ st: inout State, _ c: Coefficients, quarters: inout SIMD4<Float>,
        quarterLength: Int
    ) -> SIMD4<Float> {
        var prev = SIMD4<Float>(st.hpIn, 0, 0, 0), h = SIMD4<Float>(st.hpOut, 0, 0, 0)
        var s0 = SIMD4<Float>(st.s0, 0, 0, 0), s1 = SIMD4<Float>(st.s1, 0, 0, 0)
        var s2 = SIMD4<Float>(st.s2, 0, 0, 0)
        let b = (1 - c.a.0, 1 - c.a.1, 1 - c.a.2)
        var e = SIMD4<Float>()
        for k in 0..<n {
            let v = SIMD4<Float>(x[k], 0, 0, 0)
            let (y0, y1, y2, y3) = step(v - prev, &h, &s0, &s1, &s2, c.r, c.a, b)
            prev = v
            let y = SIMD4(y0[0], y1[0], y2[0], y3[0])
            let energy = y * y
            e += energy
            quarters[min(3, k / max(1, quarterLength))] += energy[1] + energy[2] + energy[3]
        }
        st = State(hpIn: prev[0], hpOut: h[0], s0: s0[0], s1: s1[0], s2: s2[0])
        return e
    }
}

/// One frame's bands: the band powers (mean square, linear) — `VADBandAnalyzer`'s four or
/// `VADBandPairAnalyzer`'s eight — and the power above 300 Hz of each quarter of the frame (in time
/// order): how the frame's energy is spread in time, which tells a click (its energy in a few
/// milliseconds) from a voice; the lowest bands are left out, where rumble, hum and brown noise
/// would blur it. A stream's frames keep one layout (`VADDecider` learns a floor per band).
public struct VADBandFrame: Sendable, Hashable {
    /// The band powers (mean square, linear: full scale = 1); lanes from `bandCount` on are 0.
    public var bands: SIMD8<Double>
    /// How many bands: 4 (`VADBandAnalyzer`) or 8 (`VADBandPairAnalyzer`).
    public var bandCount: Int
    /// Power above 300 Hz of each quarter of the frame, in time order.
    public var quarters: SIMD4<Float>
    /// What the frame's ring gain is solved from (`VADRingCorrelations.gain`): how much of its
    /// sound above about 1 kHz its own samples 2 ms earlier predict, over its noise floor, dB
    /// (`VADRingPredictor`) — a clink's ring predicts itself (2–20 dB), a voice or a fricative
    /// does not (under 1.5 dB). None (a gain of 0) where not measured (callers that pass band
    /// powers alone, the frames the analyzers hand with their predictor: `withPredictor`).
    public var ring = VADRingCorrelations()

    /// A frame of `VADBandAnalyzer`'s four band powers and the quarter powers.
    public init(bands: SIMD4<Double>, quarters: SIMD4<Float>) {
        self.bands = SIMD8(lowHalf: bands, highHalf: .zero)
        bandCount = 4
        self.quarters = quarters
    }

    /// A frame of `VADBandPairAnalyzer`'s eight band powers and the quarter powers.
    public init(bands: SIMD8<Double>, quarters: SIMD4<Float>) {
        self.bands = bands
        bandCount = 8
        self.quarters = quarters
    }

    /// A frame of four bands whose energy is spread evenly over its quarters (what a caller
    /// without the quarters passes: no onset looks late).
    public init(bands: SIMD4<Double>) {
        self.init(bands: bands, quarters: SIMD4(repeating: Float(bands[1] + bands[2] + bands[3])))
    }

    /// A frame of eight bands whose energy is spread evenly over its quarters.
    public init(bands: SIMD8<Double>) {
        let above300 = bands[2] + bands[3] + bands[4] + bands[5] + bands[6] + bands[7]
        self.init(bands: bands, quarters: SIMD4(repeating: Float(above300)))
    }

    /// The first band above 300 Hz.
    var firstBandAbove300: Int { bandCount == 4 ? 1 : 2 }
}
