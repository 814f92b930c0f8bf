// FIR dot products for the core's PolyphaseResampler: AVX2 and FMA on x86-64, and 16-lane AVX-512
// versions where the CPU has AVX-512F (each compiled with a function target attribute and chosen
// at run time), NEON on AArch64 (always there). The portable
// Swift kernels run on SSE2 with a separate multiply and add, 1.1–3.2× slower here (measured in
// Benchmarks/Resampling and the Paths target). Swift cannot compile one function for another
// instruction set than the rest of the module, hence C. The AArch64 code is verified under qemu
// by scripts/check-kernels.sh (correctness only: this project has no ARM machine to time it).
//
// Every output is one 8-lane accumulator over the taps in order (a fused multiply-add per 8 taps),
// then the lanes summed in one fixed order — the same in every kernel — so an output has the same
// value whichever kernel computed it, and the resampler's output does not depend on block sizes.
// The batch kernels (decimation, any ratio; 2× upsampling is in upsample2.c) compute a whole run of outputs per call,
// several at a time sharing their loads: per-call overhead was half the time with one call per four.
#include "cvectorkernels.h"
#include <limits.h>

// The polyphase walk shared by both architectures: the coefficient sets and windows of the next
// (at most `limit`) outputs, advancing (w, p) by (step, step_phase) with p carrying into w at `up`.
static inline size_t next_outputs(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b,
                                  long *w, size_t *p, long wend, size_t limit, const float **ca, const float **xa) {
    size_t m = 0;
    while (m < limit && *w < wend) {
        ca[m] = coefs + *p * n;
        xa[m] = b + *w;
        m++;
        *w += (long)step;
        *p += step_phase;
        if (*p >= up) {
            *p -= up;
            *w += 1;
        }
    }
    return m;
}

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define CVK_TARGET __attribute__((target("avx2,fma")))

#define CVK_TARGET512 __attribute__((target("avx2,fma,avx512f")))

int cvk_fir_level(void) {
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return 0;
    return __builtin_cpu_supports("avx512f") ? 2 : 1;
}
int cvk_fir_available(void) { return cvk_fir_level() > 0; }
const char *cvk_fir_instruction_set(void) {
    switch (cvk_fir_level()) {
    case 2: return "AVX-512";
    case 1: return "AVX2+FMA";
    default: return 0;
    }
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

CVK_TARGET static inline void store4(__m128 r, float *out, size_t stride) {
    float t[4];
    _mm_storeu_ps(t, r);
    out[0] = t[0];
    out[stride] = t[1];
    out[2 * stride] = t[2];
    out[3 * stride] = t[3];
}

// Lane q of the result is lane (q + r) mod 8 of v.
CVK_TARGET static inline __m256 rotate8(__m256 v, size_t r) {
    const __m256i idx = _mm256_and_si256(_mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                                          _mm256_set1_epi32((int)r)), _mm256_set1_epi32(7));
    return _mm256_permutevar8x32_ps(v, idx);
}

// All ones in lanes r…7, zeros below.
CVK_TARGET static inline __m256 lanes_from8(size_t r) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32((int)r - 1)));
}

// The kernels, from fir_x86_template.h: 8 lanes (AVX2 + FMA).
#define FIR_TARGET CVK_TARGET
#define FIR_VEC __m256
#define FIR_LANES 8
#define FIR_ZERO() _mm256_setzero_ps()
#define FIR_LOAD(p) _mm256_loadu_ps(p)
#define FIR_LOADA(p) _mm256_load_ps(p)
#define FIR_LOADA_FROM(p, r) _mm256_and_ps(_mm256_load_ps(p), lanes_from8(r))
#define FIR_LOADA_BELOW(p, r) _mm256_andnot_ps(lanes_from8(r), _mm256_load_ps(p))
#define FIR_ROTATE(v, r) rotate8(v, r)
#define FIR_FMA(a, b, acc) _mm256_fmadd_ps(a, b, acc)
#define FIR_REDUCE1(v) reduce1(v)
#define FIR_REDUCE4(p, q, u, v) reduce4(p, q, u, v)
#define FIR_NAME(name) name
#include "fir_x86_template.h"

// --- 16 lanes (AVX-512F) --------------------------------------------------------------------------
// The same kernels with one 16-lane accumulator per output (n a multiple of 16): a 512-bit fused
// multiply-add does twice the work of a 256-bit one per issue, and Zen 5 (this project's machine)
// issues two per cycle, 1.5x the 8-lane kernels measured alone. The 16 lanes are folded to 8
// (lane i + lane i+8) and then summed in reduce1's order, the same in every 16-lane kernel, so an
// instance that uses them gives every output the same value whichever kernel computed it.

CVK_TARGET512 static inline __m256 fold16(__m512 v) {
    const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    return _mm256_add_ps(_mm512_castps512_ps256(v), hi);
}

