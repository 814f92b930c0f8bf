// The x86-64 FIR kernels, written once and compiled twice by fir.c: with 8 lanes (AVX2 + FMA,
// names as declared) and with 16 lanes (AVX-512F, names ending in _w16). fir.c defines, before
// each #include of this file:
//   FIR_TARGET       the function target attribute
//   FIR_VEC          the vector type (__m256, __m512) and FIR_LANES its float count
//   FIR_ZERO()       FIR_LOAD(p)  FIR_FMA(a, b, acc): zero, unaligned load, acc + a·b fused
//   FIR_LOADA(p)     an aligned load (p a multiple of FIR_LANES floats)
//   FIR_LOADA_FROM(p, r) / FIR_LOADA_BELOW(p, r)  the same with lanes below r / from r on zeroed
//   FIR_ROTATE(v, r) lane q of the result is lane (q + r) mod FIR_LANES of v
//   FIR_REDUCE1(v)   the horizontal sum of one accumulator, in the one fixed order
//   FIR_REDUCE4(p, q, u, v)  four of them at once (an __m128), each in FIR_REDUCE1's order
//   FIR_NAME(name)   the exported name
// and this file undefines them at its end, ready for the next width.
// Every output is one accumulator over its taps in order, summed by FIR_REDUCE1's order whichever
// kernel computes it (see fir.c). Not a header of the module: no include guard, on purpose.

FIR_TARGET static inline FIR_VEC FIR_NAME(acc)(const float *a, const float *b, size_t n) {
    FIR_VEC acc = FIR_ZERO();
    for (size_t i = 0; i < n; i += FIR_LANES) acc = FIR_FMA(FIR_LOAD(a + i), FIR_LOAD(b + i), acc);
    return acc;
}

FIR_TARGET float FIR_NAME(cvk_dot1)(const float *a, const float *b, size_t n) {
    return FIR_REDUCE1(FIR_NAME(acc)(a, b, n));
}

// The batch kernels keep eight accumulators in flight: a fused multiply-add has a 4-cycle latency
// and two issue per cycle, so fewer chains leave the units idle (four chains measured ~10 MACs per
// cycle, eight ~16 — the issue rate, with 8 lanes).

FIR_TARGET void FIR_NAME(cvk_decimate)(const float *a, const float *b, size_t stride, size_t n, size_t count, float *out,
                                       size_t out_stride) {
    size_t k = 0;
    for (; k + 8 <= count; k += 8) {
        const float *x = b + k * stride;
        FIR_VEC r0 = FIR_ZERO(), r1 = FIR_ZERO(), r2 = FIR_ZERO(), r3 = FIR_ZERO();
        FIR_VEC r4 = FIR_ZERO(), r5 = FIR_ZERO(), r6 = FIR_ZERO(), r7 = FIR_ZERO();
        for (size_t i = 0; i < n; i += FIR_LANES) {
            const FIR_VEC c = FIR_LOAD(a + i);
            const float *y = x + i;
            r0 = FIR_FMA(c, FIR_LOAD(y), r0);
            r1 = FIR_FMA(c, FIR_LOAD(y + stride), r1);
            r2 = FIR_FMA(c, FIR_LOAD(y + 2 * stride), r2);
            r3 = FIR_FMA(c, FIR_LOAD(y + 3 * stride), r3);
            r4 = FIR_FMA(c, FIR_LOAD(y + 4 * stride), r4);
            r5 = FIR_FMA(c, FIR_LOAD(y + 5 * stride), r5);
            r6 = FIR_FMA(c, FIR_LOAD(y + 6 * stride), r6);
            r7 = FIR_FMA(c, FIR_LOAD(y + 7 * stride), r7);
        }
        store4(FIR_REDUCE4(r0, r1, r2, r3), out + k * out_stride, out_stride);
        store4(FIR_REDUCE4(r4, r5, r6, r7), out + (k + 4) * out_stride, out_stride);
    }
    if (k + 4 <= count) {
        const float *x = b + k * stride;
        FIR_VEC r0 = FIR_ZERO(), r1 = FIR_ZERO(), r2 = FIR_ZERO(), r3 = FIR_ZERO();
        for (size_t i = 0; i < n; i += FIR_LANES) {
            const FIR_VEC c = FIR_LOAD(a + i);
            const float *y = x + i;
            r0 = FIR_FMA(c, FIR_LOAD(y), r0);
            r1 = FIR_FMA(c, FIR_LOAD(y + stride), r1);
            r2 = FIR_FMA(c, FIR_LOAD(y + 2 * stride), r2);
            r3 = FIR_FMA(c, FIR_LOAD(y + 3 * stride), r3);
        }
        store4(FIR_REDUCE4(r0, r1, r2, r3), out + k * out_stride, out_stride);
        k += 4;
    }
    for (; k < count; k++) out[k * out_stride] = FIR_REDUCE1(FIR_NAME(acc)(a, b + k * stride, n));
}

