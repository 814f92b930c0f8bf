// 2:1 half-band decimation, the first stage of the whole-file resampler for large downsampling
// ratios (HalfBandCascadeResampler in the core: 48 → 24 kHz before 24 → 16 kHz, 44.1 → 22.05 kHz
// before 22.05 → 16 kHz). A half-band filter (cutoff at a quarter of the input rate) has every
// even tap but the centre zero, and a symmetric one has each odd tap twice, so an output costs
// one multiply-add per pair of odd taps: about 16 for 130 dB where a polyphase decimator at the
// same rate would run 64.
//
// The lanes are outputs: the input's odd samples are copied apart (de-interleaved) into a small
// block, so output i + 1's window is output i's moved by one float and a vector of 8 or 16
// consecutive outputs takes one broadcast coefficient and two loads per tap pair, no horizontal
// sum. Every output is the same chain of operations whichever lane or tail loop computes it (the
// tails use the scalar fused multiply-add, rounded as the vector one), so the output does not
// depend on block sizes. Order, per output (g the one-sided odd taps, innermost first):
//   acc = g[K−1]·(o_left + o_right); acc = fma(g[k], o_left + o_right, acc) for k = K−2 … 0;
//   acc = fma(centre, x[2i], acc)
// — outermost (smallest) taps first, so the rounding of the small terms is not lost in the large.
#include "cvectorkernels.h"
#include <math.h>

enum { HB_BLOCK = 512, HB_MAX_HALF = 128 };

// One output from the de-interleaved block: o + i is its left-most odd sample, e its centre sample.
static inline float hb_one(const float *g, size_t half, float centre, const float *o, float e) {
    float acc = g[half - 1] * (o[0] + o[2 * half - 1]);
    for (size_t k = half - 1; k-- > 0;) acc = fmaf(g[k], o[half - k - 1] + o[half + k], acc);
    return fmaf(centre, e, acc);
}

// o[t] = x[2t − 2·half + 1] for t < count + 2·half − 1, e[i] = x[2i] for i < count.
static inline void hb_split(const float *x, size_t half, size_t count, float *o, float *e) {
    const float *xo = x - 2 * (long)half + 1;
    for (size_t t = 0; t < count + 2 * half - 1; t++) o[t] = xo[2 * t];
    for (size_t i = 0; i < count; i++) e[i] = x[2 * i];
}

#define HB_SCALAR_BODY                                                                                                \
    for (size_t done = 0; done < count;) {                                                                            \
        const size_t m = count - done < HB_BLOCK ? count - done : HB_BLOCK;                                           \
        float o[HB_BLOCK + 2 * HB_MAX_HALF], e[HB_BLOCK];                                                             \
        hb_split(x + 2 * done, half, m, o, e);                                                                        \
        for (size_t i = 0; i < m; i++) out[(done + i) * out_stride] = hb_one(g, half, centre, o + i, e[i]);           \
        done += m;                                                                                                    \
    }

size_t cvk_halfband_max_half(void) { return HB_MAX_HALF; }

void cvk_halfband(const float *g, size_t half, float centre, const float *x, size_t count, float *out,
                  size_t out_stride) {
    HB_SCALAR_BODY
}

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

// dst[t] = src[2t] for t < n, 16 (8) at a time from two vector loads and one permute (two for AVX2).
__attribute__((target("avx2,fma,avx512f"))) static inline void hb_evens_w16(const float *src, size_t n, float *dst) {
    const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    size_t t = 0;
    for (; t + 16 <= n; t += 16)
        _mm512_storeu_ps(dst + t,
                         _mm512_permutex2var_ps(_mm512_loadu_ps(src + 2 * t), idx, _mm512_loadu_ps(src + 2 * t + 16)));
    for (; t < n; t++) dst[t] = src[2 * t];
}
__attribute__((target("avx2,fma"))) static inline void hb_evens_w8(const float *src, size_t n, float *dst) {
    size_t t = 0;
    for (; t + 8 <= n; t += 8) {
        const __m256 p = _mm256_shuffle_ps(_mm256_loadu_ps(src + 2 * t), _mm256_loadu_ps(src + 2 * t + 8),
                                           _MM_SHUFFLE(2, 0, 2, 0));  // a0 a2 b0 b2 | a4 a6 b4 b6
        _mm256_storeu_ps(dst + t, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(p), 0xD8)));
    }
    for (; t < n; t++) dst[t] = src[2 * t];
}

