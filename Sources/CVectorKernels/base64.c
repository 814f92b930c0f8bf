// Vectorised base64: the SSSE3 formulation of W. Muła's and A. Klomp's published algorithms — a byte shuffle gathers the 3 input bytes of each 4-character
// group, multiplies do the 6-bit shifts, and nibble-indexed table lookups translate and validate.
// Pure Swift cannot emit these shuffles in a portable build (SSE2 has none and Swift has no
// per-function target attribute), hence C. On x86-64 the SSSE3 code is compiled with a function
// target attribute and chosen at run time, so the package needs no compiler flags and still runs
// on a CPU without SSSE3 (the kernels then report 0 and the Swift codec does all the work).
// AArch64 has its own NEON version below (verified under qemu by scripts/check-kernels.sh);
// other architectures get the same "0 done" answer.
#include "cvectorkernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <tmmintrin.h>
#define CB64_TARGET __attribute__((target("ssse3")))

int cb64_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("ssse3") ? 1 : 0;
}
const char *cb64_instruction_set(void) { return cb64_available() ? "SSSE3" : 0; }

CB64_TARGET static inline __m128i enc_reshuffle(__m128i in) {
    // Bytes b0 b1 b2 of each group → [b1 b0 b2 b1] per 32-bit lane, then the four sextets, each
    // in its own byte, by multiplies on 16-bit lanes (shifts by different amounts per lane).
    in = _mm_shuffle_epi8(in, _mm_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1));
    const __m128i t0 = _mm_and_si128(in, _mm_set1_epi32(0x0fc0fc00));
    const __m128i t1 = _mm_mulhi_epu16(t0, _mm_set1_epi32(0x04000040));
    const __m128i t2 = _mm_and_si128(in, _mm_set1_epi32(0x003f03f0));
    const __m128i t3 = _mm_mullo_epi16(t2, _mm_set1_epi32(0x01000010));
    return _mm_or_si128(t1, t3);
}

CB64_TARGET static inline __m128i enc_translate(__m128i in) {
    // Sextet → character by adding an offset chosen by range: 0–25 'A', 26–51 'a'−26,
    // 52–61 '0'−52, 62 '+'−62, 63 '/'−63. Index: saturating (s − 51), and 13 for s < 26.
    const __m128i lut = _mm_setr_epi8(
        'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
        '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
    __m128i idx = _mm_subs_epu8(in, _mm_set1_epi8(51));
    const __m128i less = _mm_cmpgt_epi8(_mm_set1_epi8(26), in);
    idx = _mm_or_si128(idx, _mm_and_si128(less, _mm_set1_epi8(13)));
    return _mm_add_epi8(in, _mm_shuffle_epi8(lut, idx));
}

CB64_TARGET static size_t encode_ssse3(const uint8_t *src, size_t len, uint8_t *dst) {
    size_t i = 0, o = 0;
    // 16-byte loads of which 12 are used: stop while 16 bytes remain readable.
    while (i + 16 <= len) {
        __m128i in = _mm_loadu_si128((const __m128i *)(src + i));
        _mm_storeu_si128((__m128i *)(dst + o), enc_translate(enc_reshuffle(in)));
        i += 12;
        o += 16;
    }
    return i;
}

CB64_TARGET static size_t decode_ssse3(const uint8_t *src, size_t len, uint8_t *dst) {
    // Validation: a character is invalid when lut_lo[low nibble] & lut_hi[high nibble] ≠ 0.
    // High-nibble classes: 0x01 '2' (+ /), 0x02 '3' (digits), 0x04 '4'/'6' (A–O, a–o),
    // 0x08 '5'/'7' (P–Z, p–z), 0x10 every other high nibble (always invalid).
    const __m128i lut_hi = _mm_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10,
                                         0x10, 0x10, 0x10);
    // Per low nibble, the classes in which it is invalid.
    const __m128i lut_lo = _mm_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B,
                                         0x1B, 0x1B, 0x1A);
    // Offset character → sextet by high nibble; '/' (0x2F) takes index 1 instead of 2.
    const __m128i lut_roll = _mm_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i nib = _mm_set1_epi8(0x0f);
    const __m128i slash = _mm_set1_epi8(0x2f);
    size_t i = 0, o = 0;
    while (i + 16 <= len) {
        const __m128i str = _mm_loadu_si128((const __m128i *)(src + i));
        const __m128i hi_n = _mm_and_si128(_mm_srli_epi32(str, 4), nib);
        const __m128i lo_n = _mm_and_si128(str, nib);
        // (A byte ≥ 0x80 has a high nibble ≥ 8: class 0x10, invalid.)
        const __m128i bad = _mm_and_si128(_mm_shuffle_epi8(lut_lo, lo_n), _mm_shuffle_epi8(lut_hi, hi_n));
        if (_mm_movemask_epi8(_mm_cmpgt_epi8(bad, _mm_setzero_si128()))) break;
        const __m128i roll = _mm_shuffle_epi8(lut_roll, _mm_add_epi8(_mm_cmpeq_epi8(str, slash), hi_n));
        const __m128i sextets = _mm_add_epi8(str, roll);
        // Pack: pairs → 12 bits (a·64 + b), pairs of those → 24 bits, then bytes in stream order.
        const __m128i ab = _mm_maddubs_epi16(sextets, _mm_set1_epi32(0x01400140));
        const __m128i abcd = _mm_madd_epi16(ab, _mm_set1_epi32(0x00011000));
        const __m128i out = _mm_shuffle_epi8(abcd, _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1));
        _mm_storeu_si128((__m128i *)(dst + o), out);
        i += 16;
        o += 12;
    }
    return i;
}

