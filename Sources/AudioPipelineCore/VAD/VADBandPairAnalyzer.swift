/// A microphone and its far-end reference cut into eight bands (`splitsHz`) by steep filters
/// (fourth-order Butterworth, `VADSteepBank`), frame by frame: what `EnergyVAD` analyses a stream
/// with a reference with, and `vad tune` and `vad detect --explain` likewise. The echo model
/// predicts a band of the microphone from the same band of the reference, which the four wide
/// one-pole bands of `VADBandAnalyzer` blur (docs/design/vad-experiments.md).
///
/// The microphone's frames also go through the ring measure (`VADRingPredictor`): `process` hands
/// the callback each frame with its correlations summed (`VADBandFrame.ring`), or the predictor
/// itself (`process(mic:reference:withPredictor:)`) for a caller that sums them only where its
/// decision reads them (`EnergyVAD`, `VADDecider.process(mic:reference:ring:)`).
///
/// Streaming over any block sizes (the two signals in equal blocks): samples are gathered into
/// whole frames and each frame goes through the same computation, so block sizes cannot change a
/// result. A NaN or infinite sample loses its frame (its powers are NaN); the filters start clean
/// in the next.
public struct VADBandPairAnalyzer: Sendable {
    /// Number of bands (eight, split at `splitsHz`).
    public static let bandCount = 8
    /// Where the bands split, Hz: below 150, 150–300, 300–600, 600–1000, 1000–1800, 1800–3000,
    /// 3000–5000, above 5000 (empty at rates up to 11 kHz).
    public static let splitsHz: [Double] = [150, 300, 600, 1000, 1800, 3000, 5000]
    /// Samples per frame.
    public let frameLength: Int
    private var bank: VADSteepBank
    private var micBuffer: [Float]
    private var referenceBuffer: [Float]
    private var filled = 0
    /// The ring measure's filter and history over the microphone's frames.
    private var predictor: VADRingPredictor

    /// Samples of the current, incomplete frame.
    public var pending: Int { filled }

    /// An analyzer of audio at `sampleRate` in frames of `frameLength` samples; all state allocated here.
    /// - Parameters:
    ///   - sampleRate: Rate of both signals, Hz.
    ///   - frameLength: Samples per frame.
    public init(sampleRate: Int, frameLength: Int) {
        self.frameLength = frameLength
        bank = VADSteepBank(sampleRate: sampleRate)
        micBuffer = [Float](repeating: 0, count: max(1, frameLength))
        referenceBuffer = micBuffer
        predictor = VADRingPredictor(sampleRate: sampleRate, frameLength: frameLength)
    }

    /// Forgets the streams: filters and the pending frame start again.
    public mutating func reset() {
        bank.reset()
        filled = 0
        predictor.reset()
    }

    /// Feeds equal blocks of the microphone and the reference; calls `frame` with the microphone's
    /// band powers, quarters and ring correlations and the reference's band powers of every
    /// completed frame.
    /// - Parameters:
    ///   - mic: Microphone samples.
    ///   - reference: As many reference samples, on the microphone's timeline.
    ///   - frame: Called per completed frame.
    @inline(__always)
    public mutating func process(
        mic: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>,
        _ frame: (_ mic: VADBandFrame, _ reference: SIMD8<Double>) -> Void
    ) {
        process(mic: mic, reference: reference, withPredictor: { m, r, p in frame(p.summed(into: m), r) })
    }

