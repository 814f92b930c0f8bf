// FIR dot products for the core's PolyphaseResampler, with AVX2 and FMA (x86-64), compiled with a
// function target attribute and chosen at run time: the portable Swift kernels run on SSE2 with a
// separate multiply and add, which this machine executes at about half the speed (measured in
// Benchmarks/Resampling and the Paths target). Swift cannot compile one function for another
// instruction set than the rest of the module, hence C.
//
// Every output is one 8-lane accumulator over the taps in order (a fused multiply-add per 8 taps),
// then the lanes summed in one fixed order — the same in every kernel — so an output has the same
// value whichever kernel computed it, and the resampler's output does not depend on block sizes.
// The two batch kernels (decimation, 2× upsampling) compute a whole run of outputs per call, eight
// at a time sharing their loads: per-call overhead was half the time with one call per four.
#include "cvectorkernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define CVK_TARGET __attribute__((target("avx2,fma")))

int cvk_fir_available(void) {
    __builtin_cpu_init();
    return (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
}

// Horizontal sums, one order everywhere: ((v0+v1)+(v2+v3)) + ((v4+v5)+(v6+v7)).
CVK_TARGET static inline float reduce1(__m256 v) {
    const __m256 h = _mm256_hadd_ps(v, v);
    const __m256 h2 = _mm256_hadd_ps(h, h);
    return _mm_cvtss_f32(_mm_add_ss(_mm256_castps256_ps128(h2), _mm256_extractf128_ps(h2, 1)));
}

// Four at once, each in exactly reduce1's order: [p, q, u, v].
CVK_TARGET static inline __m128 reduce4(__m256 p, __m256 q, __m256 u, __m256 v) {
    const __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(p, q), _mm256_hadd_ps(u, v));
    return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}

CVK_TARGET static inline __m256 acc1(const float *a, const float *b, size_t n) {
    __m256 acc = _mm256_setzero_ps();
    for (size_t i = 0; i < n; i += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc);
    return acc;
}

CVK_TARGET static inline void store4(__m128 r, float *out, size_t stride) {
    float t[4];
    _mm_storeu_ps(t, r);
    out[0] = t[0];
    out[stride] = t[1];
    out[2 * stride] = t[2];
    out[3 * stride] = t[3];
}

CVK_TARGET float cvk_dot1(const float *a, const float *b, size_t n) { return reduce1(acc1(a, b, n)); }

CVK_TARGET void cvk_dot2(const float *a0, const float *a1, const float *b, size_t n, float *out) {
    __m256 p = _mm256_setzero_ps(), q = _mm256_setzero_ps();
    for (size_t i = 0; i < n; i += 8) {
        const __m256 x = _mm256_loadu_ps(b + i);
        p = _mm256_fmadd_ps(_mm256_loadu_ps(a0 + i), x, p);
        q = _mm256_fmadd_ps(_mm256_loadu_ps(a1 + i), x, q);
    }
    out[0] = reduce1(p);
    out[1] = reduce1(q);
}

// The batch kernels keep eight accumulators in flight: a fused multiply-add has a 4-cycle latency
// and two issue per cycle, so fewer chains leave the units idle (four chains measured ~10 MACs per
// cycle, eight ~16 — the issue rate).

CVK_TARGET void cvk_decimate(const float *a, const float *b, size_t stride, size_t n, size_t count, float *out, size_t out_stride) {
    size_t k = 0;
    for (; k + 8 <= count; k += 8) {
        const float *x = b + k * stride;
        __m256 r0 = _mm256_setzero_ps(), r1 = _mm256_setzero_ps(), r2 = _mm256_setzero_ps(), r3 = _mm256_setzero_ps();
        __m256 r4 = _mm256_setzero_ps(), r5 = _mm256_setzero_ps(), r6 = _mm256_setzero_ps(), r7 = _mm256_setzero_ps();
        for (size_t i = 0; i < n; i += 8) {
            const __m256 c = _mm256_loadu_ps(a + i);
            const float *y = x + i;
            r0 = _mm256_fmadd_ps(c, _mm256_loadu_ps(y), r0);
            r1 = _mm256_fmadd_ps(c, _mm256_loadu_ps(y + stride), r1);
            r2 = _mm256_fmadd_ps(c, _mm256_loadu_ps(y + 2 * stride), r2);
            r3 = _mm256_fmadd_ps(c, _mm256_loadu_ps(y + 3 * stride), r3);
            r4 = _mm256_fmadd_ps(c, _mm256_loadu_ps(y + 4 * stride), r4);
            r5 = _mm256_fmadd_ps(c, _mm256_loadu_ps(y + 5 * stride), r5);
            r6 = _mm256_fmadd_ps(c, _mm256_loadu_ps(y + 6 * stride), r6);
            r7 = _mm256_fmadd_ps(c, _mm256_loadu_ps(y + 7 * stride), r7);
        }
        store4(reduce4(r0, r1, r2, r3), out + k * out_stride, out_stride);
        store4(reduce4(r4, r5, r6, r7), out + (k + 4) * out_stride, out_stride);
    }
    for (; k < count; k++) out[k * out_stride] = reduce1(acc1(a, b + k * stride, n));
}

