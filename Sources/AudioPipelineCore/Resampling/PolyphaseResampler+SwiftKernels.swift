// The portable Swift SIMD kernels of `PolyphaseResampler`: five dot products and the two
// fixed-order horizontal reductions they end with. Every output of one instance is summed in the
// same order, so results do not depend on which kernel (single or batched) computed them, nor on
// how the input was chunked. The C kernels (`CVectorKernels`, fir.c) are their AVX2/NEON twins.

extension PolyphaseResampler {
    /// Two dot products of coefficient sets `a0` and `a1` with the same input `b`, each summed in
    /// exactly the order `dot` uses.
    @inline(__always)
    static func dotShared(
        _ a0: UnsafePointer<Float>, _ a1: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int
    ) -> (Float, Float) {
        let r0 = UnsafeRawPointer(a0), r1 = UnsafeRawPointer(a1), rb = UnsafeRawPointer(b)
        var p0 = SIMD8<Float>.zero, p1 = SIMD8<Float>.zero, q0 = SIMD8<Float>.zero, q1 = SIMD8<Float>.zero
        var i = 0
        while i &+ 16 <= n {
            let x0 = rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            let x1 = rb.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self)
            p0 += r0.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self) * x0
            p1 += r0.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self) * x1
            q0 += r1.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self) * x0
            q1 += r1.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self) * x1
            i &+= 16
        }
        if i < n {
            let x0 = rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            p0 += r0.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self) * x0
            q0 += r1.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self) * x0
        }
        return reduce2(p0 + p1, q0 + q1)
    }

    /// Σ a[i]·b[i] with one accumulator: the order every output of a 2×-upsampling instance uses.
    @inline(__always)
    static func dotSingle(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var acc = SIMD8<Float>.zero
        var i = 0
        while i < n {
            acc +=
                ra.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            i &+= 8
        }
        return reduce(acc)
    }

    /// Four outputs of 2× upsampling at once: phases `a0`, `a1` over the window at `b` and over
    /// the next window (`b + 1`), each summed exactly as `dotSingle` sums it. Coefficient and
    /// input loads are each shared by two outputs.
    @inline(__always)
    static func dotQuad(
        _ a0: UnsafePointer<Float>, _ a1: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int
    ) -> (Float, Float, Float, Float) {
        let r0 = UnsafeRawPointer(a0), r1 = UnsafeRawPointer(a1), rb = UnsafeRawPointer(b)
        var p = SIMD8<Float>.zero, q = SIMD8<Float>.zero, u = SIMD8<Float>.zero, v = SIMD8<Float>.zero
        var i = 0
        while i < n {
            let c0 = r0.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            let c1 = r1.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            let x0 = rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            let x1 = rb.loadUnaligned(fromByteOffset: i &* 4 &+ 4, as: SIMD8<Float>.self)
            p += c0 * x0
            q += c1 * x0
            u += c0 * x1
            v += c1 * x1
            i &+= 8
        }
        let (y0, y1) = reduce2(p, q), (y2, y3) = reduce2(u, v)
        return (y0, y1, y2, y3)
    }

    /// Four decimation outputs at once: coefficients `a` over the windows at `b`, `b + stride`,
    /// `b + 2·stride`, `b + 3·stride`, each summed exactly as `dotSingle` sums it.
    @inline(__always)
    static func dotQuadShared(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ stride: Int, _ n: Int
    ) -> (Float, Float, Float, Float) {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        let s1 = stride &* 4, s2 = stride &* 8, s3 = stride &* 12
        var p = SIMD8<Float>.zero, q = SIMD8<Float>.zero, u = SIMD8<Float>.zero, v = SIMD8<Float>.zero
        var i = 0
        while i < n {
            let o = i &* 4
            let c = ra.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
            p += c * rb.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
            q += c * rb.loadUnaligned(fromByteOffset: o &+ s1, as: SIMD8<Float>.self)
            u += c * rb.loadUnaligned(fromByteOffset: o &+ s2, as: SIMD8<Float>.self)
            v += c * rb.loadUnaligned(fromByteOffset: o &+ s3, as: SIMD8<Float>.self)
            i &+= 8
        }
        let (y0, y1) = reduce2(p, q), (y2, y3) = reduce2(u, v)
        return (y0, y1, y2, y3)
    }

    /// The horizontal sum every dot product ends with, in one fixed order:
    /// `((v0+v4) + (v2+v6)) + ((v1+v5) + (v3+v7))`.
    @inline(__always)
    static func reduce(_ v: SIMD8<Float>) -> Float {
        let h = v.lowHalf + v.highHalf
        let t = h.lowHalf + h.highHalf
        return t[0] + t[1]
    }

    /// `reduce` of two vectors at once (same order for each, so the same results).
    @inline(__always)
    static func reduce2(_ p: SIMD8<Float>, _ q: SIMD8<Float>) -> (Float, Float) {
        let ph = p.lowHalf + p.highHalf, qh = q.lowHalf + q.highHalf
        let t =
            SIMD4(lowHalf: ph.lowHalf, highHalf: qh.lowHalf)
            + SIMD4(lowHalf: ph.highHalf, highHalf: qh.highHalf)
        return (t[0] + t[1], t[2] + t[3])
    }

    /// Σ a[i]·b[i] over `n` (a multiple of 8) terms, in a fixed order: two 8-lane accumulators.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var acc0 = SIMD8<Float>.zero, acc1 = SIMD8<Float>.zero
        var i = 0
        while i &+ 16 <= n {
            acc0 +=
                ra.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            acc1 +=
                ra.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self)
            i &+= 16
        }
        if i < n {
            acc0 +=
                ra.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
        }
        return reduce(acc0 + acc1)
    }
}
