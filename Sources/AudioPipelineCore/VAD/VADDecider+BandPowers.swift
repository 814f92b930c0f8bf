/// The decider fed band powers alone, without the analysis's quarters (no onset counts as late):
/// for tests, `vad tune`'s sweeps and callers with their own filter bank. Split from
/// VADDecider.swift (the core's file-size rule).
extension VADDecider {
    /// Four band powers alone (`VADBandAnalyzer`'s; no quarters: no onset counts as late).
    public mutating func process(mic p: SIMD4<Double>, reference rp: SIMD4<Double>? = nil) -> Frame {
        process(mic: VADBandFrame(bands: p), reference: rp.map { SIMD8(lowHalf: $0, highHalf: .zero) })
    }

    /// Four band powers alone, with the detail.
    public mutating func process(
        mic p: SIMD4<Double>, reference rp: SIMD4<Double>? = nil, detail: inout Detail
    ) -> Frame {
        process(mic: VADBandFrame(bands: p), reference: rp.map { SIMD8(lowHalf: $0, highHalf: .zero) }, detail: &detail)
    }

    /// Eight band powers alone (`VADBandPairAnalyzer`'s; no quarters: no onset counts as late).
    public mutating func process(mic p: SIMD8<Double>, reference rp: SIMD8<Double>? = nil) -> Frame {
        process(mic: VADBandFrame(bands: p), reference: rp)
    }
}
