// PCM conversion kernels (AVX2, and AVX-512 where the CPU has it) for AudioPipelineCore's PCMKernels:
// Float32 → Int16 (standard, TPDF dither, iOS compatibility), Int16 → Float32 (standard, iOS) and the
// stereo mean. The Swift SIMD8 loops are limited to SSE2 in a portable build (measured: 0.3–0.7× a C
// loop built with -march=native); these are the same arithmetic with AVX2's 256-bit registers and
// conversions, so the results are bit-identical (tests compare them with the Swift code on every
// special value, and the dither with the definition of its noise). Each handles whole groups and
// returns how many samples it did; the Swift code does the rest. Elsewhere (AArch64, where the Swift
// code already runs NEON, or x86-64 without AVX2) cvk_pcm_available() says 0.
#include "cvectorkernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define CVK_PCM __attribute__((target("avx2")))

#define CVK_PCM512 __attribute__((target("avx512f,avx512bw")))

// 0: none, 1: AVX2, 2: AVX-512 (F + BW) — what this CPU has, capped by cvk_pcm_set_level (tests).
static int cvk_pcm_cpu_level(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) return 2;
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}
static int cvk_pcm_cap = 2;
static int cvk_pcm_level_now(void) {
    static int cpu = -1;
    if (cpu < 0) cpu = cvk_pcm_cpu_level();
    return cpu < cvk_pcm_cap ? cpu : cvk_pcm_cap;
}

int cvk_pcm_available(void) { return cvk_pcm_level_now() > 0; }
int cvk_pcm_level(void) { return cvk_pcm_level_now(); }
void cvk_pcm_set_level(int level) { cvk_pcm_cap = level; }
const char *cvk_pcm_instruction_set(void) {
    switch (cvk_pcm_level_now()) {
    case 2: return "AVX-512";
    case 1: return "AVX2";
    default: return 0;
    }
}

// Two vectors of clamped, scaled floats → 16 Int16 by round-to-nearest-even conversion (the
// Swift code's magic-number add rounds the same way) and an in-lane pack put back in order.
CVK_PCM static inline void store16(int16_t *dst, __m256 a, __m256 b) {
    __m256i p = _mm256_packs_epi32(_mm256_cvtps_epi32(a), _mm256_cvtps_epi32(b));
    _mm256_storeu_si256((__m256i *)dst, _mm256_permute4x64_epi64(p, 0xD8));
}

// s = s > lo ? s : lo; s = s < hi ? s : hi — maxps/minps keep the second operand for NaN, as the
// Swift `replacing` does.
CVK_PCM static inline __m256 clamp(__m256 s) {
    return _mm256_min_ps(_mm256_max_ps(s, _mm256_set1_ps(-32768.0f)), _mm256_set1_ps(32767.0f));
}
CVK_PCM static inline __m256 scaled(__m256 v) { return _mm256_mul_ps(v, _mm256_set1_ps(32768.0f)); }

// Whether any lane is outside [-1, 1] or NaN: !(|x| <= 1).
CVK_PCM static inline __m256 odd_lanes(__m256 v) {
    __m256 magnitude = _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF)));
    return _mm256_cmp_ps(magnitude, _mm256_set1_ps(1.0f), _CMP_NLE_UQ);
}

CVK_PCM static size_t f32_to_i16_avx2(const float *src, int16_t *dst, size_t n, int *odd) {
    size_t i = 0;
    __m256 flags = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        __m256 a = _mm256_loadu_ps(src + i), b = _mm256_loadu_ps(src + i + 8);
        flags = _mm256_or_ps(flags, _mm256_or_ps(odd_lanes(a), odd_lanes(b)));
        store16(dst + i, clamp(scaled(a)), clamp(scaled(b)));
    }
    *odd = _mm256_movemask_ps(flags) != 0;
    return i;
}

// --- TPDF dither (TPDFNoise in Swift; the same definition, bit for bit) --------------------------
// Samples 2j and 2j + 1 take the low and the high 16 bits of word j = mix(c_j), where
// c_j = key + j·W + j(j − 1)/2·V (mod 2^32) and mix is xorshift, multiply, xorshift. Each 16-bit half's
// two bytes summed (0…510, triangular) give the noise (sum − 255) / 256 LSB: the float with bit pattern
// 0x47000000 | sum is 32768 + sum / 256, minus 32768 + 255 / 256, exactly. Nothing is carried from one
// call to the next but the position, so the noise of a sample never depends on the chunking.
#define TPDF_W 0x9E3779B9u
#define TPDF_V 0x6A09E667u
#define TPDF_M 0x2C1B3C6Du

