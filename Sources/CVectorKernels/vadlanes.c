// The VAD's eight-lane double arithmetic that the Swift core, compiled for the x86-64 baseline
// (SSE2), ran two lanes a register: the levels of eight band powers (`fastDB`), the powers of
// eight levels (`fastPower`) and the expected echo with the bands' leak into each other
// (`VADEchoModel.withLeakage`) — three to four of them a 10 ms frame with a reference, about 8 % of
// the frame with the agent talking (perf, AMD EPYC of family 25). Here, with AVX2, four lanes a
// register, and a lane select is one instruction where SSE2 takes three.
//
// Every kernel gives the same bits as the Swift it replaces: the same operations in the same order
// on each lane, IEEE double adds, multiplies and divides, no fused multiply-add (the pragma below;
// the AVX2 kernels' target has no FMA), comparisons false on NaN as Swift's. The portable kernels
// (other CPUs) are the same operations one lane at a time.
#include "cvectorkernels.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

#pragma STDC FP_CONTRACT OFF

// fastDB's constants (Decibels.swift).
#define DB_SQRT2 1.4142135623730951
#define DB_LOG10_2 0.3010299956639812
#define DB_LOG10_E 0.4342944819032518
#define DB_BIAS 4503599627371519.0 // 2^52 + 1023
// fastPower's.
#define POW_LOG2_10_OVER_10 0.3321928094887362
#define POW_LN2 0.6931471805599453
#define POW_SHIFT 6755399441055744.0 // 1.5 · 2^52

