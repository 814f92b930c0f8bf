// 2× upsampling (24 → 48 kHz, 8 → 16 kHz …) for the core's PolyphaseResampler, lanes = windows.
//
// The prototype filter is symmetric with odd length 2C + 1 (KaiserFilterDesign.lowPass, exactly
// symmetric), so each of the two phases is symmetric too: phase 0 holds its even taps (C + 1 of
// them), phase 1 its odd ones (C). Adding the two inputs a tap pair multiplies first halves the
// multiply-adds, and with the outputs in the lanes (vector lane i = window w + i) one unaligned
// load of the inputs serves both phases and no horizontal sum is needed. The earlier kernels (one
// accumulator per output over all taps, then a horizontal sum) ran 1.03 ns an output with AVX-512 and
// 1.56 with AVX2 here; these 0.56 and 1.25 (96-tap phases of the 24 → 48 kHz filter, 4096 outputs a
// call, micro-benchmark, clang -O2 as SwiftPM builds). This kernel is the main cost of a whole-file
// 24 → 48 kHz conversion and of the speaker path (24 kHz server audio to a 48 kHz device).
//
// Order, per output (s = n − 1 − C the first non-zero tap of phase 0, P = ⌊C/2⌋ ≥ 1, x the window):
//   phase 0: acc = 0; acc = fma(c0[s+k], x[s+k] + x[n−1−k], acc) for k = 0 … P−1;
//            then C even: acc = fma(c0[s+P], x[s+P], acc) (the centre);
//                 C odd:  acc = fma(c0[s+P], x[s+P] + x[s+P+1], acc)
//   phase 1: acc = 0; acc = fma(c1[s+1+k], x[s+1+k] + x[n−1−k], acc) for k = 0 … P−1;
//            then C odd: acc = fma(c1[s+1+P], x[s+1+P], acc) (the centre)
// — outermost (smallest) taps first, as in halfband.c. Every kernel, lane and tail computes an output
// by this chain (the scalar tails with the fused multiply-add, rounded as the vector one), so the
// output does not depend on block sizes or on which kernel ran.
#include "cvectorkernels.h"
#include <math.h>
#include <stdint.h>

// One output of window x, phase 0 or 1 (c = that phase's coefficients). Inlined into each kernel, so
// fmaf is the target's instruction where the kernel's target has one.
static inline __attribute__((always_inline)) float up2_one(const float *c, const float *x, size_t n, size_t centre,
                                                           size_t phase) {
    const size_t s = n - 1 - centre + phase, pairs = centre / 2, m = s + pairs;
    float acc = 0;
    for (size_t k = 0; k < pairs; k++) acc = fmaf(c[s + k], x[s + k] + x[n - 1 - k], acc);
    if (phase == 0) return (centre & 1) ? fmaf(c[m], x[m] + x[m + 1], acc) : fmaf(c[m], x[m], acc);
    return (centre & 1) ? fmaf(c[m], x[m], acc) : acc;
}

// Outputs p (phase 0) and q (phase 1) of `lanes` windows, interleaved: o[2i·stride] = p_i,
// o[(2i+1)·stride] = q_i.
static inline void up2_scatter(const float *p, const float *q, size_t lanes, float *o, size_t stride) {
    for (size_t i = 0; i < lanes; i++) {
        o[2 * i * stride] = p[i];
        o[(2 * i + 1) * stride] = q[i];
    }
}

// A kernel's vector part: both phases of windows [0, returned) of x (x + w the window of w), phase 0's
// output at o[2w·out_stride] and phase 1's after it; the driver computes the windows left.
typedef size_t (*up2_windows_fn)(const float *c0, const float *c1, const float *x, size_t n, size_t centre,
                                 size_t windows, float *o, size_t out_stride);