// c_j, with j(j − 1)/2 taken mod 2^64 (halving the even factor first) before it is reduced mod 2^32.
static uint32_t tpdf_counter(uint32_t key, uint64_t j) {
    uint64_t t = (j & 1) ? j * ((j - 1) / 2) : (j / 2) * (j - 1);
    return key + (uint32_t)j * TPDF_W + (uint32_t)t * TPDF_V;
}

// Lane l of a kernel that takes `pairs` words a step holds pair j + o_l. From
// c_{x+o} = c_x + o·(W + x·V) + o(o − 1)/2·V: its counter is c_j + o_l·a + T(o_l)·V with a = W + j·V, and
// its step c_{x+pairs} − c_x = pairs·a + pairs·o_l·V + T(pairs)·V, which grows by pairs²·V a step.
// The kernels hide their exponent constant from the optimiser (an empty asm): seeing it, clang merges
// each unpack with it into a two-source permute (vpermt2w; with AVX2, unpack + vpshufb + vpermq),
// measured 5–8 % slower per chunk here.
typedef struct {
    uint32_t base, a, step;
} tpdf_start;
static tpdf_start tpdf_begin(uint32_t key, uint64_t pair, uint32_t pairs) {
    uint32_t a = TPDF_W + (uint32_t)pair * TPDF_V;
    return (tpdf_start){tpdf_counter(key, pair), a, pairs * a + pairs * (pairs - 1) / 2 * TPDF_V};
}

CVK_PCM static inline __m256i tpdf_mix(__m256i c) {
    __m256i h = _mm256_xor_si256(c, _mm256_srli_epi32(c, 16));
    h = _mm256_mullo_epi32(h, _mm256_set1_epi32((int)TPDF_M));
    return _mm256_xor_si256(h, _mm256_srli_epi32(h, 15));
}

// Sixteen samples a step from eight words. The in-lane unpacks put words 0, 1 | 4, 5 of the lanes in
// the first vector and 2, 3 | 6, 7 in the second, so lane l holds pair offset {0, 1, 4, 5, 2, 3, 6, 7}[l].
CVK_PCM static size_t f32_to_i16_tpdf_avx2(const float *src, int16_t *dst, size_t n, uint32_t key, uint64_t pair,
                                           int *odd) {
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    const __m256i triangle = _mm256_setr_epi32(0, 0, 6, 10, 1, 3, 15, 21);  // o(o − 1)/2
    tpdf_start b = tpdf_begin(key, pair, 8);
    __m256i c = _mm256_mullo_epi32(order, _mm256_set1_epi32((int)b.a));
    c = _mm256_add_epi32(c, _mm256_mullo_epi32(triangle, _mm256_set1_epi32((int)TPDF_V)));
    c = _mm256_add_epi32(c, _mm256_set1_epi32((int)b.base));
    __m256i step = _mm256_mullo_epi32(order, _mm256_set1_epi32((int)(8 * TPDF_V)));
    step = _mm256_add_epi32(step, _mm256_set1_epi32((int)b.step));
    const __m256i grow = _mm256_set1_epi32((int)(64 * TPDF_V)), ones = _mm256_set1_epi8(1);
    __m256i exponent = _mm256_set1_epi16(0x4700);
    __asm__("" : "+x"(exponent));  // opaque: see tpdf_begin
    const __m256 centre = _mm256_set1_ps(32768.99609375f), hi = _mm256_set1_ps(32767.0f);
    __m256 flags = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i sums = _mm256_maddubs_epi16(tpdf_mix(c), ones);  // byte pairs summed into 16 bits
        c = _mm256_add_epi32(c, step);
        step = _mm256_add_epi32(step, grow);
        __m256 dx = _mm256_sub_ps(_mm256_castsi256_ps(_mm256_unpacklo_epi16(sums, exponent)), centre);
        __m256 dy = _mm256_sub_ps(_mm256_castsi256_ps(_mm256_unpackhi_epi16(sums, exponent)), centre);
        __m256 x = _mm256_loadu_ps(src + i), y = _mm256_loadu_ps(src + i + 8);
        flags = _mm256_or_ps(flags, _mm256_or_ps(odd_lanes(x), odd_lanes(y)));
        // x·32768 + d (the product is exact, so this is also what a fused multiply-add gives). Only the
        // upper clamp: below -32768 (or -Inf) the conversion and the saturating pack give -32768, as
        // Swift's lower clamp does; NaN lanes are rewritten by the caller.
        __m256 s = _mm256_min_ps(_mm256_add_ps(scaled(x), dx), hi);
        __m256 t = _mm256_min_ps(_mm256_add_ps(scaled(y), dy), hi);
        __m256i p = _mm256_packs_epi32(_mm256_cvtps_epi32(s), _mm256_cvtps_epi32(t));
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_permute4x64_epi64(p, 0xD8));
    }
    *odd = _mm256_movemask_ps(flags) != 0;
    return i;
}

