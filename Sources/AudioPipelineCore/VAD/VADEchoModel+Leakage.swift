import CVectorKernels
import RealModule

/// What a band of the steep filters lets through from another band's sound: split from
/// VADEchoModel+Expectation.swift, whose expected echo it raises and whose gains it keeps from
/// learning another band's.
///
/// The echo model predicts each band of the microphone from the same band of the reference, with that
/// band's gain. A reference whose sound sits in one band — a tone, an earcon, a held note — reaches
/// the other bands only through their filters' stopbands, and there the microphone holds what the
/// *tone's* band gain let through, not what the other band's own gain predicts. The echo path that
/// returned the agent's voice under 150 Hz 27 dB down returned a 700 Hz tone 8 dB down, and the
/// tone's leak into the band under 150 Hz stood 14 dB over the expected echo: a false barge-in
/// about 0.2 s into a 700 or 1000 Hz tone after speech. The other way round, a 125–200 Hz tone
/// (under the loudspeaker's cut) taught the bands over 300 Hz its own low gain, and the next words
/// were taken for the user (docs/design/vad-experiments.md). So:
/// - a band's expected echo is at least, for each band `k` two or more away, `k`'s gain over the part
///   of this band's reference that is `k`'s leak; and, where the band holds `neighbourMargin` less
///   than a neighbour leaks into it, that neighbour's gain over all of it (`withLeakage`);
/// - a band's tracked gain does not learn from a frame where another band with a lower gain leaks
///   into it more than its own reference holds (`leakLowers`).
extension VADEchoModel {
    /// Bands this far apart or farther raise each other's expected echo by the part of the band that
    /// may be their leak. Neighbours share their crossover (each −3 dB there): how much of a band's
    /// sound is its neighbour's depends on where in the neighbour the sound sits, which band powers
    /// cannot tell, and their gains differ by a few dB, which the margin (the model's own error)
    /// covers. (Counting neighbours so cost latency: p90 133 → 180, 132 → 148 and 132 → 144 ms on
    /// three draws of barge-in items.)
    static let expectationDistance = 2

    /// A band whose reference is this far under what a neighbour leaks into it (for the neighbour's
    /// sound at its centre) holds the neighbour's sound: its expected echo is at least the
    /// neighbour's gain over it. A 523–659 Hz tone near the 600 Hz split, in a loudspeaker that cuts
    /// under 500–600 Hz, reached the band two octaves down through the neighbour's gain, 12 dB over
    /// its own (chosen on earcon rooms of seed 3001: the two earcons near 600 Hz, 20 → 12 false
    /// barge-ins in 40 rooms; no barge-in item changed).
    static let neighbourMargin = 6.0

    /// `leakage[k][b]` for a stream at `sampleRate`: how much of band `k`'s sound (its power through
    /// its own filter) band `b`'s filter passes, dB, for sound at `k`'s centre (the geometric mean of
    /// its splits; 80 Hz and 8 kHz close the outer bands, 0.45 × the rate the highest it reaches);
    /// from the filters' own responses at that rate (`VADSteepBank.power`: near the Nyquist frequency
    /// the digital filters fall far faster than their analog design — up to 30 dB at 16 kHz among the
    /// three top bands). −1000 for `b == k` and for a band above the rate's reach. Sound at `k`'s
    /// split nearest `b` would leak most (as much as it passes `k` for neighbours, 24 dB less two
    /// bands away): that bound, taken for speech, put the loudspeaker's gain in the middle bands on
    /// the outer ones in half the frames (latency p90 133 → 162 ms on one draw of barge-in items);
    /// the centre's figure changed no barge-in there.
    static func leakageTable(sampleRate: Int) -> [SIMD8<Double>] {
        let splits = VADBandPairAnalyzer.splitsHz
        let bands = VADSteepBank.bands
        let reach = 0.45 * Double(sampleRate)
        return (0..<bands).map { k in
            let low = k == 0 ? 80 : splits[k - 1]
            let high = k == bands - 1 ? 8000 : splits[k]
            let centre = min(reach, Double.sqrt(low * high))
            let own = VADSteepBank.power(band: k, at: centre, sampleRate: sampleRate)
            var column = SIMD8<Double>(repeating: -1000)
            for b in 0..<bands where b != k && own > 0 {
                let passed = VADSteepBank.power(band: b, at: centre, sampleRate: sampleRate)
                if passed > 0 { column[b] = max(-1000, 10 * Double.log10(passed / own)) }
            }
            return column
        }
    }