// The driver every kernel shares: a half window from phase 1 first (first = 1), whole windows by
// `vector_windows`, the ones it left by the scalar chain, then a half window of phase 0 (an odd
// number of outputs left).
static inline __attribute__((always_inline)) void up2_drive(const float *c0, const float *c1, const float *b, size_t n,
                                                            size_t centre, size_t first, size_t count, float *out,
                                                            size_t out_stride, up2_windows_fn vector_windows) {
    size_t j = 0;
    if (first == 1 && count > 0) {
        out[0] = up2_one(c1, b, n, centre, 1);
        j = 1;
    }
    const float *x = b + (first + j) / 2;
    float *o = out + j * out_stride;
    const size_t windows = (count - j) / 2;
    for (size_t w = vector_windows(c0, c1, x, n, centre, windows, o, out_stride); w < windows; w++) {
        o[2 * w * out_stride] = up2_one(c0, x + w, n, centre, 0);
        o[(2 * w + 1) * out_stride] = up2_one(c1, x + w, n, centre, 1);
    }
    if (j + 2 * windows < count) o[2 * windows * out_stride] = up2_one(c0, x + windows, n, centre, 0);
}

// The portable kernel (the reference the others are tested against): eight windows a block, in arrays.
static size_t up2_portable_windows(const float *c0, const float *c1, const float *x, size_t n, size_t centre,
                                   size_t windows, float *o, size_t out_stride) {
    const size_t s = n - 1 - centre, pairs = centre / 2, m = s + pairs;
    size_t w = 0;
    for (; w + 8 <= windows; w += 8) {
        const float *xw = x + w;
        float p[8], q[8];
        for (size_t i = 0; i < 8; i++) {
            p[i] = 0;
            q[i] = 0;
        }
        for (size_t k = 0; k < pairs; k++) {
            for (size_t i = 0; i < 8; i++) {
                p[i] = fmaf(c0[s + k], xw[i + s + k] + xw[i + n - 1 - k], p[i]);
                q[i] = fmaf(c1[s + 1 + k], xw[i + s + 1 + k] + xw[i + n - 1 - k], q[i]);
            }
        }
        for (size_t i = 0; i < 8; i++) {
            if (centre & 1) {
                p[i] = fmaf(c0[m], xw[i + m] + xw[i + m + 1], p[i]);
                q[i] = fmaf(c1[m + 1], xw[i + m + 1], q[i]);
            } else {
                p[i] = fmaf(c0[m], xw[i + m], p[i]);
            }
        }
        up2_scatter(p, q, 8, o + 2 * w * out_stride, out_stride);
    }
    return w;
}

void cvk_up2(const float *c0, const float *c1, const float *b, size_t n, size_t centre, size_t first, size_t count,
             float *out, size_t out_stride) {
    up2_drive(c0, c1, b, n, centre, first, count, out, out_stride, up2_portable_windows);
}

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

// V vectors of windows (x + w …), both phases, by the chain above; `lk` rolls: the left input of
// phase 0's pair k + 1 is phase 1's of pair k, loaded once.
#define UP2_BLOCK(V)                                                                                                  \
    {                                                                                                                 \
        VEC p[V], q[V], lk[V];                                                                                        \
        const float *xw = x + w;                                                                                      \
        for (int v = 0; v < V; v++) {                                                                                 \
            p[v] = ZERO();                                                                                            \
            q[v] = ZERO();                                                                                            \
            lk[v] = LOAD(xw + s + v * LANES);                                                                         \
        }                                                                                                             \
        for (size_t k = 0; k < pairs; k++) {                                                                          \
            const VEC a = SET1(c0[s + k]), b1 = SET1(c1[s + 1 + k]);                                                  \
            for (int v = 0; v < V; v++) {                                                                             \
                const VEC r = LOAD(xw + n - 1 - k + v * LANES), l1 = LOAD(xw + s + 1 + k + v * LANES);              \
                p[v] = FMA(a, ADD(lk[v], r), p[v]);                                                                   \
                q[v] = FMA(b1, ADD(l1, r), q[v]);                                                                     \
                lk[v] = l1;                                                                                           \
            }                                                                                                         \
        }                                                                                                             \
        UP2_FINISH(V, lk)                                                                                             \
    }