// iOS: Int16(max(-1, min(1, x)) · 32767), truncating; min(1, NaN) = 1 as in Swift (minps keeps the
// second operand for NaN). Counts samples outside [-1, 1] and NaNs exactly.
CVK_PCM size_t cvk_f32_to_i16_ios(const float *src, int16_t *dst, size_t n, size_t *clipped, size_t *nans) {
    size_t i = 0, c = 0, q = 0;
    const __m256 one = _mm256_set1_ps(1.0f), minus_one = _mm256_set1_ps(-1.0f), scale = _mm256_set1_ps(32767.0f);
    for (; i + 16 <= n; i += 16) {
        __m256 v[2] = {_mm256_loadu_ps(src + i), _mm256_loadu_ps(src + i + 8)};
        __m256i t[2];
        for (int k = 0; k < 2; k++) {
            __m256 out_of_range = _mm256_or_ps(_mm256_cmp_ps(v[k], one, _CMP_GT_OQ), _mm256_cmp_ps(v[k], minus_one, _CMP_LT_OQ));
            c += (size_t)__builtin_popcount((unsigned)_mm256_movemask_ps(out_of_range));
            q += (size_t)__builtin_popcount((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(v[k], v[k], _CMP_UNORD_Q)));
            // min(1, v) == (v < 1 ? v : 1); max(-1, m) == (m >= -1 ? m : -1).
            __m256 m = _mm256_min_ps(v[k], one);
            __m256 clamped = _mm256_max_ps(m, minus_one);
            t[k] = _mm256_cvttps_epi32(_mm256_mul_ps(clamped, scale));
        }
        __m256i p = _mm256_packs_epi32(t[0], t[1]);
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_permute4x64_epi64(p, 0xD8));
    }
    *clipped = c;
    *nans = q;
    return i;
}

CVK_PCM static size_t i16_to_f32_avx2(const int16_t *src, float *dst, size_t n, int ios) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i w = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256 a = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(w)));
        __m256 b = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(w, 1)));
        if (ios) {  // a true division, as the iOS code does
            a = _mm256_div_ps(a, _mm256_set1_ps(32767.0f));
            b = _mm256_div_ps(b, _mm256_set1_ps(32767.0f));
        } else {  // exact: x · 2^-15
            a = _mm256_mul_ps(a, _mm256_set1_ps(1.0f / 32768.0f));
            b = _mm256_mul_ps(b, _mm256_set1_ps(1.0f / 32768.0f));
        }
        _mm256_storeu_ps(dst + i, a);
        _mm256_storeu_ps(dst + i + 8, b);
    }
    return i;
}

CVK_PCM static size_t stereo_mean_avx2(const float *src, float *dst, size_t frames) {
    size_t f = 0;
    const __m256 half = _mm256_set1_ps(0.5f);
    for (; f + 8 <= frames; f += 8) {
        // a = frames 0-1 | 4-5, b = frames 2-3 | 6-7 (the high halves loaded straight into place), so
        // one in-lane shuffle each leaves the lefts and the rights in frame order: no cross-lane
        // permute (the shuffle port is the bottleneck of this loop).
        const float *p = src + 2 * f;
        __m256 a = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(p + 8), 1);
        __m256 b = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + 4)), _mm_loadu_ps(p + 12), 1);
        __m256 left = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
        __m256 right = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
        _mm256_storeu_ps(dst + f, _mm256_mul_ps(_mm256_add_ps(left, right), half));
    }
    return f;
}

// --- AVX-512 (F + BW): sixteen samples a register; the same operations, so the same results. ------

CVK_PCM512 static inline __mmask16 odd_lanes512(__m512 v) {
    __m512 magnitude = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7FFFFFFF)));
    return _mm512_cmp_ps_mask(magnitude, _mm512_set1_ps(1.0f), _CMP_NLE_UQ);
}