    /// `table` without the pairs nearer than `expectationDistance` (−1000 there).
    static func distant(_ table: [SIMD8<Double>]) -> [SIMD8<Double>] {
        table.enumerated().map { k, column in
            var c = column
            for b in 0..<VADSteepBank.bands where abs(b - k) < expectationDistance { c[b] = -1000 }
            return c
        }
    }

    /// Per band, whether another band's sound leaks into it more than its own reference holds
    /// (`leakage[k][b] + x[k] > x[b]`, neighbours included) through a lower gain (`gains[k] <
    /// gains[b]`): a frame the band's tracked gain does not learn from (`learnTracked`). The
    /// microphone's band holds that band's echo through that band's gain, and learnt, it lowers the
    /// band's own: after a 125–200 Hz tone (under the loudspeaker's cut) the bands over 300 Hz had
    /// learnt its gain, 12–20 dB under theirs, and the next words were taken for the user. A higher
    /// gain still learns (the expected echo then stays over the leak, as before the table; leaving
    /// those frames out lowered the band over 5 kHz's gain and cost a false barge-in on two draws).
    /// Four bands (the one-pole analysis: no table): none.
    @inline(__always)
    func leakLowers(_ x: SIMD8<Double>, gains: SIMD8<Double>) -> SIMDMask<SIMD8<Int64>> {
        var lowers = SIMDMask<SIMD8<Int64>>(repeating: false)
        guard bandCount == VADSteepBank.bands else { return lowers }
        let table = leakage
        for k in 0..<VADSteepBank.bands {
            let leaked = table[k] + SIMD8(repeating: x[k])
            lowers .|= (leaked .> x) .& (SIMD8(repeating: gains[k]) .< gains)
        }
        return lowers
    }

    /// The expected echo `gains + x` (dB per band), raised where a band's reference holds another's
    /// leak: per band `b`, the most of `gains[b] + x[b]`, `gains[k] + min(x[b], distantLeakage[k][b] +
    /// x[k])` over the bands `k`, and `gains[k] + x[b]` over those where `x[b]` is `neighbourMargin`
    /// under `leakage[k][b] + x[k]`. Eight steep bands only (four are the one-pole analysis: no table).
    /// Per band k, with `gain` = gains[k] on every lane:
    ///
    ///     part = x, replaced by distant[k] + x[k] where that is less; echo = max(echo, part + gain)
    ///     echo = x + gain where x < all[k] + (x[k] − neighbourMargin) and echo < x + gain
    ///
    /// (for bands two or more apart the first line already gives as much), in C
    /// (`cvk_vad_leakage`, vadlanes.c: with AVX2, four lanes a register and a lane select one
    /// instruction; here, two lanes and three: 3.5 % of the frame; the same bits).
    /// (`mutating` though it only reads: see the type's note on its cost.)
    @inline(__always)
    mutating func withLeakage(gains: SIMD8<Double>, x: SIMD8<Double>) -> SIMD8<Double> {
        guard bandCount == VADSteepBank.bands else { return gains + x }
        var echo = SIMD8<Double>()
        withUnsafeBytes(of: gains) { g in
            withUnsafeBytes(of: x) { levels in
                withUnsafeMutableBytes(of: &echo) { e in
                    distantLeakage.withUnsafeBytes { distant in
                        leakage.withUnsafeBytes { all in
                            cvk_vad_leakage(
                                g.baseAddress!.assumingMemoryBound(to: Double.self),
                                levels.baseAddress!.assumingMemoryBound(to: Double.self),
                                distant.baseAddress!.assumingMemoryBound(to: Double.self),
                                all.baseAddress!.assumingMemoryBound(to: Double.self), Self.neighbourMargin,
                                e.baseAddress!.assumingMemoryBound(to: Double.self))
                        }
                    }
                }
            }
        }
        return echo
    }
}
