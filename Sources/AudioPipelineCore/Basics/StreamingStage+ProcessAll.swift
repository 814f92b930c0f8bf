extension StreamingStage {
    /// Convenience for arrays (tests, tools): processes the whole input, then finishes, growing the
    /// result as needed. Allocates; not for the hot path.
    public mutating func processAll(_ input: [Input], finishing: Bool = true) -> [Output]
    where Output: Numeric {
        var result: [Output] = []
        let units = input.count / inputStride
        let cap = Swift.max(maxOutputCount(forInput: units), maxOutputCount(forInput: 0), 1) * outputStride
        var scratch = [Output](repeating: 0, count: cap)
        input.withUnsafeBufferPointer { inp in
            var offset = 0
            while offset < units * inputStride {
                let r = scratch.withUnsafeMutableBufferPointer {
                    process(UnsafeBufferPointer(rebasing: inp[offset...]), into: $0)
                }
                result.append(contentsOf: scratch[0..<r.produced * outputStride])
                offset += r.consumed * inputStride
                if r.consumed == 0 && r.produced == 0 { break }  // defensive: never loop forever
            }
        }
        if finishing {
            while true {
                let n = scratch.withUnsafeMutableBufferPointer { finish(into: $0) }
                if n == 0 { break }
                result.append(contentsOf: scratch[0..<n * outputStride])
            }
        }
        return result
    }
}