CVK_PCM512 static size_t f32_to_i16_avx512(const float *src, int16_t *dst, size_t n, int *odd) {
    size_t i = 0;
    __mmask16 flags = 0;
    const __m512 scale = _mm512_set1_ps(32768.0f), lo = _mm512_set1_ps(-32768.0f), hi = _mm512_set1_ps(32767.0f);
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(src + i);
        flags |= odd_lanes512(v);
        __m512 s = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(v, scale), lo), hi);
        _mm256_storeu_si256((__m256i *)(dst + i), _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(s)));
    }
    *odd = flags != 0;
    return i;
}

CVK_PCM512 static size_t i16_to_f32_avx512(const int16_t *src, float *dst, size_t n, int ios) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 x = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(src + i))));
        x = ios ? _mm512_div_ps(x, _mm512_set1_ps(32767.0f)) : _mm512_mul_ps(x, _mm512_set1_ps(1.0f / 32768.0f));
        _mm512_storeu_ps(dst + i, x);
    }
    return i;
}

CVK_PCM512 static size_t stereo_mean_avx512(const float *src, float *dst, size_t frames) {
    size_t f = 0;
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512 half = _mm512_set1_ps(0.5f);
    for (; f + 16 <= frames; f += 16) {
        __m512 a = _mm512_loadu_ps(src + 2 * f), b = _mm512_loadu_ps(src + 2 * f + 16);
        __m512 left = _mm512_permutex2var_ps(a, even, b), right = _mm512_permutex2var_ps(a, odd, b);
        _mm512_storeu_ps(dst + f, _mm512_mul_ps(_mm512_add_ps(left, right), half));
    }
    return f;
}

CVK_PCM512 static inline __m512i tpdf_mix512(__m512i c) {
    __m512i h = _mm512_xor_si512(c, _mm512_srli_epi32(c, 16));
    h = _mm512_mullo_epi32(h, _mm512_set1_epi32((int)TPDF_M));
    return _mm512_xor_si512(h, _mm512_srli_epi32(h, 15));
}

// Thirty-two samples a step from sixteen words; the unpacks work within 128-bit lanes, hence the order.
CVK_PCM512 static size_t f32_to_i16_tpdf_avx512(const float *src, int16_t *dst, size_t n, uint32_t key, uint64_t pair,
                                                int *odd) {
    const __m512i order = _mm512_setr_epi32(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    const __m512i triangle = _mm512_setr_epi32(0, 0, 28, 36, 1, 3, 45, 55, 6, 10, 66, 78, 15, 21, 91, 105);
    tpdf_start b = tpdf_begin(key, pair, 16);
    __m512i c = _mm512_mullo_epi32(order, _mm512_set1_epi32((int)b.a));
    c = _mm512_add_epi32(c, _mm512_mullo_epi32(triangle, _mm512_set1_epi32((int)TPDF_V)));
    c = _mm512_add_epi32(c, _mm512_set1_epi32((int)b.base));
    __m512i step = _mm512_mullo_epi32(order, _mm512_set1_epi32((int)(16 * TPDF_V)));
    step = _mm512_add_epi32(step, _mm512_set1_epi32((int)b.step));
    const __m512i grow = _mm512_set1_epi32((int)(256 * TPDF_V)), ones = _mm512_set1_epi8(1);
    __m512i exponent = _mm512_set1_epi16(0x4700);
    __asm__("" : "+v"(exponent));  // opaque: see tpdf_begin
    const __m512 centre = _mm512_set1_ps(32768.99609375f), scale = _mm512_set1_ps(32768.0f);
    const __m512 hi = _mm512_set1_ps(32767.0f);
    __mmask16 flags = 0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512i sums = _mm512_maddubs_epi16(tpdf_mix512(c), ones);
        c = _mm512_add_epi32(c, step);
        step = _mm512_add_epi32(step, grow);
        __m512 dx = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_unpacklo_epi16(sums, exponent)), centre);
        __m512 dy = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_unpackhi_epi16(sums, exponent)), centre);
        __m512 x = _mm512_loadu_ps(src + i), y = _mm512_loadu_ps(src + i + 16);
        flags |= odd_lanes512(x) | odd_lanes512(y);
        // As in the AVX2 kernel; here the multiply and the add fuse (the same result: the product is exact).
        __m512 s = _mm512_min_ps(_mm512_fmadd_ps(x, scale, dx), hi);
        __m512 t = _mm512_min_ps(_mm512_fmadd_ps(y, scale, dy), hi);
        _mm256_storeu_si256((__m256i *)(dst + i), _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(s)));
        _mm256_storeu_si256((__m256i *)(dst + i + 16), _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(t)));
    }
    *odd = flags != 0;
    return i;
}

// --- Entry points: the widest kernel this CPU has; the narrower one finishes what it left. --------

