// The VAD's steep band analysis (VADSteepBank in the core): per lane four biquad sections in
// cascade (transposed direct form II), the microphone's eight bands in lanes 0–7 and the far-end
// reference's in lanes 8–15, one sample at a time. Swift, on the SSE2 baseline, ran four bands of
// each at 3.7 µs per 10 ms frame pair at 16 kHz (the VAD's budget is 2 µs for the whole frame); in
// AVX2 with FMA a signal's eight bands fill one register, and the two signals' registers are two
// independent chains the CPU runs side by side (a section's output feeds the next: one chain
// alone waits on its fused multiply-adds' latency).
//
// Every section is normalised by its b0 (the band's gain, the product of its sections' b0, is
// applied to each quarter's energies as `scale`, its square): a Butterworth section's numerator is then (1, ±2, 1),
// and a pass-through section's (1, 0, 0). Per section, with c = (b1/b0, m, −a1, −a2), m a bit
// mask (all ones where b2/b0 = 1, zero in a pass-through), and state (s1, s2):
//   y = x + s1;  s1 = fma(−a1, y, fma(b1/b0, x, s2));  s2 = fma(−a2, y, x & m)
// Three fused multiply-adds a section (four before: y = fma(b0, x, s1) and s2 = fma(b2, x, −a2·y)):
// sixteen lanes of four sections are bound by the multiply-add units, and the add and the mask run
// beside them (10 ms at 16 kHz: 1.22 → 0.97 µs on an EPYC). In the AVX2 version the microphone's
// chain moves one more to the adders: b1/b0 is −2 (or 0 in a pass-through) in sections 0 and 1 and
// +2 (or 0) in sections 2 and 3 — high-passes first, then low-passes, the caller's layout — so
// fma(b1/b0, x, s2) is s2 ∓ ((x & m) + (x & m)), the same bits. y enters each new state in the last
// operation: from one sample's y to the next's, two dependent operations.
//
// Every lane is the same chain of operations in both versions (fused multiply-adds: fmaf in the
// portable one, the mask on the bits), so the AVX2 and the portable code give the same bits, and a
// lane does not depend on what the other lanes hold (the microphone alone gives the same bands as
// beside a reference). The energies are summed per quarter of the frame (fma(y, y, e)); a
// quarter's power is the sum of the microphone's lanes quarter_from…7 in lane order, and a lane's
// total ((q0 + q1) + q2) + q3.
#include "cvectorkernels.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

enum { SB_SECTIONS = 4, SB_BANDS = 8, SB_LANES = 16, SB_ROWS = 4 };

static inline float masked(float x, float mask) {
    uint32_t a, m;
    memcpy(&a, &x, 4);
    memcpy(&m, &mask, 4);
    a &= m;
    memcpy(&x, &a, 4);
    return x;
}

// The quarters' bounds: [k·ql, (k+1)·ql) for k < 3, the last to n (empty ones included).
static inline size_t quarter_end(size_t q, size_t ql, size_t n) {
    if (q == 3) return n;
    size_t e = (q + 1) * ql;
    return e < n ? e : n;
}

static inline float quarter_sum(const float *eq, size_t from) {
    float sum = 0;
    for (size_t l = from; l < SB_BANDS; l++) sum = l == from ? eq[l] : sum + eq[l];
    return sum;
}

void cvk_steep_bands(const float *coefs, const float *scale, float *state, const float *x0, const float *x1, size_t n,
                     size_t quarter_length, size_t quarter_from, float *energy, float *quarters) {
    float tot[SB_LANES];
    size_t start = 0;
    for (size_t q = 0; q < 4; q++) {
        size_t end = quarter_end(q, quarter_length, n);
        if (end < start) end = start;
        float eq[SB_LANES];
        for (int l = 0; l < SB_LANES; l++) {
            const int band = l % SB_BANDS;
            float s1[SB_SECTIONS], s2[SB_SECTIONS];
            for (int s = 0; s < SB_SECTIONS; s++) {
                s1[s] = state[(2 * s) * SB_LANES + l];
                s2[s] = state[(2 * s + 1) * SB_LANES + l];
            }
            float e = 0;
            for (size_t k = start; k < end; k++) {
                float y = l < SB_BANDS ? x0[k] : (x1 ? x1[k] : 0.0f);
                for (int s = 0; s < SB_SECTIONS; s++) {
                    const float *c = coefs + s * SB_ROWS * SB_BANDS;
                    const float x = y;
                    y = x + s1[s];
                    s1[s] = fmaf(c[2 * SB_BANDS + band], y, fmaf(c[band], x, s2[s]));
                    s2[s] = fmaf(c[3 * SB_BANDS + band], y, masked(x, c[SB_BANDS + band]));
                }
                e = fmaf(y, y, e);
            }
            for (int s = 0; s < SB_SECTIONS; s++) {
                state[(2 * s) * SB_LANES + l] = s1[s];
                state[(2 * s + 1) * SB_LANES + l] = s2[s];
            }
            eq[l] = e * scale[band];
        }
        quarters[q] = quarter_sum(eq, quarter_from);
        for (int l = 0; l < SB_LANES; l++) tot[l] = q == 0 ? eq[l] : tot[l] + eq[l];
        start = end;
    }
    for (int l = 0; l < SB_LANES; l++) energy[l] = tot[l];
}

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