    /// `process`, handing `frame` the ring predictor that holds the microphone frame's filtered
    /// samples instead of its correlations (`VADBandFrame.ring` is left empty): the callback sums
    /// them (`VADRingPredictor.correlations()`) only where it reads them, most of the measure's cost.
    /// - Parameters:
    ///   - mic: Microphone samples.
    ///   - reference: As many reference samples, on the microphone's timeline.
    ///   - frame: Called per completed frame, with the predictor as that frame left it.
    @inline(__always)
    public mutating func process(
        mic: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>,
        withPredictor frame: (_ mic: VADBandFrame, _ reference: SIMD8<Double>, _ ring: VADRingPredictor) -> Void
    ) {
        precondition(
            mic.count == reference.count,
            "VAD: reference block (\(reference.count)) differs from the mic block (\(mic.count))")
        guard let m = mic.baseAddress, let r = reference.baseAddress else { return }
        // The same frame cutting as `VADBandAnalyzer.process`, written out: one function taking the
        // per-frame work as closures cost 120–150 ns per 10 ms frame here (p50 1.87 → 2.01 µs,
        // 2026-11-27), against a 2 µs budget.
        var i = 0
        let n = mic.count
        while i < n {
            if filled == 0 && n - i >= frameLength {
                let f = analyze(m + i, r + i, frameLength)
                frame(f.mic, f.reference, predictor)
                i += frameLength
                continue
            }
            let count = min(frameLength - filled, n - i)
            let at = filled
            micBuffer.withUnsafeMutableBufferPointer {
                $0.baseAddress!.advanced(by: at).update(from: m + i, count: count)
            }
            referenceBuffer.withUnsafeMutableBufferPointer {
                $0.baseAddress!.advanced(by: at).update(from: r + i, count: count)
            }
            filled += count
            i += count
            if filled == frameLength {
                filled = 0
                let f = analyzeBuffers(frameLength)
                frame(f.mic, f.reference, predictor)
            }
        }
    }

    /// End of input: the last, incomplete frame (over the samples it has), if there is one.
    public mutating func finish(_ frame: (_ mic: VADBandFrame, _ reference: SIMD8<Double>) -> Void) {
        finish(withPredictor: { m, r, p in frame(p.summed(into: m), r) })
    }

    /// `finish`, handing `frame` the ring predictor (see `process(mic:reference:withPredictor:)`).
    public mutating func finish(
        withPredictor frame: (_ mic: VADBandFrame, _ reference: SIMD8<Double>, _ ring: VADRingPredictor) -> Void
    ) {
        guard filled > 0 else { return }
        let n = filled
        filled = 0
        let f = analyzeBuffers(n)
        frame(f.mic, f.reference, predictor)
    }

    /// `analyze` over the gathered frame. (The buffers are read through local references: `analyze`
    /// mutates `self`, and reading a stored array inside it would overlap that access.)
    private mutating func analyzeBuffers(_ n: Int) -> (mic: VADBandFrame, reference: SIMD8<Double>) {
        let m = micBuffer
        let r = referenceBuffer
        return m.withUnsafeBufferPointer { mp in
            r.withUnsafeBufferPointer { rp in analyze(mp.baseAddress!, rp.baseAddress!, n) }
        }
    }

    /// One frame of `n` samples of each: band powers (mean squares; a band holding nothing counts as
    /// silence, −140 dB) and the microphone's quarters (mean squares above 300 Hz); the microphone's
    /// samples go through the ring measure's filter (its correlations are summed on demand).
    private mutating func analyze(_ m: UnsafePointer<Float>, _ r: UnsafePointer<Float>, _ n: Int)
        -> (mic: VADBandFrame, reference: SIMD8<Double>)
    {
        let length = (n + 3) / 4
        let sums = bank.run(m, r, n, quarterLength: length)
        if !bank.isFinite { bank.reset() }
        let counts = SIMD4<Float>(Float(length), Float(length), Float(length), Float(max(1, n - 3 * length)))
        func powers(_ e: SIMD8<Float>) -> SIMD8<Double> {
            var p = SIMD8<Double>(e) * (1 / Double(n))
            p.replace(with: Self.silence, where: p .< Self.silence)  // (a NaN stays one)
            return p
        }
        let micBands = powers(sums.mic)
        predictor.filter(m, n)
        return (VADBandFrame(bands: micBands, quarters: sums.quarters / counts), powers(sums.reference))
    }

    /// Band powers of silence (−140 dB each): what a missing reference frame counts as.
    public static let silence = SIMD8<Double>(repeating: 1e-14)
}