static inline double from_bits(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline uint64_t to_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

int cvk_vad_lanes_db_portable(const double *p, double *out) {
    int in_range = 0;
    for (int i = 0; i < 8; i++) {
        const int in = p[i] >= 1e-14 && p[i] < INFINITY;
        in_range |= in << i;
        const uint64_t bits = to_bits(in ? p[i] : 1.0);
        double exponent = from_bits((bits >> 52) | UINT64_C(0x4330000000000000)) - DB_BIAS;
        double m = from_bits((bits & UINT64_C(0x000FFFFFFFFFFFFF)) | UINT64_C(0x3FF0000000000000));
        if (m > DB_SQRT2) {
            m = m * 0.5;
            exponent = exponent + 1;
        }
        const double t = (m - 1) / (m + 1);
        const double t2 = t * t;
        double series = t2 * (2.0 / 11);
        series = t2 * (series + 2.0 / 9);
        series = t2 * (series + 2.0 / 7);
        series = t2 * (series + 2.0 / 5);
        series = t2 * (series + 2.0 / 3);
        const double ln = t * (series + 2);
        out[i] = 10 * (exponent * DB_LOG10_2 + ln * DB_LOG10_E);
    }
    return in_range;
}

int cvk_vad_lanes_power_portable(const double *levels, double *out) {
    int in_range = 0;
    for (int i = 0; i < 8; i++) {
        const int in = levels[i] > -3000 && levels[i] < 3000;
        in_range |= in << i;
        const double y = (in ? levels[i] : 0.0) * POW_LOG2_10_OVER_10;
        double n = (y + POW_SHIFT) - POW_SHIFT;
        if (n > y) n = n - 1;
        const double z = (y - n) * POW_LN2;
        double e = 1.0 / 479001600;
        e = e * z + 1.0 / 39916800;
        e = e * z + 1.0 / 3628800;
        e = e * z + 1.0 / 362880;
        e = e * z + 1.0 / 40320;
        e = e * z + 1.0 / 5040;
        e = e * z + 1.0 / 720;
        e = e * z + 1.0 / 120;
        e = e * z + 1.0 / 24;
        e = e * z + 1.0 / 6;
        e = e * z + 0.5;
        e = e * z + 1;
        e = e * z + 1;
        const uint64_t integer = to_bits(n + POW_SHIFT) - to_bits(POW_SHIFT);
        out[i] = e * from_bits((integer + 1023) << 52);
    }
    return in_range;
}

void cvk_vad_leakage_portable(const double *gains, const double *x, const double *distant, const double *all,
                              double margin, double *echo) {
    double e[8];
    for (int b = 0; b < 8; b++) e[b] = gains[b] + x[b];
    for (int k = 0; k < 8; k++) {
        const double gain = gains[k];
        const double near = x[k] - margin;
        for (int b = 0; b < 8; b++) {
            const double leaked = distant[8 * k + b] + x[k];
            const double part = leaked < x[b] ? leaked : x[b];
            const double raised = part + gain;
            if (e[b] < raised) e[b] = raised;
            const double own = x[b] + gain;
            if (x[b] < all[8 * k + b] + near && e[b] < own) e[b] = own;
        }
    }
    for (int b = 0; b < 8; b++) echo[b] = e[b];
}

// The ring predictor's third difference (`VADRingPredictor.filter`), eight samples at a time: the
// same float operations in the same order as its Swift (((x − 3·x₁) + 3·x₂) − x₃, the squares
// summed per lane, mul then add), which the SSE2 baseline ran four lanes a register.
size_t cvk_ring_third_difference_portable(const float *x, size_t n, float *out, float *squares) {
    size_t i = 3;
    for (int l = 0; l < 8; l++) squares[l] = 0;
    while (i + 8 <= n) {
        for (int l = 0; l < 8; l++) {
            const size_t k = i + (size_t)l;
            const float y = ((x[k] - 3.0f * x[k - 1]) + 3.0f * x[k - 2]) - x[k - 3];
            out[k] = y;
            squares[l] = squares[l] + y * y;
        }
        i += 8;
    }
    return i;
}

// The ring predictor's correlations (`VADRingPredictor.correlations`) over the filtered samples
// y[h]…y[h + n − 1]: lane j of `short_lags` sums y[k]·y[k − 7 + j], of `long_lags`
// y[k]·y[k − lag − 7 + j] (h ≥ lag + 7), each in two sums, over even and odd k from h, added at the
// end; a product, then its sum (no fused multiply-add), as the Swift they replace, whose SSE2
// baseline took each eight lanes as two registers: 0.19 µs of a frame that reads the ring test,
// 0.10 µs with the AVX2 kernel below (a probe's timers, Zen 4).
void cvk_ring_correlations_portable(const float *y, size_t h, size_t n, size_t lag, float *short_lags,
                                    float *long_lags) {
    float s0[8] = {0}, l0[8] = {0}, s1[8] = {0}, l1[8] = {0};
    size_t k = h;
    for (; k + 1 < h + n; k += 2) {
        for (int j = 0; j < 8; j++) {
            const float a = y[k] * y[k - 7 + j];
            const float b = y[k] * y[k - lag - 7 + j];
            const float c = y[k + 1] * y[k - 6 + j];
            const float d = y[k + 1] * y[k - lag - 6 + j];
            s0[j] = s0[j] + a;
            l0[j] = l0[j] + b;
            s1[j] = s1[j] + c;
            l1[j] = l1[j] + d;
        }
    }
    if (k < h + n) {
        for (int j = 0; j < 8; j++) {
            const float a = y[k] * y[k - 7 + j];
            const float b = y[k] * y[k - lag - 7 + j];
            s0[j] = s0[j] + a;
            l0[j] = l0[j] + b;
        }
    }
    for (int j = 0; j < 8; j++) {
        short_lags[j] = s0[j] + s1[j];
        long_lags[j] = l0[j] + l1[j];
    }
}

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

// Four lanes of a vector the Swift caller has just stored, loaded as two halves: the SSE2 baseline
// stores it 16 bytes at a time, and a 32-byte load over two such stores is not forwarded from them
// (it waits for them to reach the cache: a fifth of these kernels' time went on their first load).
// The empty asm keeps the compiler from joining the two loads into one again.
__attribute__((target("avx2"))) static inline __m256d load_stored(const double *p) {
    __m128d low = _mm_loadu_pd(p);
    __asm__("" : "+x"(low));
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(low), _mm_loadu_pd(p + 2), 1);
}