__attribute__((target("avx2,fma"))) void cvk_steep_bands_avx2(const float *coefs, const float *scale, float *state,
                                                                const float *x0, const float *x1, size_t n,
                                                                size_t quarter_length, size_t quarter_from,
                                                                float *energy, float *quarters) {
    const __m256 gain = _mm256_loadu_ps(scale);
    __m256 c[SB_SECTIONS][SB_ROWS], a1[SB_SECTIONS], a2[SB_SECTIONS], b1[SB_SECTIONS], b2[SB_SECTIONS];
    for (int s = 0; s < SB_SECTIONS; s++) {
        for (int j = 0; j < SB_ROWS; j++) c[s][j] = _mm256_loadu_ps(coefs + (s * SB_ROWS + j) * SB_BANDS);
        a1[s] = _mm256_loadu_ps(state + (2 * s) * SB_LANES);
        b1[s] = _mm256_loadu_ps(state + (2 * s) * SB_LANES + SB_BANDS);
        a2[s] = _mm256_loadu_ps(state + (2 * s + 1) * SB_LANES);
        b2[s] = _mm256_loadu_ps(state + (2 * s + 1) * SB_LANES + SB_BANDS);
    }
    __m256 tota = _mm256_setzero_ps(), totb = _mm256_setzero_ps();
    size_t start = 0;
    for (size_t q = 0; q < 4; q++) {
        size_t end = quarter_end(q, quarter_length, n);
        if (end < start) end = start;
        __m256 ea = _mm256_setzero_ps(), eb = _mm256_setzero_ps();
        for (size_t k = start; k < end; k++) {
            __m256 ya = _mm256_set1_ps(x0[k]);
            __m256 yb = _mm256_set1_ps(x1 ? x1[k] : 0.0f);
            for (int s = 0; s < SB_SECTIONS; s++) {
                const __m256 xa = ya, xb = yb;
                ya = _mm256_add_ps(xa, a1[s]);
                yb = _mm256_add_ps(xb, b1[s]);
                // The microphone's chain takes fma(±2, x, s2) as s2 ± (x + x) on the adders (the same
                // bits: 2x is exact, one rounding either way); the reference's keeps the fused form.
                const __m256 xma = _mm256_and_ps(c[s][1], xa);
                const __m256 twice = _mm256_add_ps(xma, xma);
                const __m256 ta = s < 2 ? _mm256_sub_ps(a2[s], twice) : _mm256_add_ps(a2[s], twice);
                a1[s] = _mm256_fmadd_ps(c[s][2], ya, ta);
                b1[s] = _mm256_fmadd_ps(c[s][2], yb, _mm256_fmadd_ps(c[s][0], xb, b2[s]));
                a2[s] = _mm256_fmadd_ps(c[s][3], ya, xma);
                b2[s] = _mm256_fmadd_ps(c[s][3], yb, _mm256_and_ps(c[s][1], xb));
            }
            ea = _mm256_fmadd_ps(ya, ya, ea);
            eb = _mm256_fmadd_ps(yb, yb, eb);
        }
        ea = _mm256_mul_ps(ea, gain);
        eb = _mm256_mul_ps(eb, gain);
        float eq[SB_BANDS];
        _mm256_storeu_ps(eq, ea);
        quarters[q] = quarter_sum(eq, quarter_from);
        tota = q == 0 ? ea : _mm256_add_ps(tota, ea);
        totb = q == 0 ? eb : _mm256_add_ps(totb, eb);
        start = end;
    }
    _mm256_storeu_ps(energy, tota);
    _mm256_storeu_ps(energy + SB_BANDS, totb);
    for (int s = 0; s < SB_SECTIONS; s++) {
        _mm256_storeu_ps(state + (2 * s) * SB_LANES, a1[s]);
        _mm256_storeu_ps(state + (2 * s) * SB_LANES + SB_BANDS, b1[s]);
        _mm256_storeu_ps(state + (2 * s + 1) * SB_LANES, a2[s]);
        _mm256_storeu_ps(state + (2 * s + 1) * SB_LANES + SB_BANDS, b2[s]);
    }
}
#endif