// Eight outputs of one coefficient set `a` at arbitrary windows x[0..8), each as FIR_NAME(acc) sums
// it, sharing the coefficient loads; written to out[idx[i]·out_stride].
FIR_TARGET static inline void FIR_NAME(gather8)(const float *a, const float *const x[8], size_t n, float *out,
                                                const size_t idx[8], size_t out_stride) {
    FIR_VEC r0 = FIR_ZERO(), r1 = FIR_ZERO(), r2 = FIR_ZERO(), r3 = FIR_ZERO();
    FIR_VEC r4 = FIR_ZERO(), r5 = FIR_ZERO(), r6 = FIR_ZERO(), r7 = FIR_ZERO();
    for (size_t i = 0; i < n; i += FIR_LANES) {
        const FIR_VEC c = FIR_LOAD(a + i);
        r0 = FIR_FMA(c, FIR_LOAD(x[0] + i), r0);
        r1 = FIR_FMA(c, FIR_LOAD(x[1] + i), r1);
        r2 = FIR_FMA(c, FIR_LOAD(x[2] + i), r2);
        r3 = FIR_FMA(c, FIR_LOAD(x[3] + i), r3);
        r4 = FIR_FMA(c, FIR_LOAD(x[4] + i), r4);
        r5 = FIR_FMA(c, FIR_LOAD(x[5] + i), r5);
        r6 = FIR_FMA(c, FIR_LOAD(x[6] + i), r6);
        r7 = FIR_FMA(c, FIR_LOAD(x[7] + i), r7);
    }
    float t[8];
    _mm_storeu_ps(t, FIR_REDUCE4(r0, r1, r2, r3));
    _mm_storeu_ps(t + 4, FIR_REDUCE4(r4, r5, r6, r7));
    for (size_t i = 0; i < 8; i++) out[idx[i] * out_stride] = t[i];
}

// Decimation with aligned input loads. A FIR_LANES-float load from an arbitrary float offset
// crosses a 64-byte line (16 lanes: 15 offsets in 16), and a split load takes two load slots.
// This kernel reads each window from its aligned start xa = x − r (r = x's float offset within a
// vector) and shifts the coefficients instead: vector j pairs xa[j·LANES …] with
// a_pad[j·LANES − r …] (zeros outside the taps, hence a_pad's padding). Lane ℓ then adds the taps
// ≡ ℓ − r (mod LANES) in their usual order, plus exact zeros; rotating the accumulator by r lanes
// puts every lane where cvk_decimate has it, so the same horizontal sum gives the same value bit
// for bit (the lanes outside the window are loaded as zeros, so 0·0 adds an exact 0 whatever lies
// next to the window, NaN included). Outputs whose windows share r (every P-th one,
// P = LANES / gcd(stride, LANES)) go eight at a time, sharing each coefficient load; the few left
// in each class are gathered eight at a time as cvk_decimate computes them.
FIR_TARGET void FIR_NAME(cvk_decimate_aligned)(const float *a_pad, const float *b, size_t stride, size_t n, size_t count,
                                               float *out, size_t out_stride) {
    size_t g = stride % FIR_LANES, h = FIR_LANES;
    while (g) {
        const size_t t = h % g;
        h = g;
        g = t;
    }
    const size_t period = FIR_LANES / h;
    if (count < 8 * period) {
        FIR_NAME(cvk_decimate)(a_pad, b, stride, n, count, out, out_stride);
        return;
    }
    const size_t r0 = ((uintptr_t)b / sizeof(float)) % FIR_LANES;
    const float *px[8];
    size_t pk[8], pending = 0;
    for (size_t k0 = 0; k0 < period; k0++) {
        const size_t r = (r0 + k0 * stride) % FIR_LANES;
        const size_t vectors = (r + n + FIR_LANES - 1) / FIR_LANES;
        const float *c0 = a_pad - r;
        const size_t s = period * stride, o = out_stride * period;
        size_t k = k0;
        for (; k + 7 * period < count; k += 8 * period) {
            const float *x = b + k * stride - r;
            FIR_VEC r0v = FIR_ZERO(), r1 = FIR_ZERO(), r2 = FIR_ZERO(), r3 = FIR_ZERO();
            FIR_VEC r4 = FIR_ZERO(), r5 = FIR_ZERO(), r6 = FIR_ZERO(), r7 = FIR_ZERO();
            // The lanes outside the windows (below r in the first vector, from r on in the last)
            // are loaded as zeros, so a NaN or infinity next to a window does not reach it.
#define FIR_DEC_STEP(LD)                                                                                               \
    do {                                                                                                               \
        const FIR_VEC c = FIR_LOAD(c0 + j * FIR_LANES);                                                                \
        const float *y = x + j * FIR_LANES;                                                                            \
        r0v = FIR_FMA(c, LD(y), r0v);                                                                                  \
        r1 = FIR_FMA(c, LD(y + s), r1);                                                                                \
        r2 = FIR_FMA(c, LD(y + 2 * s), r2);                                                                            \
        r3 = FIR_FMA(c, LD(y + 3 * s), r3);                                                                            \
        r4 = FIR_FMA(c, LD(y + 4 * s), r4);                                                                            \
        r5 = FIR_FMA(c, LD(y + 5 * s), r5);                                                                            \
        r6 = FIR_FMA(c, LD(y + 6 * s), r6);                                                                            \
        r7 = FIR_FMA(c, LD(y + 7 * s), r7);                                                                            \
    } while (0)
#define FIR_LD_FROM(p) FIR_LOADA_FROM(p, r)
#define FIR_LD_BELOW(p) FIR_LOADA_BELOW(p, r)
            size_t j = 0;
            if (r) {
                FIR_DEC_STEP(FIR_LD_FROM);
                j = 1;
            }
            for (; j + (r ? 1 : 0) < vectors; j++) FIR_DEC_STEP(FIR_LOADA);
            if (r) FIR_DEC_STEP(FIR_LD_BELOW);
#undef FIR_DEC_STEP
#undef FIR_LD_FROM
#undef FIR_LD_BELOW
            store4(FIR_REDUCE4(FIR_ROTATE(r0v, r), FIR_ROTATE(r1, r), FIR_ROTATE(r2, r), FIR_ROTATE(r3, r)),
                   out + k * out_stride, o);
            store4(FIR_REDUCE4(FIR_ROTATE(r4, r), FIR_ROTATE(r5, r), FIR_ROTATE(r6, r), FIR_ROTATE(r7, r)),
                   out + (k + 4 * period) * out_stride, o);
        }
        for (; k < count; k += period) {
            px[pending] = b + k * stride;
            pk[pending++] = k;
            if (pending == 8) {
                FIR_NAME(gather8)(a_pad, px, n, out, pk, out_stride);
                pending = 0;
            }
        }
    }
    for (size_t i = 0; i < pending; i++) out[pk[i] * out_stride] = FIR_REDUCE1(FIR_NAME(acc)(a_pad, px[i], n));
}

