// The band analysis of a whole frame as four segments side by side in SIMD lanes.
//
// ## Four segments at once
// The filters are recursions (each sample needs the previous output), so one sample at a time
// they run at ~9 cycles per sample on x86-64's SSE2 baseline — one multiply-add chain per
// filter and ~36 instructions. The cascade is linear, though, so a frame is cut into four
// segments of L samples that run side by side in the lanes of `SIMD4<Float>`:
// 1. Where segment k would end from a zero state is a fixed linear function of its samples:
//    four dot products (one per state) with weights worked out at init.
// 2. True start states, one segment after the other: start(k+1) = Aᴸ·start(k) + zeroStateEnd(k),
//    Aᴸ being the cascade's state after L silent samples per unit start state (also from init)
//    — a 4×4 matrix per frame, not per sample.
// 3. All four segments from their true starts, squaring and summing the bands.
// The result is the sequential one up to float rounding (test against a Double reference: 7e-6
// relative). Band analysis per 20 ms frame at 16 kHz on this machine (benchmark "band analysis
// only"): 0.80 µs sample by sample; 0.42 µs with the segments but step 1 as a zero-state SIMD
// run of the recursions; 0.37 µs with the dot products. Measured first and all slower than the
// sequential loop (Zen 4, SSE2): two samples per step (y[n+2] = b²·y[n] + …), the three
// low-passes in SIMD4 lanes of one sample, the complement form r = b·(x − s′), the cascade
// software-pipelined over three samples, and bands stored and squared afterwards.

extension VADBandAnalyzer {
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
            carry = (
                decay(SIMD4(1, 0, 0, 0)), decay(SIMD4(0, 1, 0, 0)), decay(SIMD4(0, 0, 1, 0)), decay(SIMD4(0, 0, 0, 1))
            )
            // g[j]: the end state from a unit first difference at sample j (the response decayed
            // over the L − 1 − j samples after it).
            // End = Σ g[j]·(x[j] − x[j−1]) = Σ (g[j] − g[j+1])·x[j] − g[0]·x[−1].
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

    /// A whole frame as four segments of `L` samples in SIMD lanes (see the notes above), the
    /// `n − 4L` samples left over sample by sample; returns the sums of squares per band and the
    /// mean squares above 300 Hz per segment (the frame's quarters, the leftover samples in the last).
    @inline(never)
    static func segmented(
        _ x: UnsafePointer<Float>, _ L: Int, _ n: Int, _ st: inout State, _ c: Coefficients,
        _ handOff: HandOff, _ weights: UnsafePointer<SIMD4<Float>>
    ) -> (bands: SIMD4<Float>, quarters: SIMD4<Float>) {
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
        // Lane k of each band's sums is segment k: the quarters (above 300 Hz) come for two additions.
        var quarters = e1 + e2 + e3
        guard 4 * L < n else { return (sums, quarters * (1 / Float(L))) }
        var rest = SIMD4<Float>()
        let tail = sequential(x + 4 * L, n - 4 * L, &st, c, quarters: &rest, quarterLength: n)
        quarters[3] += rest[0]
        quarters *= SIMD4(1 / Float(L), 1 / Float(L), 1 / Float(L), 1 / Float(n - 3 * L))
        return (sums + tail, quarters)
    }
}