__attribute__((target("avx2"))) static int vad_lanes_db_avx2(const double *p, double *out) {
    int in_range = 0;
    for (int h = 0; h < 2; h++) {
        const __m256d v = load_stored(p + 4 * h);
        const __m256d in = _mm256_and_pd(_mm256_cmp_pd(v, _mm256_set1_pd(1e-14), _CMP_GE_OQ),
                                         _mm256_cmp_pd(v, _mm256_set1_pd(INFINITY), _CMP_LT_OQ));
        in_range |= _mm256_movemask_pd(in) << (4 * h);
        const __m256i bits = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_set1_pd(1.0), v, in));
        const __m256d biased = _mm256_castsi256_pd(
            _mm256_or_si256(_mm256_srli_epi64(bits, 52), _mm256_set1_epi64x(0x4330000000000000LL)));
        __m256d exponent = _mm256_sub_pd(biased, _mm256_set1_pd(DB_BIAS));
        __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFFLL)),
                                                        _mm256_set1_epi64x(0x3FF0000000000000LL)));
        const __m256d high = _mm256_cmp_pd(m, _mm256_set1_pd(DB_SQRT2), _CMP_GT_OQ);
        m = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), high);
        exponent = _mm256_blendv_pd(exponent, _mm256_add_pd(exponent, _mm256_set1_pd(1)), high);
        const __m256d one = _mm256_set1_pd(1);
        const __m256d t = _mm256_div_pd(_mm256_sub_pd(m, one), _mm256_add_pd(m, one));
        const __m256d t2 = _mm256_mul_pd(t, t);
        __m256d series = _mm256_mul_pd(t2, _mm256_set1_pd(2.0 / 11));
        series = _mm256_mul_pd(t2, _mm256_add_pd(series, _mm256_set1_pd(2.0 / 9)));
        series = _mm256_mul_pd(t2, _mm256_add_pd(series, _mm256_set1_pd(2.0 / 7)));
        series = _mm256_mul_pd(t2, _mm256_add_pd(series, _mm256_set1_pd(2.0 / 5)));
        series = _mm256_mul_pd(t2, _mm256_add_pd(series, _mm256_set1_pd(2.0 / 3)));
        const __m256d ln = _mm256_mul_pd(t, _mm256_add_pd(series, _mm256_set1_pd(2)));
        const __m256d sum = _mm256_add_pd(_mm256_mul_pd(exponent, _mm256_set1_pd(DB_LOG10_2)),
                                          _mm256_mul_pd(ln, _mm256_set1_pd(DB_LOG10_E)));
        _mm256_storeu_pd(out + 4 * h, _mm256_mul_pd(_mm256_set1_pd(10), sum));
    }
    return in_range;
}

__attribute__((target("avx2"))) static int vad_lanes_power_avx2(const double *levels, double *out) {
    static const double terms[12] = {1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720,
                                     1.0 / 120,      1.0 / 24,      1.0 / 6,      0.5,         1,          1};
    int in_range = 0;
    for (int h = 0; h < 2; h++) {
        const __m256d v = load_stored(levels + 4 * h);
        const __m256d in = _mm256_and_pd(_mm256_cmp_pd(v, _mm256_set1_pd(-3000), _CMP_GT_OQ),
                                         _mm256_cmp_pd(v, _mm256_set1_pd(3000), _CMP_LT_OQ));
        in_range |= _mm256_movemask_pd(in) << (4 * h);
        const __m256d y = _mm256_mul_pd(_mm256_and_pd(v, in), _mm256_set1_pd(POW_LOG2_10_OVER_10));
        const __m256d shift = _mm256_set1_pd(POW_SHIFT);
        __m256d n = _mm256_sub_pd(_mm256_add_pd(y, shift), shift);
        n = _mm256_blendv_pd(n, _mm256_sub_pd(n, _mm256_set1_pd(1)), _mm256_cmp_pd(n, y, _CMP_GT_OQ));
        const __m256d z = _mm256_mul_pd(_mm256_sub_pd(y, n), _mm256_set1_pd(POW_LN2));
        __m256d e = _mm256_set1_pd(1.0 / 479001600);
        for (int j = 0; j < 12; j++) e = _mm256_add_pd(_mm256_mul_pd(e, z), _mm256_set1_pd(terms[j]));
        const __m256i integer =
            _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(n, shift)), _mm256_castpd_si256(shift));
        const __m256i scale = _mm256_slli_epi64(_mm256_add_epi64(integer, _mm256_set1_epi64x(1023)), 52);
        _mm256_storeu_pd(out + 4 * h, _mm256_mul_pd(e, _mm256_castsi256_pd(scale)));
    }
    return in_range;
}