FIR_TARGET long FIR_NAME(cvk_polyphase)(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase,
                                        const float *b, long w0, size_t p0, long wend, size_t room, float *out,
                                        size_t out_stride, long *w_after, size_t *p_after) {
    size_t j = 0;
    long w = w0;
    size_t p = p0;
    while (j < room && w < wend) {
        const float *ca[8], *xa[8];
        const size_t m = next_outputs(coefs, n, up, step, step_phase, b, &w, &p, wend, room - j < 8 ? room - j : 8, ca, xa);
        float *o = out + j * out_stride;
        if (m == 8) {
            FIR_VEC r0 = FIR_ZERO(), r1 = FIR_ZERO(), r2 = FIR_ZERO(), r3 = FIR_ZERO();
            FIR_VEC r4 = FIR_ZERO(), r5 = FIR_ZERO(), r6 = FIR_ZERO(), r7 = FIR_ZERO();
            for (size_t i = 0; i < n; i += FIR_LANES) {
                r0 = FIR_FMA(FIR_LOAD(ca[0] + i), FIR_LOAD(xa[0] + i), r0);
                r1 = FIR_FMA(FIR_LOAD(ca[1] + i), FIR_LOAD(xa[1] + i), r1);
                r2 = FIR_FMA(FIR_LOAD(ca[2] + i), FIR_LOAD(xa[2] + i), r2);
                r3 = FIR_FMA(FIR_LOAD(ca[3] + i), FIR_LOAD(xa[3] + i), r3);
                r4 = FIR_FMA(FIR_LOAD(ca[4] + i), FIR_LOAD(xa[4] + i), r4);
                r5 = FIR_FMA(FIR_LOAD(ca[5] + i), FIR_LOAD(xa[5] + i), r5);
                r6 = FIR_FMA(FIR_LOAD(ca[6] + i), FIR_LOAD(xa[6] + i), r6);
                r7 = FIR_FMA(FIR_LOAD(ca[7] + i), FIR_LOAD(xa[7] + i), r7);
            }
            store4(FIR_REDUCE4(r0, r1, r2, r3), o, out_stride);
            store4(FIR_REDUCE4(r4, r5, r6, r7), o + 4 * out_stride, out_stride);
        } else {
            for (size_t k = 0; k < m; k++) o[k * out_stride] = FIR_REDUCE1(FIR_NAME(acc)(ca[k], xa[k], n));
        }
        j += m;
    }
    *w_after = w;
    *p_after = p;
    return (long)j;
}