size_t cb64_encode(const uint8_t *src, size_t len, uint8_t *dst) { return encode_ssse3(src, len, dst); }
size_t cb64_decode(const uint8_t *src, size_t len, uint8_t *dst) { return decode_ssse3(src, len, dst); }

#elif defined(__aarch64__)
#include <arm_neon.h>

// AArch64: NEON is part of the base architecture. Encode: 48 bytes de-interleaved into three
// planes (vld3), four sextet planes by shifts, characters by a 64-byte table lookup (vqtbl4),
// interleaved back (vst4). Decode: the reverse, with a 128-entry character table in two halves
// (0xFF = not in the alphabet; bytes ≥ 0x80 flagged by their own top bit).
static const uint8_t cb64_alphabet[64] = {
    'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P', 'Q', 'R', 'S', 'T', 'U', 'V',
    'W', 'X', 'Y', 'Z', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r',
    's', 't', 'u', 'v', 'w', 'x', 'y', 'z', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '+', '/'};

// Character → sextet for 0x00–0x7F, 0xFF where not in the alphabet.
static const uint8_t cb64_sextets[128] = {
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 62, 255, 255, 255, 63,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 255, 255, 255, 255, 255, 255,
    255, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 255, 255, 255, 255, 255,
    255, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 255, 255, 255, 255, 255,
};

int cb64_available(void) { return 1; }
const char *cb64_instruction_set(void) { return "NEON"; }

size_t cb64_encode(const uint8_t *src, size_t len, uint8_t *dst) {
    const uint8x16x4_t table = vld1q_u8_x4(cb64_alphabet);
    const uint8x16_t m = vdupq_n_u8(0x3f);
    size_t i = 0, o = 0;
    while (i + 48 <= len) {
        const uint8x16x3_t in = vld3q_u8(src + i);
        uint8x16x4_t c;
        c.val[0] = vqtbl4q_u8(table, vshrq_n_u8(in.val[0], 2));
        c.val[1] = vqtbl4q_u8(table, vandq_u8(vorrq_u8(vshlq_n_u8(in.val[0], 4), vshrq_n_u8(in.val[1], 4)), m));
        c.val[2] = vqtbl4q_u8(table, vandq_u8(vorrq_u8(vshlq_n_u8(in.val[1], 2), vshrq_n_u8(in.val[2], 6)), m));
        c.val[3] = vqtbl4q_u8(table, vandq_u8(in.val[2], m));
        vst4q_u8(dst + o, c);
        i += 48;
        o += 64;
    }
    return i;
}

size_t cb64_decode(const uint8_t *src, size_t len, uint8_t *dst) {
    const uint8x16x4_t lo = vld1q_u8_x4(cb64_sextets), hi = vld1q_u8_x4(cb64_sextets + 64);
    const uint8x16_t flip = vdupq_n_u8(0x40);
    size_t i = 0, o = 0;
    while (i + 64 <= len) {
        const uint8x16x4_t in = vld4q_u8(src + i);
        uint8x16_t s[4];
        uint8x16_t bad = vdupq_n_u8(0);
        for (int k = 0; k < 4; k++) {
            // Indices 0–63 from the low half; 64–127 (index ^ 0x40 = 0–63) from the high half.
            s[k] = vqtbx4q_u8(vqtbl4q_u8(lo, in.val[k]), hi, veorq_u8(in.val[k], flip));
            bad = vorrq_u8(bad, vorrq_u8(s[k], in.val[k]));
        }
        if (vmaxvq_u8(bad) & 0x80) break;
        uint8x16x3_t out;
        out.val[0] = vorrq_u8(vshlq_n_u8(s[0], 2), vshrq_n_u8(s[1], 4));
        out.val[1] = vorrq_u8(vshlq_n_u8(s[1], 4), vshrq_n_u8(s[2], 2));
        out.val[2] = vorrq_u8(vshlq_n_u8(s[2], 6), s[3]);
        vst3q_u8(dst + o, out);
        i += 64;
        o += 48;
    }
    return i;
}

#else
int cb64_available(void) { return 0; }
const char *cb64_instruction_set(void) { return 0; }
size_t cb64_encode(const uint8_t *src, size_t len, uint8_t *dst) { (void)src; (void)len; (void)dst; return 0; }
size_t cb64_decode(const uint8_t *src, size_t len, uint8_t *dst) { (void)src; (void)len; (void)dst; return 0; }
#endif
