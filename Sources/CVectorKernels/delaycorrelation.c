// The VAD echo model's delay correlation (VADEchoModel+Delay.swift): per lag of the search range,
// the running mean of Σ_b Δmic_b · Δref_b(lag) and of Σ_b Δref_b(lag)², and the peak and mean
// magnitude over the lags. In Swift, on the SSE2 baseline, the loop over ~50 lags was the echo
// model's dearest part (0.24 µs of a 2.3 µs frame with the agent talking, perf on an AMD EPYC):
// every lag's eight products summed in order is a chain of seven dependent adds, and eight lanes
// of doubles are four SSE2 registers. Here four lags run side by side in one AVX2 register, each
// lag's sum still in band order: the reference's changes are kept in columns (one per band, and
// one of their sums of squares), newest first and each written twice, a ring's length apart, so
// that any run of lags is contiguous in every column (`VADEchoModel.pushChange`). (Transposing
// four lags' rows in registers instead was bound by the shuffles: 0.13 µs against 0.07.)
//
// Every kernel gives the same bits: no fused multiply-add (the pragma below; the AVX2 kernel's
// target has no FMA), each lag's products summed in band order (((p0 + p1) + p2) + …) + p7 as
// Swift's SIMD8.sum() does, each mean updated as m + α·(x − m), and the magnitudes summed in four
// partial sums by (lag − lag_min) mod 4, combined (m0 + m1) + (m2 + m3).
#include "cvectorkernels.h"
#include <math.h>

#pragma STDC FP_CONTRACT OFF

// Column b (0–7: the reference's band changes; 8: their sum of squares) of lag d: columns[b·2·ring + at + d].
static inline const double *column(const double *columns, size_t ring, size_t b) { return columns + b * 2 * ring; }

// One lag's update; the peak and magnitude per lane (k = (d − lag_min) mod 4).
static inline void correlate_lag(double *scores, double *reference, const double *columns, size_t ring, size_t at,
                                 const double *mic, double alpha, size_t d, size_t k, double *best, double *best_lag,
                                 double *magnitude) {
    double dot = mic[0] * column(columns, ring, 0)[at + d];
    for (size_t b = 1; b < 8; b++) dot = dot + mic[b] * column(columns, ring, b)[at + d];
    const double s = scores[d] + alpha * (dot - scores[d]);
    scores[d] = s;
    if (s > best[k]) {
        best[k] = s;
        best_lag[k] = (double)d;
    }
    magnitude[k] = magnitude[k] + fabs(s);
    reference[d] = reference[d] + alpha * (column(columns, ring, 8)[at + d] - reference[d]);
}

static cvk_delay_peak combine(const double *best, const double *best_lag, const double *magnitude, size_t lag_min) {
    cvk_delay_peak out = {0.0, (magnitude[0] + magnitude[1]) + (magnitude[2] + magnitude[3]), lag_min};
    for (int k = 0; k < 4; k++) {
        const size_t lag = (size_t)best_lag[k];
        if (best[k] > out.peak || (best[k] == out.peak && best[k] > 0 && lag < out.lag)) {
            out.peak = best[k];
            out.lag = lag;
        }
    }
    return out;
}

cvk_delay_peak cvk_delay_correlate(double *scores, double *reference, const double *columns, size_t ring, size_t at,
                                   const double *mic, size_t lag_min, size_t lag_max, double alpha) {
    double best[4] = {0, 0, 0, 0}, magnitude[4] = {0, 0, 0, 0};
    double best_lag[4] = {(double)lag_min, (double)lag_min, (double)lag_min, (double)lag_min};
    for (size_t d = lag_min; d <= lag_max; d++)
        correlate_lag(scores, reference, columns, ring, at, mic, alpha, d, (d - lag_min) & 3, best, best_lag,
                      magnitude);
    return combine(best, best_lag, magnitude, lag_min);
}

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

__attribute__((target("avx2"))) cvk_delay_peak cvk_delay_correlate_avx2(double *scores, double *reference,
                                                                         const double *columns, size_t ring,
                                                                         size_t at, const double *mic,
                                                                         size_t lag_min, size_t lag_max,
                                                                         double alpha) {
    __m256d m[8];
    for (int b = 0; b < 8; b++) m[b] = _mm256_set1_pd(mic[b]);
    const __m256d a = _mm256_set1_pd(alpha);
    const __m256d sign = _mm256_set1_pd(-0.0);
    __m256d best = _mm256_setzero_pd(), mag = _mm256_setzero_pd();
    __m256d best_lag = _mm256_set1_pd((double)lag_min);
    __m256d lags = _mm256_setr_pd((double)lag_min, (double)lag_min + 1, (double)lag_min + 2, (double)lag_min + 3);
    const __m256d four = _mm256_set1_pd(4);
    size_t d = lag_min;
    for (; d + 3 <= lag_max; d += 4) {
        // Lags d…d+3 side by side: each column holds them in a row.
        __m256d dot = _mm256_mul_pd(m[0], _mm256_loadu_pd(column(columns, ring, 0) + at + d));
        for (size_t b = 1; b < 8; b++)
            dot = _mm256_add_pd(dot, _mm256_mul_pd(m[b], _mm256_loadu_pd(column(columns, ring, b) + at + d)));
        const __m256d old = _mm256_loadu_pd(scores + d);
        const __m256d s = _mm256_add_pd(old, _mm256_mul_pd(a, _mm256_sub_pd(dot, old)));
        _mm256_storeu_pd(scores + d, s);
        const __m256d higher = _mm256_cmp_pd(s, best, _CMP_GT_OQ);
        best = _mm256_blendv_pd(best, s, higher);
        best_lag = _mm256_blendv_pd(best_lag, lags, higher);
        mag = _mm256_add_pd(mag, _mm256_andnot_pd(sign, s));
        const __m256d pw = _mm256_loadu_pd(column(columns, ring, 8) + at + d);
        const __m256d r = _mm256_loadu_pd(reference + d);
        _mm256_storeu_pd(reference + d, _mm256_add_pd(r, _mm256_mul_pd(a, _mm256_sub_pd(pw, r))));
        lags = _mm256_add_pd(lags, four);
    }
    double b4[4], l4[4], m4[4];
    _mm256_storeu_pd(b4, best);
    _mm256_storeu_pd(l4, best_lag);
    _mm256_storeu_pd(m4, mag);
    for (; d <= lag_max; d++)
        correlate_lag(scores, reference, columns, ring, at, mic, alpha, d, (d - lag_min) & 3, b4, l4, m4);
    return combine(b4, l4, m4, lag_min);
}

int cvk_delay_level(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}
#else
int cvk_delay_level(void) { return 0; }
#endif