#define HB_KERNEL(NAME, TARGET, VEC, LANES, LOAD, SET1, ADD, MUL, FMA, STORE, EVENS)                                  \
    TARGET static inline float NAME##_one(const float *g, size_t half, float centre, const float *o, float e) {        \
        float acc = g[half - 1] * (o[0] + o[2 * half - 1]);                                                           \
        for (size_t k = half - 1; k-- > 0;) acc = fmaf(g[k], o[half - k - 1] + o[half + k], acc);                     \
        return fmaf(centre, e, acc);                                                                                  \
    }                                                                                                                 \
    TARGET void NAME(const float *g, size_t half, float centre, const float *x, size_t count, float *out,              \
                     size_t out_stride) {                                                                             \
        for (size_t done = 0; done < count;) {                                                                        \
            const size_t m = count - done < HB_BLOCK ? count - done : HB_BLOCK;                                       \
            float o[HB_BLOCK + 2 * HB_MAX_HALF + LANES], e[HB_BLOCK + LANES];                                         \
            EVENS(x + 2 * done - 2 * (long)half + 1, m + 2 * half - 1, o);                                           \
            EVENS(x + 2 * done, m, e);                                                                                \
            float *dst = out + done * out_stride;                                                                     \
            size_t i = 0;                                                                                             \
            for (; out_stride == 1 && i + 4 * LANES <= m; i += 4 * LANES) {                                           \
                /* Four vectors of outputs in step: four independent chains in flight. */                            \
                const float *oi = o + i;                                                                              \
                const VEC gl = SET1(g[half - 1]);                                                                     \
                VEC a0 = MUL(gl, ADD(LOAD(oi), LOAD(oi + 2 * half - 1)));                                             \
                VEC a1 = MUL(gl, ADD(LOAD(oi + LANES), LOAD(oi + LANES + 2 * half - 1)));                             \
                VEC a2 = MUL(gl, ADD(LOAD(oi + 2 * LANES), LOAD(oi + 2 * LANES + 2 * half - 1)));                     \
                VEC a3 = MUL(gl, ADD(LOAD(oi + 3 * LANES), LOAD(oi + 3 * LANES + 2 * half - 1)));                     \
                for (size_t k = half - 1; k-- > 0;) {                                                                 \
                    const VEC gk = SET1(g[k]);                                                                        \
                    const float *l = oi + half - k - 1, *r = oi + half + k;                                           \
                    a0 = FMA(gk, ADD(LOAD(l), LOAD(r)), a0);                                                          \
                    a1 = FMA(gk, ADD(LOAD(l + LANES), LOAD(r + LANES)), a1);                                          \
                    a2 = FMA(gk, ADD(LOAD(l + 2 * LANES), LOAD(r + 2 * LANES)), a2);                                  \
                    a3 = FMA(gk, ADD(LOAD(l + 3 * LANES), LOAD(r + 3 * LANES)), a3);                                  \
                }                                                                                                     \
                const VEC c = SET1(centre);                                                                           \
                STORE(dst + i, FMA(c, LOAD(e + i), a0));                                                              \
                STORE(dst + i + LANES, FMA(c, LOAD(e + i + LANES), a1));                                              \
                STORE(dst + i + 2 * LANES, FMA(c, LOAD(e + i + 2 * LANES), a2));                                      \
                STORE(dst + i + 3 * LANES, FMA(c, LOAD(e + i + 3 * LANES), a3));                                      \
            }                                                                                                         \
            for (; i + LANES <= m; i += LANES) {                                                                      \
                const float *oi = o + i;                                                                              \
                VEC acc = MUL(SET1(g[half - 1]), ADD(LOAD(oi), LOAD(oi + 2 * half - 1)));                             \
                for (size_t k = half - 1; k-- > 0;)                                                                   \
                    acc = FMA(SET1(g[k]), ADD(LOAD(oi + half - k - 1), LOAD(oi + half + k)), acc);                    \
                acc = FMA(SET1(centre), LOAD(e + i), acc);                                                            \
                if (out_stride == 1) {                                                                                \
                    STORE(dst + i, acc);                                                                              \
                } else {                                                                                              \
                    float t[LANES];                                                                                   \
                    STORE(t, acc);                                                                                    \
                    for (size_t q = 0; q < LANES; q++) dst[(i + q) * out_stride] = t[q];                              \
                }                                                                                                     \
            }                                                                                                         \
            for (; i < m; i++) dst[i * out_stride] = NAME##_one(g, half, centre, o + i, e[i]);                        \
            done += m;                                                                                                \
        }                                                                                                             \
    }