CVK_TARGET void cvk_upsample2(const float *a0, const float *a1, const float *b, size_t n, size_t windows, float *out, size_t out_stride) {
    size_t w = 0;
    for (; w + 4 <= windows; w += 4) {
        const float *x = b + w;
        __m256 p0 = _mm256_setzero_ps(), q0 = _mm256_setzero_ps(), p1 = _mm256_setzero_ps(), q1 = _mm256_setzero_ps();
        __m256 p2 = _mm256_setzero_ps(), q2 = _mm256_setzero_ps(), p3 = _mm256_setzero_ps(), q3 = _mm256_setzero_ps();
        for (size_t i = 0; i < n; i += 8) {
            const __m256 c0 = _mm256_loadu_ps(a0 + i), c1 = _mm256_loadu_ps(a1 + i);
            __m256 y = _mm256_loadu_ps(x + i);
            p0 = _mm256_fmadd_ps(c0, y, p0);
            q0 = _mm256_fmadd_ps(c1, y, q0);
            y = _mm256_loadu_ps(x + i + 1);
            p1 = _mm256_fmadd_ps(c0, y, p1);
            q1 = _mm256_fmadd_ps(c1, y, q1);
            y = _mm256_loadu_ps(x + i + 2);
            p2 = _mm256_fmadd_ps(c0, y, p2);
            q2 = _mm256_fmadd_ps(c1, y, q2);
            y = _mm256_loadu_ps(x + i + 3);
            p3 = _mm256_fmadd_ps(c0, y, p3);
            q3 = _mm256_fmadd_ps(c1, y, q3);
        }
        store4(reduce4(p0, q0, p1, q1), out + 2 * w * out_stride, out_stride);
        store4(reduce4(p2, q2, p3, q3), out + (2 * w + 4) * out_stride, out_stride);
    }
    for (; w < windows; w++) {
        float r[2];
        cvk_dot2(a0, a1, b + w, n, r);
        out[2 * w * out_stride] = r[0];
        out[(2 * w + 1) * out_stride] = r[1];
    }
}

CVK_TARGET long cvk_polyphase(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                              size_t p0, long wend, size_t room, float *out, size_t out_stride, long *w_after, size_t *p_after) {
    size_t j = 0;
    long w = w0;
    size_t p = p0;
    while (j < room && w < wend) {
        // The next (up to) eight outputs' coefficient sets and windows.
        const float *ca[8], *xa[8];
        size_t m = 0;
        while (m < 8 && j + m < room && w < wend) {
            ca[m] = coefs + p * n;
            xa[m] = b + w;
            m++;
            w += (long)step;
            p += step_phase;
            if (p >= up) {
                p -= up;
                w += 1;
            }
        }
        float *o = out + j * out_stride;
        if (m == 8) {
            __m256 r0 = _mm256_setzero_ps(), r1 = _mm256_setzero_ps(), r2 = _mm256_setzero_ps(), r3 = _mm256_setzero_ps();
            __m256 r4 = _mm256_setzero_ps(), r5 = _mm256_setzero_ps(), r6 = _mm256_setzero_ps(), r7 = _mm256_setzero_ps();
            for (size_t i = 0; i < n; i += 8) {
                r0 = _mm256_fmadd_ps(_mm256_loadu_ps(ca[0] + i), _mm256_loadu_ps(xa[0] + i), r0);
                r1 = _mm256_fmadd_ps(_mm256_loadu_ps(ca[1] + i), _mm256_loadu_ps(xa[1] + i), r1);
                r2 = _mm256_fmadd_ps(_mm256_loadu_ps(ca[2] + i), _mm256_loadu_ps(xa[2] + i), r2);
                r3 = _mm256_fmadd_ps(_mm256_loadu_ps(ca[3] + i), _mm256_loadu_ps(xa[3] + i), r3);
                r4 = _mm256_fmadd_ps(_mm256_loadu_ps(ca[4] + i), _mm256_loadu_ps(xa[4] + i), r4);
                r5 = _mm256_fmadd_ps(_mm256_loadu_ps(ca[5] + i), _mm256_loadu_ps(xa[5] + i), r5);
                r6 = _mm256_fmadd_ps(_mm256_loadu_ps(ca[6] + i), _mm256_loadu_ps(xa[6] + i), r6);
                r7 = _mm256_fmadd_ps(_mm256_loadu_ps(ca[7] + i), _mm256_loadu_ps(xa[7] + i), r7);
            }
            store4(reduce4(r0, r1, r2, r3), o, out_stride);
            store4(reduce4(r4, r5, r6, r7), o + 4 * out_stride, out_stride);
        } else {
            for (size_t k = 0; k < m; k++) o[k * out_stride] = reduce1(acc1(ca[k], xa[k], n));
        }
        j += m;
    }
    *w_after = w;
    *p_after = p;
    return (long)j;
}

#else
int cvk_fir_available(void) { return 0; }
float cvk_dot1(const float *a, const float *b, size_t n) { (void)a; (void)b; (void)n; return 0; }
void cvk_dot2(const float *a0, const float *a1, const float *b, size_t n, float *out) { (void)a0; (void)a1; (void)b; (void)n; (void)out; }
void cvk_decimate(const float *a, const float *b, size_t stride, size_t n, size_t count, float *out, size_t out_stride) {
    (void)a; (void)b; (void)stride; (void)n; (void)count; (void)out; (void)out_stride;
}
long cvk_polyphase(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                   size_t p0, long wend, size_t room, float *out, size_t out_stride, long *w_after, size_t *p_after) {
    (void)coefs; (void)n; (void)up; (void)step; (void)step_phase; (void)b; (void)p0; (void)wend; (void)room; (void)out; (void)out_stride;
    *w_after = w0;
    *p_after = p0;
    return 0;
}
void cvk_upsample2(const float *a0, const float *a1, const float *b, size_t n, size_t windows, float *out, size_t out_stride) {
    (void)a0; (void)a1; (void)b; (void)n; (void)windows; (void)out; (void)out_stride;
}
#endif
