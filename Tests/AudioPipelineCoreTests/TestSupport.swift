@testable import AudioPipelineCore

/// Deterministic random numbers for tests (SplitMix64), so failures reproduce.
struct TestRNG: RandomNumberGenerator {
    var inner: SplitMix64
    init(seed: UInt64) { inner = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { inner.next() }
}

/// Splits `total` into random block sizes in `1...maxBlock`, with runs of 1 included.
func randomBlocks(total: Int, maxBlock: Int, rng: inout TestRNG) -> [Int] {
    var sizes: [Int] = []
    var left = total
    while left > 0 {
        let s = Bool.random(using: &rng) && Bool.random(using: &rng) ? 1 : Int.random(in: 1...maxBlock, using: &rng)
        let take = min(s, left)
        sizes.append(take)
        left -= take
    }
    return sizes
}

/// Runs a stage over `input` cut into `blocks` (sizes in the stage's input units), with an output
/// buffer of exactly `maxOutputCount` per call, and returns everything it produced (then finish).
func runInBlocks<S: StreamingStage>(_ stage: inout S, _ input: [S.Input], blocks: [Int]) -> [S.Output]
where S.Output: Numeric {
    var out: [S.Output] = []
    var offset = 0
    let inStride = stage.inputStride, outStride = stage.outputStride
    input.withUnsafeBufferPointer { inp in
        for b in blocks {
            var slice = UnsafeBufferPointer(rebasing: inp[offset..<offset + b * inStride])
            var scratch = [S.Output](repeating: 0, count: max(stage.maxOutputCount(forInput: b), 1) * outStride)
            while !slice.isEmpty {
                let r = scratch.withUnsafeMutableBufferPointer { stage.process(slice, into: $0) }
                out.append(contentsOf: scratch[0..<r.produced * outStride])
                slice = UnsafeBufferPointer(rebasing: slice[(r.consumed * inStride)...])
                if r.consumed == 0 && r.produced == 0 { break }
            }
            offset += b * inStride
        }
    }
    out.append(contentsOf: stage.processAll([], finishing: true))
    return out
}

/// Compares two sequences and describes the first difference (never prints whole arrays).
func firstDifference<T: Equatable>(_ a: [T], _ b: [T]) -> String? {
    if a.count != b.count { return "lengths differ: \(a.count) vs \(b.count)" }
    for i in a.indices where a[i] != b[i] { return "first difference at \(i): \(a[i]) vs \(b[i])" }
    return nil
}
