/// The ring rule (docs/design/vad-experiments.md, "A clink's ring predicted from 2 ms before" and
/// "A clink's ring over the echo", 2026-12-03): a frame out of speech that stands out more above
/// 1 kHz than under it and whose sound there its own samples 2 ms earlier predict opens no speech
/// — a struck glass's or dish's few lasting partials, which no voice's many harmonics and no
/// fricative's noise are. Without a reference "stands out" is a band's power over its noise floor
/// (`standsOutAbove1k`); with one, its excess over noise ⊕ the expected echo, by
/// `ringMarginOverEcho` (`standsOutAbove1kOverEcho`). The gain is solved only for such a frame
/// that would open speech otherwise (`rings`), and `EnergyVAD` sums the correlations it is solved
/// from only then: it hands the decider the analyzer's predictor (`process(mic:reference:ring:)`).
extension VADDecider {
    /// The ring gain (`VADRingCorrelations.gain`) from which a frame that stands out above 1 kHz
    /// rings and opens no speech, dB. A clink's partials beat and ring on for
    /// 50–400 ms, and its run's level rises and falls as a voice's does (`declineSlope` misses the
    /// beats); what no voice does is predict itself from 2 ms before. Clinks without a reference
    /// 3.55 / 3.83 / 6.29 → 1.37 / 0.82 / 2.19 false triggers a minute on the three draws that chose
    /// 2 dB (seeds 11, 651, 691), 4.65 / 5.19 / 3.01 → 2.19 / 1.64 / 1.64 on three generated after
    /// the choice (841, 851, 861); the 38 dev items F1 0.9229 → 0.9228, real/ unchanged (0.8034)
    /// (docs/design/vad-experiments.md, "A clink's ring predicted from 2 ms before", 2026-12-03).
    /// With a reference the same gain (see `ringMarginOverEcho`).
    public static let ringGainMinimum = 2.0

    /// Whether what stands over the noise floors (a band's power less its floor's) stands more in a
    /// band above 1 kHz than in any under it (four bands: < 300, 300–1000, 1000–3000, > 3000 Hz).
    @inline(__always)
    static func standsOutAbove1k(powers: SIMD8<Double>, floors: SIMD8<Double>) -> Bool {
        let over = pointwiseMax(powers - floors, SIMD8())
        return max(over[2], over[3]) > max(over[0], over[1])
    }

    /// With a reference, how far the largest excess above 1 kHz (over noise ⊕ the expected echo)
    /// must stand over the largest under it for the frame's ring gain to be read, dB. A clink
    /// stands out above 1 kHz only (its partials at 1.5–6 kHz); a voice whose second formant is as
    /// strong as its first stands out about as much on both sides of 1 kHz, and can predict itself
    /// from 2 ms before on a frame or two (a dev barge-in item's voice rang at 0.1 dB more above 1
    /// kHz than under it, and was heard 90 ms late). Clinks over the sample agent's echo in 20
    /// random rooms: rooms with a false barge-in 10 / 8 / 9 / 5 → 1 / 4 / 4 / 2 on the four draws
    /// that chose it (0 to 6 dB the same rooms, but at 0 that voice; 10 dB lost a room), 5 / 20 /
    /// 5 / 8 / 5 / 5 → 0 / 1 / 2 / 0 / 1 / 2 on six drawn after; barge-in items, the echo grids and
    /// a user talking in 40 rooms unchanged.
    public static let ringMarginOverEcho = 6.0

    /// With a reference, whether the largest excess above 1 kHz stands `ringMarginOverEcho` over
    /// the largest under it (eight bands: 1000–1800 Hz and up against the four under 1 kHz).
    @inline(__always)
    static func standsOutAbove1kOverEcho(excess: SIMD8<Double>) -> Bool {
        let above = max(max(excess[4], excess[5]), max(excess[6], excess[7]))
        let below = max(max(excess[0], excess[1]), max(excess[2], excess[3]))
        return above > below + ringMarginOverEcho
    }

    /// Whether a frame that would open speech rings (`OnsetReading.mayRing` and a gain of
    /// `ringGainMinimum`): `ring` is asked for the correlations only where the frame may ring — with
    /// `EnergyVAD`, they are summed only then, a frame or two at an onset.
    @inline(__always)
    static func rings(_ reading: OnsetReading, _ ring: () -> VADRingCorrelations) -> Bool {
        reading.mayRing && Double(ring().gain()) >= ringGainMinimum
    }

    /// One frame, as `process(mic:reference:)`, whose ring correlations `ring` sums from the
    /// microphone frame's filtered samples only where the onset check reads them
    /// (`VADBandAnalyzer.process(_:withPredictor:)`,
    /// `VADBandPairAnalyzer.process(mic:reference:withPredictor:)`); `frame.ring` is not read. The
    /// same decisions as a frame that carries its correlations.
    /// - Parameters:
    ///   - frame: The microphone's band analysis.
    ///   - rp: The reference's band powers, if there is a reference.
    ///   - ring: The predictor as the microphone's frame left it.
    public mutating func process(
        mic frame: VADBandFrame, reference rp: SIMD8<Double>?, ring: VADRingPredictor
    ) -> Frame {
        var unused = Detail()
        return decide(mic: frame, reference: rp, ring: { ring.correlations() }, detail: &unused)
    }
}