// The last step (phase 0's centre or last pair, phase 1's centre when C is odd; L[v] = x[m …] of
// vector v) and the stores.
#define UP2_FINISH(V, L)                                                                                              \
    {                                                                                                                 \
        const VEC a = SET1(c0[m]), b1 = SET1(c1[m + 1]);                                                              \
        for (int v = 0; v < V; v++) {                                                                                 \
            if (centre & 1) {                                                                                         \
                const VEC l1 = LOAD(x + w + m + 1 + v * LANES);                                                       \
                p[v] = FMA(a, ADD(L[v], l1), p[v]);                                                                   \
                q[v] = FMA(b1, l1, q[v]);                                                                             \
            } else {                                                                                                  \
                p[v] = FMA(a, L[v], p[v]);                                                                            \
            }                                                                                                         \
            STORE_PAIR(p[v], q[v], o + 2 * (w + v * LANES) * out_stride, out_stride);                                \
        }                                                                                                             \
    }

// One kernel: its vector part (whole windows by MIDDLE, a macro: blocks from w = 0 that leave w where
// they stopped, then an unaligned block ending at the last window, overlapping the blocks before it:
// an output computed twice is the same value; none when fewer windows than a vector holds) in the
// shared driver.
#define UP2_KERNEL(NAME, TARGET, MIDDLE)                                                                              \
    TARGET static size_t NAME##_windows(const float *c0, const float *c1, const float *x, size_t n, size_t centre,    \
                                        size_t windows, float *o, size_t out_stride) {                                \
        if (windows < LANES) return 0;                                                                                \
        const size_t s = n - 1 - centre, pairs = centre / 2, m = s + pairs;                                           \
        size_t w = 0;                                                                                                 \
        MIDDLE                                                                                                        \
        if (w < windows) {                                                                                            \
            w = windows - LANES;                                                                                      \
            UP2_BLOCK(1)                                                                                              \
        }                                                                                                             \
        return windows;                                                                                               \
    }                                                                                                                 \
    TARGET void NAME(const float *c0, const float *c1, const float *b, size_t n, size_t centre, size_t first,         \
                     size_t count, float *out, size_t out_stride) {                                                   \
        up2_drive(c0, c1, b, n, centre, first, count, out, out_stride, NAME##_windows);                               \
    }

__attribute__((target("avx2,fma"))) static inline void up2_store8(__m256 p, __m256 q, float *o, size_t stride) {
    if (stride == 1) {
        const __m256 lo = _mm256_unpacklo_ps(p, q), hi = _mm256_unpackhi_ps(p, q);  // p0 q0 p1 q1 | p4 q4 p5 q5 …
        _mm256_storeu_ps(o, _mm256_permute2f128_ps(lo, hi, 0x20));
        _mm256_storeu_ps(o + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
        return;
    }
    float tp[8], tq[8];
    _mm256_storeu_ps(tp, p);
    _mm256_storeu_ps(tq, q);
    up2_scatter(tp, tq, 8, o, stride);
}

__attribute__((target("avx2,fma,avx512f"))) static inline void up2_store16(__m512 p, __m512 q, float *o, size_t stride) {
    if (stride == 1) {
        const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        _mm512_storeu_ps(o, _mm512_permutex2var_ps(p, lo, q));
        _mm512_storeu_ps(o + 16, _mm512_permutex2var_ps(p, hi, q));
        return;
    }
    float tp[16], tq[16];
    _mm512_storeu_ps(tp, p);
    _mm512_storeu_ps(tq, q);
    up2_scatter(tp, tq, 16, o, stride);
}

#define VEC __m256
#define LANES 8
#define LOAD _mm256_loadu_ps
#define SET1 _mm256_set1_ps
#define ADD _mm256_add_ps
#define ZERO _mm256_setzero_ps
#define FMA _mm256_fmadd_ps
#define STORE_PAIR up2_store8
// Three vectors of windows a block: six accumulators and three rolling inputs fit AVX2's sixteen
// registers (four a block spilled: 1.87 ns an output, three 1.25, the earlier kernel 1.59).
#define UP2_W8_MIDDLE                                                                                                 \
    for (; w + 3 * LANES <= windows; w += 3 * LANES) UP2_BLOCK(3)                                                     \
    for (; w + LANES <= windows; w += LANES) UP2_BLOCK(1)
UP2_KERNEL(cvk_up2_w8, __attribute__((target("avx2,fma"))), UP2_W8_MIDDLE)
#undef VEC
#undef LANES
#undef LOAD
#undef SET1
#undef ADD
#undef ZERO
#undef FMA
#undef STORE_PAIR

#define VEC __m512
#define LANES 16
#define LOAD _mm512_loadu_ps
#define SET1 _mm512_set1_ps
#define ADD _mm512_add_ps
#define ZERO _mm512_setzero_ps
#define FMA _mm512_fmadd_ps
#define STORE_PAIR up2_store16

// --- AVX-512: the left inputs from aligned loads. A 512-bit load at an unaligned float splits a cache
// line and takes both load slots; the left input of every pair moves by one float per step, so with
// the block placed where x + w + s is 64-byte aligned it is built from the two aligned vectors around
// it by valignd (an immediate shift: the steps unrolled by 16), and only the right input is loaded
// unaligned: 0.80 → 0.56 ns an output (as above); the same operations in the same order, so the
// same bits. The first and the last sixteen windows (unaligned starts) go
// through UP2_BLOCK.
#define UP2_ALIGNR(hi, lo, r) _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(hi), _mm512_castps_si512(lo), (r)&15))
#define UP2_A_STEP(r)                                                                                                 \
    {                                                                                                                 \
        const size_t k = 16 * g + (r);                                                                                \
        if (k < pairs) {                                                                                              \
            const VEC a = SET1(c0[s + k]), b1 = SET1(c1[s + 1 + k]);                                                  \
            for (int v = 0; v < V_; v++) {                                                                            \
                const VEC l0 = (r) == 0 ? av[v] : UP2_ALIGNR(av[v + 1], av[v], (r));                                  \
                const VEC l1 = (r) == 15 ? av[v + 1] : UP2_ALIGNR(av[v + 1], av[v], (r) + 1);                         \
                const VEC rr = LOAD(x + w + n - 1 - k + v * LANES);                                                   \
                p[v] = FMA(a, ADD(l0, rr), p[v]);                                                                     \
                q[v] = FMA(b1, ADD(l1, rr), q[v]);                                                                    \
            }                                                                                                         \
        }                                                                                                             \
    }
// Reads the aligned vectors holding x[w + s …]: past the last left input by less than one vector,
// inside the 64 bytes that hold it (lanes never used).
#define UP2_ALIGNED_BLOCK(V)                                                                                          \
    {                                                                                                                 \
        enum { V_ = V };                                                                                              \
        VEC p[V], q[V], lm[V];                                                                                        \
        const float *al = x + w + s;                                                                                  \
        for (int v = 0; v < V; v++) {                                                                                 \
            p[v] = ZERO();                                                                                            \
            q[v] = ZERO();                                                                                            \
        }                                                                                                             \
        for (size_t g = 0; 16 * g < pairs; g++) {                                                                     \
            VEC av[V + 1];                                                                                            \
            for (int v = 0; v <= V; v++) av[v] = _mm512_load_ps(al + 16 * g + 16 * v);                               \
            UP2_A_STEP(0) UP2_A_STEP(1) UP2_A_STEP(2) UP2_A_STEP(3) UP2_A_STEP(4) UP2_A_STEP(5) UP2_A_STEP(6)         \
            UP2_A_STEP(7) UP2_A_STEP(8) UP2_A_STEP(9) UP2_A_STEP(10) UP2_A_STEP(11) UP2_A_STEP(12) UP2_A_STEP(13)     \
            UP2_A_STEP(14) UP2_A_STEP(15)                                                                             \
        }                                                                                                             \
        for (int v = 0; v < V; v++) lm[v] = LOAD(x + w + m + v * LANES);                                              \
        UP2_FINISH(V, lm)                                                                                             \
    }

// Up to the first aligned start, one unaligned block.
#define UP2_W16_MIDDLE                                                                                                \
    const size_t start = (16 - (((uintptr_t)(x + s) / sizeof(float)) & 15)) & 15;                                   \
    if (start != 0) UP2_BLOCK(1)                                                                                      \
    for (w = start; w + 4 * LANES <= windows; w += 4 * LANES) UP2_ALIGNED_BLOCK(4)                                    \
    for (; w + LANES <= windows; w += LANES) UP2_ALIGNED_BLOCK(1)
UP2_KERNEL(cvk_up2_w16, __attribute__((target("avx2,fma,avx512f"))), UP2_W16_MIDDLE)

#elif defined(__aarch64__)
#include <arm_neon.h>

// AArch64: NEON, four windows a vector and eight a block (clang does not vectorise the portable
// kernel: its assembly has scalar `fmadd` only). `vfmaq_f32(acc, c, l + r)` is the chain's
// fmaf(c, l + r, acc), so the outputs are the portable kernel's bit for bit (`make check-kernels`
// under qemu); not timed on an ARM device.
static size_t up2_neon_windows(const float *c0, const float *c1, const float *x, size_t n, size_t centre,
                               size_t windows, float *o, size_t out_stride) {
    const size_t s = n - 1 - centre, pairs = centre / 2, m = s + pairs;
    size_t w = 0;
    for (; w + 8 <= windows; w += 8) {
        const float *xw = x + w;
        float32x4_t p0 = vdupq_n_f32(0), p1 = p0, q0 = p0, q1 = p0;
        for (size_t k = 0; k < pairs; k++) {
            const float32x4_t a = vdupq_n_f32(c0[s + k]), c = vdupq_n_f32(c1[s + 1 + k]);
            const float *l = xw + s + k, *r = xw + n - 1 - k;
            const float32x4_t r0 = vld1q_f32(r), r1 = vld1q_f32(r + 4);
            p0 = vfmaq_f32(p0, a, vaddq_f32(vld1q_f32(l), r0));
            p1 = vfmaq_f32(p1, a, vaddq_f32(vld1q_f32(l + 4), r1));
            q0 = vfmaq_f32(q0, c, vaddq_f32(vld1q_f32(l + 1), r0));
            q1 = vfmaq_f32(q1, c, vaddq_f32(vld1q_f32(l + 5), r1));
        }
        const float32x4_t a = vdupq_n_f32(c0[m]), c = vdupq_n_f32(c1[m + 1]);
        const float32x4_t lm0 = vld1q_f32(xw + m), lm1 = vld1q_f32(xw + m + 4);
        if (centre & 1) {
            const float32x4_t ln0 = vld1q_f32(xw + m + 1), ln1 = vld1q_f32(xw + m + 5);
            p0 = vfmaq_f32(p0, a, vaddq_f32(lm0, ln0));
            p1 = vfmaq_f32(p1, a, vaddq_f32(lm1, ln1));
            q0 = vfmaq_f32(q0, c, ln0);
            q1 = vfmaq_f32(q1, c, ln1);
        } else {
            p0 = vfmaq_f32(p0, a, lm0);
            p1 = vfmaq_f32(p1, a, lm1);
        }
        float tp[8], tq[8];
        vst1q_f32(tp, p0);
        vst1q_f32(tp + 4, p1);
        vst1q_f32(tq, q0);
        vst1q_f32(tq + 4, q1);
        up2_scatter(tp, tq, 8, o + 2 * w * out_stride, out_stride);
    }
    return w;
}
void cvk_up2_w8(const float *c0, const float *c1, const float *b, size_t n, size_t centre, size_t first, size_t count,
                float *out, size_t out_stride) {
    up2_drive(c0, c1, b, n, centre, first, count, out, out_stride, up2_neon_windows);
}
void cvk_up2_w16(const float *c0, const float *c1, const float *b, size_t n, size_t centre, size_t first, size_t count,
                 float *out, size_t out_stride) {
    cvk_up2_w8(c0, c1, b, n, centre, first, count, out, out_stride);
}
#else
// Elsewhere the portable kernel above.
void cvk_up2_w8(const float *c0, const float *c1, const float *b, size_t n, size_t centre, size_t first, size_t count,
                float *out, size_t out_stride) {
    cvk_up2(c0, c1, b, n, centre, first, count, out, out_stride);
}
void cvk_up2_w16(const float *c0, const float *c1, const float *b, size_t n, size_t centre, size_t first, size_t count,
                 float *out, size_t out_stride) {
    cvk_up2(c0, c1, b, n, centre, first, count, out, out_stride);
}
#endif