size_t cvk_f32_to_i16(const float *src, int16_t *dst, size_t n, int *odd) {
    size_t done = 0;
    int o512 = 0;
    if (cvk_pcm_level_now() >= 2) done = f32_to_i16_avx512(src, dst, n, &o512);
    *odd = 0;
    size_t rest = n - done >= 16 ? f32_to_i16_avx2(src + done, dst + done, n - done, odd) : 0;
    *odd = *odd || o512;
    return done + rest;
}

size_t cvk_f32_to_i16_tpdf(const float *src, int16_t *dst, size_t n, uint32_t key, uint64_t pair, int *odd) {
    size_t done = 0;
    int o512 = 0;
    if (cvk_pcm_level_now() >= 2) done = f32_to_i16_tpdf_avx512(src, dst, n, key, pair, &o512);
    *odd = 0;
    size_t rest = 0;
    if (n - done >= 16) rest = f32_to_i16_tpdf_avx2(src + done, dst + done, n - done, key, pair + done / 2, odd);
    *odd = *odd || o512;
    return done + rest;
}

size_t cvk_i16_to_f32(const int16_t *src, float *dst, size_t n, int ios) {
    size_t done = cvk_pcm_level_now() >= 2 ? i16_to_f32_avx512(src, dst, n, ios) : 0;
    return n - done >= 16 ? done + i16_to_f32_avx2(src + done, dst + done, n - done, ios) : done;
}

size_t cvk_stereo_mean(const float *src, float *dst, size_t frames) {
    size_t done = cvk_pcm_level_now() >= 2 ? stereo_mean_avx512(src, dst, frames) : 0;
    return frames - done >= 8 ? done + stereo_mean_avx2(src + 2 * done, dst + done, frames - done) : done;
}

// x − x is 0 for a finite x and NaN otherwise; the sum of four such vectors is NaN when any lane
// of any of them is, so 64 samples cost four subtracts, three adds and one compare.
CVK_PCM static size_t finite_prefix_avx2(const float *x, size_t n) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        __m256 c = _mm256_loadu_ps(x + i + 16), d = _mm256_loadu_ps(x + i + 24);
        __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(a, a), _mm256_sub_ps(b, b)),
                                 _mm256_add_ps(_mm256_sub_ps(c, c), _mm256_sub_ps(d, d)));
        if (_mm256_movemask_ps(_mm256_cmp_ps(s, s, _CMP_UNORD_Q))) break;
    }
    return i;
}
CVK_PCM512 static size_t finite_prefix_avx512(const float *x, size_t n) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
        __m512 c = _mm512_loadu_ps(x + i + 32), d = _mm512_loadu_ps(x + i + 48);
        __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(a, a), _mm512_sub_ps(b, b)),
                                 _mm512_add_ps(_mm512_sub_ps(c, c), _mm512_sub_ps(d, d)));
        if (_mm512_cmp_ps_mask(s, s, _CMP_UNORD_Q)) break;
    }
    return i;
}

size_t cvk_finite_prefix(const float *x, size_t n) {
    if (cvk_pcm_level_now() >= 2) return finite_prefix_avx512(x, n);
    return cvk_pcm_level_now() >= 1 ? finite_prefix_avx2(x, n) : 0;
}
#else
int cvk_pcm_available(void) { return 0; }
int cvk_pcm_level(void) { return 0; }
void cvk_pcm_set_level(int level) { (void)level; }
const char *cvk_pcm_instruction_set(void) { return 0; }
size_t cvk_f32_to_i16(const float *src, int16_t *dst, size_t n, int *odd) { (void)src; (void)dst; (void)n; *odd = 0; return 0; }
size_t cvk_f32_to_i16_tpdf(const float *src, int16_t *dst, size_t n, uint32_t key, uint64_t pair, int *odd) {
    (void)src; (void)dst; (void)n; (void)key; (void)pair; *odd = 0; return 0;
}
size_t cvk_f32_to_i16_ios(const float *src, int16_t *dst, size_t n, size_t *clipped, size_t *nans) {
    (void)src; (void)dst; (void)n; *clipped = 0; *nans = 0; return 0;
}
size_t cvk_i16_to_f32(const int16_t *src, float *dst, size_t n, int ios) { (void)src; (void)dst; (void)n; (void)ios; return 0; }
size_t cvk_stereo_mean(const float *src, float *dst, size_t frames) { (void)src; (void)dst; (void)frames; return 0; }
size_t cvk_finite_prefix(const float *x, size_t n) { (void)x; (void)n; return 0; }
#endif
