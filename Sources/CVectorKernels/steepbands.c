// The VAD's steep band analysis (VADSteepBank in the core): per lane four biquad sections in
// cascade (transposed direct form II), the microphone's four bands in lanes 0–3 and the far-end
// reference's in lanes 4–7, one sample at a time. Swift, on the SSE2 baseline, ran it at 3.7 µs
// per 10 ms frame pair at 16 kHz (the VAD's budget is 2 µs for the whole frame); eight lanes in
// one AVX2 register with fused multiply-adds run both signals for the price of one.
//
// Every lane is the same chain of operations in both versions (fused multiply-adds: fmaf in the
// portable one), so the AVX2 and the portable code give the same bits, and a lane does not depend
// on what the other lanes hold (the microphone alone gives the same bands as beside a reference).
// Per section, with c = (b0, b1, b2, −a1, −a2) and state (s1, s2):
//   y = fma(b0, x, s1);  s1 = fma(b1, x, fma(−a1, y, s2));  s2 = fma(b2, x, −a2·y)
// The energies are summed per quarter of the frame (fma(y, y, e)); a quarter's power above 300 Hz
// is (e1 + e2) + e3 of lanes 1–3, and a lane's total ((q0 + q1) + q2) + q3.
#include "cvectorkernels.h"
#include <math.h>

enum { SB_SECTIONS = 4, SB_LANES = 8 };

// The quarters' bounds: [k·ql, (k+1)·ql) for k < 3, the last to n (empty ones included).
static inline size_t quarter_end(size_t q, size_t ql, size_t n) {
    if (q == 3) return n;
    size_t e = (q + 1) * ql;
    return e < n ? e : n;
}

void cvk_steep_bands(const float *coefs, float *state, const float *x0, const float *x1, size_t n, size_t quarter_length,
                     float *energy, float *quarters) {
    float tot[SB_LANES];
    size_t start = 0;
    for (size_t q = 0; q < 4; q++) {
        size_t end = quarter_end(q, quarter_length, n);
        if (end < start) end = start;
        float eq[SB_LANES];
        for (int l = 0; l < SB_LANES; l++) {
            float s1[SB_SECTIONS], s2[SB_SECTIONS];
            for (int s = 0; s < SB_SECTIONS; s++) {
                s1[s] = state[(2 * s) * SB_LANES + l];
                s2[s] = state[(2 * s + 1) * SB_LANES + l];
            }
            float e = 0;
            for (size_t k = start; k < end; k++) {
                float y = l < 4 ? x0[k] : (x1 ? x1[k] : 0.0f);
                for (int s = 0; s < SB_SECTIONS; s++) {
                    const float *c = coefs + s * 5 * SB_LANES;
                    const float x = y;
                    y = fmaf(c[l], x, s1[s]);
                    s1[s] = fmaf(c[SB_LANES + l], x, fmaf(c[3 * SB_LANES + l], y, s2[s]));
                    s2[s] = fmaf(c[2 * SB_LANES + l], x, c[4 * SB_LANES + l] * y);
                }
                e = fmaf(y, y, e);
            }
            for (int s = 0; s < SB_SECTIONS; s++) {
                state[(2 * s) * SB_LANES + l] = s1[s];
                state[(2 * s + 1) * SB_LANES + l] = s2[s];
            }
            eq[l] = e;
        }
        quarters[q] = (eq[1] + eq[2]) + eq[3];
        for (int l = 0; l < SB_LANES; l++) tot[l] = q == 0 ? eq[l] : tot[l] + eq[l];
        start = end;
    }
    for (int l = 0; l < SB_LANES; l++) energy[l] = tot[l];
}

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

__attribute__((target("avx2,fma"))) void cvk_steep_bands_avx2(const float *coefs, float *state, const float *x0,
                                                                const float *x1, size_t n, size_t quarter_length,
                                                                float *energy, float *quarters) {
    __m256 c[SB_SECTIONS][5], s1[SB_SECTIONS], s2[SB_SECTIONS];
    for (int s = 0; s < SB_SECTIONS; s++) {
        for (int j = 0; j < 5; j++) c[s][j] = _mm256_loadu_ps(coefs + (s * 5 + j) * SB_LANES);
        s1[s] = _mm256_loadu_ps(state + (2 * s) * SB_LANES);
        s2[s] = _mm256_loadu_ps(state + (2 * s + 1) * SB_LANES);
    }
    __m256 tot = _mm256_setzero_ps();
    size_t start = 0;
    for (size_t q = 0; q < 4; q++) {
        size_t end = quarter_end(q, quarter_length, n);
        if (end < start) end = start;
        __m256 e = _mm256_setzero_ps();
        for (size_t k = start; k < end; k++) {
            __m256 y = _mm256_set_m128(_mm_set1_ps(x1 ? x1[k] : 0.0f), _mm_set1_ps(x0[k]));
            for (int s = 0; s < SB_SECTIONS; s++) {
                const __m256 x = y;
                y = _mm256_fmadd_ps(c[s][0], x, s1[s]);
                s1[s] = _mm256_fmadd_ps(c[s][1], x, _mm256_fmadd_ps(c[s][3], y, s2[s]));
                s2[s] = _mm256_fmadd_ps(c[s][2], x, _mm256_mul_ps(c[s][4], y));
            }
            e = _mm256_fmadd_ps(y, y, e);
        }
        float eq[SB_LANES];
        _mm256_storeu_ps(eq, e);
        quarters[q] = (eq[1] + eq[2]) + eq[3];
        tot = q == 0 ? e : _mm256_add_ps(tot, e);
        start = end;
    }
    _mm256_storeu_ps(energy, tot);
    for (int s = 0; s < SB_SECTIONS; s++) {
        _mm256_storeu_ps(state + (2 * s) * SB_LANES, s1[s]);
        _mm256_storeu_ps(state + (2 * s + 1) * SB_LANES, s2[s]);
    }
}
#endif