HB_KERNEL(cvk_halfband_w8, __attribute__((target("avx2,fma"))), __m256, 8, _mm256_loadu_ps, _mm256_set1_ps,
          _mm256_add_ps, _mm256_mul_ps, _mm256_fmadd_ps, _mm256_storeu_ps, hb_evens_w8)
HB_KERNEL(hb_w16_generic, __attribute__((target("avx2,fma,avx512f"))), __m512, 16, _mm512_loadu_ps, _mm512_set1_ps,
          _mm512_add_ps, _mm512_mul_ps, _mm512_fmadd_ps, _mm512_storeu_ps, hb_evens_w16)

// --- AVX-512 with the tap count fixed at compile time (half = 2 … 24, every ratio the cascade takes):
// the left sample of each pair is built from the two aligned vectors around it with valignd (an
// immediate shift, so one function per half), the right one loaded unaligned as before. A 512-bit
// load at an unaligned float splits a cache line and takes both load slots; sharing the work
// between the load slots and the shuffle unit made the kernel 1.5x as fast here (8.6 against
// 13.5 us per 24 576 outputs, half = 15, micro-benchmark). Same operations in the same order as
// hb_w16_generic and hb_one: the output does not change.
#define HB16_W16 __attribute__((target("avx2,fma,avx512f")))
#define HB16_ALIGNR(hi, lo, r)                                                                                         \
    _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(hi), _mm512_castps_si512(lo), (r)&15))
// o[i + s] for 0 <= s < 32, from V0 = o[i …], V1 = o[i + 16 …], V2 = o[i + 32 …] (aligned).
#define HB16_SH(s) ((s) == 0 ? V0 : (s) < 16 ? HB16_ALIGNR(V1, V0, s) : (s) == 16 ? V1 : HB16_ALIGNR(V2, V1, s))
#define HB16_STEP(H, k)                                                                                               \
    if ((k) < (H)-1)                                                                                                  \
        acc = _mm512_fmadd_ps(_mm512_set1_ps(g[k]), _mm512_add_ps(HB16_SH((H) - (k)-1), _mm512_loadu_ps(oi + (H) + (k))), \
                              acc);