// Whole cycles of a ratio with L = `up` phases, phase by phase: output j of cycle k (j < up,
// k < cycles) is coefs[p_j·n …]·(b + w_j + k·down), written to out[(j + k·up)·out_stride]; (w, p)
// start at (w0, p0) and advance as in cvk_polyphase. Each phase's `cycles` outputs share every
// coefficient load (cvk_decimate with stride `down`). The phase loop is here rather than in the
// caller: one call per block instead of one per phase (at 44.1k → 16k, 160 phases per block of
// 8 cycles, the per-phase calls and their bookkeeping were about 5 % of a whole-file conversion).
FIR_TARGET void FIR_NAME(cvk_phase_major)(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase,
                                          const float *b, long w0, size_t p0, size_t down, size_t cycles, float *out,
                                          size_t out_stride) {
    long w = w0;
    size_t p = p0;
    for (size_t j = 0; j < up; j++) {
        FIR_NAME(cvk_decimate)(coefs + p * n, b + w, down, n, cycles, out + j * out_stride, up * out_stride);
        w += (long)step;
        p += step_phase;
        if (p >= up) {
            p -= up;
            w += 1;
        }
    }
}

// Two cycles of a ratio with L = `up` phases, phase-major: output j of cycle k (j < up, k < 2) is
// coefs[p_j·n …]·(b + w_j + k·down), written to out[(j + k·up)·out_stride]; (w, p) start at
// (w0, p0) and advance as in cvk_polyphase. Four phases at a time, both cycles sharing each
// coefficient load (eight accumulators): where only two cycles are due (44.1k → 16k fed 20 ms
// chunks), 12 loads per eight fused multiply-adds instead of the general kernel's 16.
FIR_TARGET void FIR_NAME(cvk_phase_pairs)(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase,
                                          const float *b, long w0, size_t p0, size_t down, float *out,
                                          size_t out_stride) {
    long w = w0;
    size_t p = p0, j = 0;
    const size_t second = up * out_stride;
    while (j < up) {
        const float *ca[4], *xa[4];
        const size_t m = next_outputs(coefs, n, up, step, step_phase, b, &w, &p, LONG_MAX, up - j < 4 ? up - j : 4, ca, xa);
        float *o = out + j * out_stride;
        if (m == 4) {
            FIR_VEC r0 = FIR_ZERO(), r1 = FIR_ZERO(), r2 = FIR_ZERO(), r3 = FIR_ZERO();
            FIR_VEC s0 = FIR_ZERO(), s1 = FIR_ZERO(), s2 = FIR_ZERO(), s3 = FIR_ZERO();
            for (size_t i = 0; i < n; i += FIR_LANES) {
                const FIR_VEC c0 = FIR_LOAD(ca[0] + i), c1 = FIR_LOAD(ca[1] + i);
                const FIR_VEC c2 = FIR_LOAD(ca[2] + i), c3 = FIR_LOAD(ca[3] + i);
                r0 = FIR_FMA(c0, FIR_LOAD(xa[0] + i), r0);
                s0 = FIR_FMA(c0, FIR_LOAD(xa[0] + i + down), s0);
                r1 = FIR_FMA(c1, FIR_LOAD(xa[1] + i), r1);
                s1 = FIR_FMA(c1, FIR_LOAD(xa[1] + i + down), s1);
                r2 = FIR_FMA(c2, FIR_LOAD(xa[2] + i), r2);
                s2 = FIR_FMA(c2, FIR_LOAD(xa[2] + i + down), s2);
                r3 = FIR_FMA(c3, FIR_LOAD(xa[3] + i), r3);
                s3 = FIR_FMA(c3, FIR_LOAD(xa[3] + i + down), s3);
            }
            store4(FIR_REDUCE4(r0, r1, r2, r3), o, out_stride);
            store4(FIR_REDUCE4(s0, s1, s2, s3), o + second, out_stride);
        } else {
            for (size_t k = 0; k < m; k++) {
                o[k * out_stride] = FIR_REDUCE1(FIR_NAME(acc)(ca[k], xa[k], n));
                o[k * out_stride + second] = FIR_REDUCE1(FIR_NAME(acc)(ca[k], xa[k] + down, n));
            }
        }
        j += m;
    }
}

#undef FIR_TARGET
#undef FIR_VEC
#undef FIR_LANES
#undef FIR_ZERO
#undef FIR_LOAD
#undef FIR_LOADA
#undef FIR_LOADA_FROM
#undef FIR_LOADA_BELOW
#undef FIR_ROTATE
#undef FIR_FMA
#undef FIR_REDUCE1
#undef FIR_REDUCE4
#undef FIR_NAME