// Lane q of the result is lane (q + r) mod 16 of v.
CVK_TARGET512 static inline __m512 rotate16(__m512 v, size_t r) {
    const __m512i idx = _mm512_and_si512(_mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                                                            14, 15),
                                                          _mm512_set1_epi32((int)r)), _mm512_set1_epi32(15));
    return _mm512_permutexvar_ps(idx, v);
}

CVK_TARGET512 static inline float reduce16(__m512 v) { return reduce1(fold16(v)); }

CVK_TARGET512 static inline __m128 reduce4w(__m512 p, __m512 q, __m512 u, __m512 v) {
    return reduce4(fold16(p), fold16(q), fold16(u), fold16(v));
}

#define FIR_TARGET CVK_TARGET512
#define FIR_VEC __m512
#define FIR_LANES 16
#define FIR_ZERO() _mm512_setzero_ps()
#define FIR_LOAD(p) _mm512_loadu_ps(p)
#define FIR_LOADA(p) _mm512_load_ps(p)
#define FIR_LOADA_FROM(p, r) _mm512_maskz_load_ps((__mmask16)(0xFFFFu << (r)), p)
#define FIR_LOADA_BELOW(p, r) _mm512_maskz_load_ps((__mmask16)((1u << (r)) - 1), p)
#define FIR_ROTATE(v, r) rotate16(v, r)
#define FIR_FMA(a, b, acc) _mm512_fmadd_ps(a, b, acc)
#define FIR_REDUCE1(v) reduce16(v)
#define FIR_REDUCE4(p, q, u, v) reduce4w(p, q, u, v)
#define FIR_NAME(name) name##_w16
#include "fir_x86_template.h"

#elif defined(__aarch64__)
#include <arm_neon.h>

// AArch64: NEON (with fused multiply-add) is part of the base architecture. Each output keeps its
// 8 lanes as two float32x4 accumulators and sums them in the same order as the x86 kernels.
int cvk_fir_level(void) { return 1; }
int cvk_fir_available(void) { return 1; }
const char *cvk_fir_instruction_set(void) { return "NEON"; }

typedef struct {
    float32x4_t lo, hi;
} acc8;

static inline acc8 acc8_zero(void) {
    acc8 r = {vdupq_n_f32(0), vdupq_n_f32(0)};
    return r;
}

static inline void acc8_fma(acc8 *r, const float *a, const float *b) {
    r->lo = vfmaq_f32(r->lo, vld1q_f32(a), vld1q_f32(b));
    r->hi = vfmaq_f32(r->hi, vld1q_f32(a + 4), vld1q_f32(b + 4));
}

// ((v0+v1)+(v2+v3)) + ((v4+v5)+(v6+v7))
static inline float reduce8(acc8 r) {
    const float32x4_t p = vpaddq_f32(r.lo, r.hi);  // v0+v1, v2+v3, v4+v5, v6+v7
    const float32x4_t q = vpaddq_f32(p, p);        // (v0+v1)+(v2+v3), (v4+v5)+(v6+v7), …
    return vgetq_lane_f32(q, 0) + vgetq_lane_f32(q, 1);
}

// Four outputs at once (eight accumulator chains): out[k·stride] = ca[k]·xa[k].
static inline void quad(const float *const ca[4], const float *const xa[4], size_t n, float *out, size_t stride) {
    acc8 r0 = acc8_zero(), r1 = acc8_zero(), r2 = acc8_zero(), r3 = acc8_zero();
    for (size_t i = 0; i < n; i += 8) {
        acc8_fma(&r0, ca[0] + i, xa[0] + i);
        acc8_fma(&r1, ca[1] + i, xa[1] + i);
        acc8_fma(&r2, ca[2] + i, xa[2] + i);
        acc8_fma(&r3, ca[3] + i, xa[3] + i);
    }
    out[0] = reduce8(r0);
    out[stride] = reduce8(r1);
    out[2 * stride] = reduce8(r2);
    out[3 * stride] = reduce8(r3);
}

float cvk_dot1(const float *a, const float *b, size_t n) {
    acc8 r = acc8_zero();
    for (size_t i = 0; i < n; i += 8) acc8_fma(&r, a + i, b + i);
    return reduce8(r);
}

void cvk_decimate(const float *a, const float *b, size_t stride, size_t n, size_t count, float *out, size_t out_stride) {
    size_t k = 0;
    for (; k + 4 <= count; k += 4) {
        const float *const ca[4] = {a, a, a, a};
        const float *const xa[4] = {b + k * stride, b + (k + 1) * stride, b + (k + 2) * stride, b + (k + 3) * stride};
        quad(ca, xa, n, out + k * out_stride, out_stride);
    }
    for (; k < count; k++) out[k * out_stride] = cvk_dot1(a, b + k * stride, n);
}