#define HB16_FIXED(H)                                                                                                 \
    HB16_W16 static size_t hb16_fixed_##H(const float *g, float centre, const float *o, const float *e, size_t m,     \
                                          float *dst) {                                                               \
        size_t i = 0;                                                                                                 \
        for (; i + 16 <= m; i += 16) {                                                                                \
            const float *oi = o + i;                                                                                  \
            const __m512 V0 = _mm512_load_ps(oi), V1 = _mm512_load_ps(oi + 16), V2 = _mm512_load_ps(oi + 32);         \
            __m512 acc = _mm512_mul_ps(_mm512_set1_ps(g[(H)-1]), _mm512_add_ps(V0, _mm512_loadu_ps(oi + 2 * (H)-1))); \
            HB16_STEP(H, 22) HB16_STEP(H, 21) HB16_STEP(H, 20) HB16_STEP(H, 19) HB16_STEP(H, 18) HB16_STEP(H, 17)      \
            HB16_STEP(H, 16) HB16_STEP(H, 15) HB16_STEP(H, 14) HB16_STEP(H, 13) HB16_STEP(H, 12) HB16_STEP(H, 11)      \
            HB16_STEP(H, 10) HB16_STEP(H, 9) HB16_STEP(H, 8) HB16_STEP(H, 7) HB16_STEP(H, 6) HB16_STEP(H, 5)           \
            HB16_STEP(H, 4) HB16_STEP(H, 3) HB16_STEP(H, 2) HB16_STEP(H, 1) HB16_STEP(H, 0)                            \
            _mm512_storeu_ps(dst + i, _mm512_fmadd_ps(_mm512_set1_ps(centre), _mm512_load_ps(e + i), acc));          \
        }                                                                                                             \
        return i;                                                                                                     \
    }
HB16_FIXED(2) HB16_FIXED(3) HB16_FIXED(4) HB16_FIXED(5) HB16_FIXED(6) HB16_FIXED(7) HB16_FIXED(8) HB16_FIXED(9)
HB16_FIXED(10) HB16_FIXED(11) HB16_FIXED(12) HB16_FIXED(13) HB16_FIXED(14) HB16_FIXED(15) HB16_FIXED(16)
HB16_FIXED(17) HB16_FIXED(18) HB16_FIXED(19) HB16_FIXED(20) HB16_FIXED(21) HB16_FIXED(22) HB16_FIXED(23)
HB16_FIXED(24)

typedef size_t (*hb16_fixed_fn)(const float *, float, const float *, const float *, size_t, float *);
static const hb16_fixed_fn hb16_fixed[25] = {
    0, 0, hb16_fixed_2, hb16_fixed_3, hb16_fixed_4, hb16_fixed_5, hb16_fixed_6, hb16_fixed_7, hb16_fixed_8,
    hb16_fixed_9, hb16_fixed_10, hb16_fixed_11, hb16_fixed_12, hb16_fixed_13, hb16_fixed_14, hb16_fixed_15,
    hb16_fixed_16, hb16_fixed_17, hb16_fixed_18, hb16_fixed_19, hb16_fixed_20, hb16_fixed_21, hb16_fixed_22,
    hb16_fixed_23, hb16_fixed_24};

HB16_W16 void cvk_halfband_w16(const float *g, size_t half, float centre, const float *x, size_t count, float *out,
                               size_t out_stride) {
    if (out_stride != 1 || half < 2 || half > 24) {
        hb_w16_generic(g, half, centre, x, count, out, out_stride);
        return;
    }
    const hb16_fixed_fn fixed = hb16_fixed[half];
    for (size_t done = 0; done < count;) {
        const size_t m = count - done < HB_BLOCK ? count - done : HB_BLOCK;
        float o[HB_BLOCK + 2 * HB_MAX_HALF + 48] __attribute__((aligned(64)));
        float e[HB_BLOCK + 16] __attribute__((aligned(64)));
        hb_evens_w16(x + 2 * done - 2 * (long)half + 1, m + 2 * half - 1, o);
        hb_evens_w16(x + 2 * done, m, e);
        float *dst = out + done;
        size_t i = fixed(g, centre, o, e, m, dst);
        for (; i < m; i++) dst[i] = hb_w16_generic_one(g, half, centre, o + i, e[i]);
        done += m;
    }
}

#else
// Elsewhere (AArch64 included) the portable loop above: the compiler vectorises it as it can.
void cvk_halfband_w8(const float *g, size_t half, float centre, const float *x, size_t count, float *out,
                     size_t out_stride) {
    cvk_halfband(g, half, centre, x, count, out, out_stride);
}
void cvk_halfband_w16(const float *g, size_t half, float centre, const float *x, size_t count, float *out,
                      size_t out_stride) {
    cvk_halfband(g, half, centre, x, count, out, out_stride);
}
#endif