__attribute__((target("avx2"))) static void vad_leakage_avx2(const double *gains, const double *x,
                                                             const double *distant, const double *all, double margin,
                                                             double *echo) {
    const __m256d x0 = load_stored(x), x1 = load_stored(x + 4);
    __m256d e0 = _mm256_add_pd(load_stored(gains), x0);
    __m256d e1 = _mm256_add_pd(load_stored(gains + 4), x1);
    for (int k = 0; k < 8; k++) {
        const __m256d gain = _mm256_set1_pd(gains[k]);
        const __m256d xk = _mm256_set1_pd(x[k]);
        const __m256d near = _mm256_set1_pd(x[k] - margin);
        for (int h = 0; h < 2; h++) {
            const __m256d xh = h == 0 ? x0 : x1;
            __m256d eh = h == 0 ? e0 : e1;
            const __m256d leaked = _mm256_add_pd(_mm256_loadu_pd(distant + 8 * k + 4 * h), xk);
            const __m256d part = _mm256_blendv_pd(xh, leaked, _mm256_cmp_pd(leaked, xh, _CMP_LT_OQ));
            const __m256d raised = _mm256_add_pd(part, gain);
            eh = _mm256_blendv_pd(eh, raised, _mm256_cmp_pd(eh, raised, _CMP_LT_OQ));
            const __m256d mostly =
                _mm256_cmp_pd(xh, _mm256_add_pd(_mm256_loadu_pd(all + 8 * k + 4 * h), near), _CMP_LT_OQ);
            const __m256d own = _mm256_add_pd(xh, gain);
            eh = _mm256_blendv_pd(eh, own, _mm256_and_pd(mostly, _mm256_cmp_pd(eh, own, _CMP_LT_OQ)));
            if (h == 0) e0 = eh;
            else e1 = eh;
        }
    }
    _mm256_storeu_pd(echo, e0);
    _mm256_storeu_pd(echo + 4, e1);
}

__attribute__((target("avx2"))) static size_t ring_third_difference_avx2(const float *x, size_t n, float *out,
                                                                          float *squares) {
    const __m256 three = _mm256_set1_ps(3.0f);
    __m256 sum = _mm256_setzero_ps();
    size_t i = 3;
    while (i + 8 <= n) {
        const __m256 x0 = _mm256_loadu_ps(x + i);
        const __m256 x1 = _mm256_loadu_ps(x + i - 1);
        const __m256 x2 = _mm256_loadu_ps(x + i - 2);
        const __m256 x3 = _mm256_loadu_ps(x + i - 3);
        const __m256 y =
            _mm256_sub_ps(_mm256_add_ps(_mm256_sub_ps(x0, _mm256_mul_ps(three, x1)), _mm256_mul_ps(three, x2)), x3);
        _mm256_storeu_ps(out + i, y);
        sum = _mm256_add_ps(sum, _mm256_mul_ps(y, y));
        i += 8;
    }
    _mm256_storeu_ps(squares, sum);
    return i;
}