// NEON loads of 16 bytes split less often; the aligned variant is cvk_decimate here (not timed).
void cvk_decimate_aligned(const float *a_pad, const float *b, size_t stride, size_t n, size_t count, float *out,
                          size_t out_stride) {
    cvk_decimate(a_pad, b, stride, n, count, out, out_stride);
}

long cvk_polyphase(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                   size_t p0, long wend, size_t room, float *out, size_t out_stride, long *w_after, size_t *p_after) {
    size_t j = 0;
    long w = w0;
    size_t p = p0;
    while (j < room && w < wend) {
        const float *ca[4], *xa[4];
        const size_t m = next_outputs(coefs, n, up, step, step_phase, b, &w, &p, wend, room - j < 4 ? room - j : 4, ca, xa);
        float *o = out + j * out_stride;
        if (m == 4) {
            quad(ca, xa, n, o, out_stride);
        } else {
            for (size_t k = 0; k < m; k++) o[k * out_stride] = cvk_dot1(ca[k], xa[k], n);
        }
        j += m;
    }
    *w_after = w;
    *p_after = p;
    return (long)j;
}

void cvk_phase_major(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                     size_t p0, size_t down, size_t cycles, float *out, size_t out_stride) {
    long w = w0;
    size_t p = p0;
    for (size_t j = 0; j < up; j++) {
        cvk_decimate(coefs + p * n, b + w, down, n, cycles, out + j * out_stride, up * out_stride);
        w += (long)step;
        p += step_phase;
        if (p >= up) {
            p -= up;
            w += 1;
        }
    }
}

// Output by output (correct, not tuned: this project has no ARM machine to time it on).
void cvk_phase_pairs(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                     size_t p0, size_t down, float *out, size_t out_stride) {
    long w = w0;
    size_t p = p0;
    for (size_t j = 0; j < up; j++) {
        const float *c = coefs + p * n, *x = b + w;
        out[j * out_stride] = cvk_dot1(c, x, n);
        out[(j + up) * out_stride] = cvk_dot1(c, x + down, n);
        w += (long)step;
        p += step_phase;
        if (p >= up) {
            p -= up;
            w += 1;
        }
    }
}

#else
int cvk_fir_level(void) { return 0; }
int cvk_fir_available(void) { return 0; }
const char *cvk_fir_instruction_set(void) { return 0; }
float cvk_dot1(const float *a, const float *b, size_t n) { (void)a; (void)b; (void)n; return 0; }
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
void cvk_decimate_aligned(const float *a_pad, const float *b, size_t stride, size_t n, size_t count, float *out,
                          size_t out_stride) {
    cvk_decimate(a_pad, b, stride, n, count, out, out_stride);
}
void cvk_phase_major(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                     size_t p0, size_t down, size_t cycles, float *out, size_t out_stride) {
    (void)coefs; (void)n; (void)up; (void)step; (void)step_phase; (void)b; (void)w0; (void)p0; (void)down; (void)cycles; (void)out; (void)out_stride;
}
void cvk_phase_pairs(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                     size_t p0, size_t down, float *out, size_t out_stride) {
    (void)coefs; (void)n; (void)up; (void)step; (void)step_phase; (void)b; (void)w0; (void)p0; (void)down; (void)out; (void)out_stride;
}
#endif

#if !(defined(__x86_64__) || defined(_M_X64))
// The 16-lane kernels exist on x86-64 only; cvk_fir_level() never returns 2 elsewhere.
float cvk_dot1_w16(const float *a, const float *b, size_t n) { return cvk_dot1(a, b, n); }
void cvk_decimate_w16(const float *a, const float *b, size_t stride, size_t n, size_t count, float *out, size_t out_stride) {
    cvk_decimate(a, b, stride, n, count, out, out_stride);
}
void cvk_decimate_aligned_w16(const float *a_pad, const float *b, size_t stride, size_t n, size_t count, float *out,
                              size_t out_stride) {
    cvk_decimate(a_pad, b, stride, n, count, out, out_stride);
}
long cvk_polyphase_w16(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                       size_t p0, long wend, size_t room, float *out, size_t out_stride, long *w_after, size_t *p_after) {
    return cvk_polyphase(coefs, n, up, step, step_phase, b, w0, p0, wend, room, out, out_stride, w_after, p_after);
}
void cvk_phase_major_w16(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b,
                         long w0, size_t p0, size_t down, size_t cycles, float *out, size_t out_stride) {
    cvk_phase_major(coefs, n, up, step, step_phase, b, w0, p0, down, cycles, out, out_stride);
}
void cvk_phase_pairs_w16(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                         size_t p0, size_t down, float *out, size_t out_stride) {
    cvk_phase_pairs(coefs, n, up, step, step_phase, b, w0, p0, down, out, out_stride);
}
#endif