__attribute__((target("avx2"))) static void ring_correlations_avx2(const float *y, size_t h, size_t n, size_t lag,
                                                                   float *short_lags, float *long_lags) {
    __m256 s0 = _mm256_setzero_ps(), l0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), l1 = _mm256_setzero_ps();
    size_t k = h;
    for (; k + 1 < h + n; k += 2) {
        const __m256 y0 = _mm256_set1_ps(y[k]);
        const __m256 y1 = _mm256_set1_ps(y[k + 1]);
        s0 = _mm256_add_ps(s0, _mm256_mul_ps(y0, _mm256_loadu_ps(y + k - 7)));
        l0 = _mm256_add_ps(l0, _mm256_mul_ps(y0, _mm256_loadu_ps(y + k - lag - 7)));
        s1 = _mm256_add_ps(s1, _mm256_mul_ps(y1, _mm256_loadu_ps(y + k - 6)));
        l1 = _mm256_add_ps(l1, _mm256_mul_ps(y1, _mm256_loadu_ps(y + k - lag - 6)));
    }
    if (k < h + n) {
        const __m256 y0 = _mm256_set1_ps(y[k]);
        s0 = _mm256_add_ps(s0, _mm256_mul_ps(y0, _mm256_loadu_ps(y + k - 7)));
        l0 = _mm256_add_ps(l0, _mm256_mul_ps(y0, _mm256_loadu_ps(y + k - lag - 7)));
    }
    _mm256_storeu_ps(short_lags, _mm256_add_ps(s0, s1));
    _mm256_storeu_ps(long_lags, _mm256_add_ps(l0, l1));
}

// The kernels to use: 1 AVX2, 0 the portable ones; −1 until first asked.
static int vad_lanes_level = -1;

static inline int lanes_level(void) {
    int level = __atomic_load_n(&vad_lanes_level, __ATOMIC_RELAXED);
    if (level < 0) {
        __builtin_cpu_init();
        level = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&vad_lanes_level, level, __ATOMIC_RELAXED);
    }
    return level;
}

int cvk_vad_lanes_db(const double *p, double *out) {
    return lanes_level() == 1 ? vad_lanes_db_avx2(p, out) : cvk_vad_lanes_db_portable(p, out);
}

int cvk_vad_lanes_power(const double *levels, double *out) {
    return lanes_level() == 1 ? vad_lanes_power_avx2(levels, out) : cvk_vad_lanes_power_portable(levels, out);
}

void cvk_vad_leakage(const double *gains, const double *x, const double *distant, const double *all, double margin,
                     double *echo) {
    if (lanes_level() == 1) vad_leakage_avx2(gains, x, distant, all, margin, echo);
    else cvk_vad_leakage_portable(gains, x, distant, all, margin, echo);
}

size_t cvk_ring_third_difference(const float *x, size_t n, float *out, float *squares) {
    return lanes_level() == 1 ? ring_third_difference_avx2(x, n, out, squares)
                              : cvk_ring_third_difference_portable(x, n, out, squares);
}

void cvk_ring_correlations(const float *y, size_t h, size_t n, size_t lag, float *short_lags, float *long_lags) {
    if (lanes_level() == 1) ring_correlations_avx2(y, h, n, lag, short_lags, long_lags);
    else cvk_ring_correlations_portable(y, h, n, lag, short_lags, long_lags);
}
#else
int cvk_vad_lanes_db(const double *p, double *out) { return cvk_vad_lanes_db_portable(p, out); }

int cvk_vad_lanes_power(const double *levels, double *out) { return cvk_vad_lanes_power_portable(levels, out); }

void cvk_vad_leakage(const double *gains, const double *x, const double *distant, const double *all, double margin,
                     double *echo) {
    cvk_vad_leakage_portable(gains, x, distant, all, margin, echo);
}

size_t cvk_ring_third_difference(const float *x, size_t n, float *out, float *squares) {
    return cvk_ring_third_difference_portable(x, n, out, squares);
}

void cvk_ring_correlations(const float *y, size_t h, size_t n, size_t lag, float *short_lags, float *long_lags) {
    cvk_ring_correlations_portable(y, h, n, lag, short_lags, long_lags);
}
#endif
