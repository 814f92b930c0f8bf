// Checks the C vector kernels of Sources/CVectorKernels against plain references: base64 groups
// against a reference encoder (and every byte value at every position for the validation), FIR
// kernels against a double-precision dot product and against each other bit for bit (the
// resampler's chunk invariance rests on that), the TPDF dither kernel against the noise's definition
// at every width the CPU has. scripts/check-kernels.sh builds it natively
// (x86-64: the SSSE3 and AVX2/FMA kernels) and for AArch64 under qemu (the NEON kernels, which no
// Swift test reaches on an x86 machine).
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cvectorkernels.h"
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

static int failures = 0;
#define CHECK(cond, ...)                          \
    do {                                          \
        if (!(cond)) {                            \
            if (failures < 20) {                  \
                fprintf(stderr, "FAIL: " __VA_ARGS__); \
                fprintf(stderr, "\n");            \
            }                                     \
            failures++;                           \
        }                                         \
    } while (0)

static const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static size_t ref_encode(const unsigned char *src, size_t n, char *dst) {
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = src[i] << 16 | src[i + 1] << 8 | src[i + 2];
        dst[o++] = alphabet[v >> 18];
        dst[o++] = alphabet[(v >> 12) & 63];
        dst[o++] = alphabet[(v >> 6) & 63];
        dst[o++] = alphabet[v & 63];
    }
    return o;  // whole groups only (what the kernels handle)
}

static unsigned rng_state = 12345;
static unsigned rnd(void) {
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void test_base64(void) {
    if (!cb64_available()) {
        printf("base64 kernels: not available on this CPU, skipped\n");
        return;
    }
    unsigned char src[1200], dec[1200 + 16];
    char ref[1700], enc[1700 + 64];
    for (size_t len = 0; len <= 1000; len++) {
        for (size_t k = 0; k < len; k++) src[k] = (unsigned char)rnd();
        size_t used = cb64_encode(src, len, (uint8_t *)enc);
        CHECK(used % 12 == 0 && used <= len, "encode %zu: consumed %zu", len, used);
        CHECK(len < 64 || used > 0, "encode %zu: consumed nothing", len);
        size_t rn = ref_encode(src, used, ref);
        CHECK(memcmp(enc, ref, rn) == 0, "encode %zu: characters differ", len);
        // Decode the reference text of the whole groups.
        size_t tn = ref_encode(src, len / 3 * 3, ref);
        size_t got = cb64_decode((const uint8_t *)ref, tn, dec);
        CHECK(got % 16 == 0 && got <= tn, "decode %zu: consumed %zu", tn, got);
        CHECK(tn < 80 || got > 0, "decode %zu: consumed nothing", tn);
        CHECK(memcmp(dec, src, got / 4 * 3) == 0, "decode %zu: bytes differ", tn);
    }
    // Every byte value at every position of 192 valid characters: the kernel must decode exactly
    // the groups before the one holding an invalid byte, and everything when the byte is valid.
    unsigned char bytes[144];
    for (int k = 0; k < 144; k++) bytes[k] = (unsigned char)rnd();
    char base[192];
    ref_encode(bytes, 144, base);
    size_t whole = cb64_decode((const uint8_t *)base, 192, dec);
    CHECK(whole == 192, "192 valid characters: consumed %zu", whole);
    // The kernel's group: 16 characters (SSSE3) or 64 (NEON).
    const size_t group = cb64_decode((const uint8_t *)base, 16, dec) == 16 ? 16 : 64;
    for (int pos = 0; pos < 192; pos++) {
        for (int v = 0; v < 256; v++) {
            char text[192];
            memcpy(text, base, 192);
            text[pos] = (char)v;
            int valid = v != 0 && strchr(alphabet, v) != NULL;
            size_t got = cb64_decode((const uint8_t *)text, 192, dec);
            if (valid) {
                CHECK(got == whole, "byte %d at %d (valid): consumed %zu, expected %zu", v, pos, got, whole);
            } else {
                size_t expected = (size_t)pos / group * group;  // the whole groups before it
                CHECK(got == expected, "byte %d at %d (invalid): consumed %zu, expected %zu", v, pos, got, expected);
            }
        }
    }
    printf("base64 kernels (%zu-character groups): checked\n", group);
}

static double ref_dot(const float *a, const float *b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

typedef struct {
    const char *name;
    size_t sizes[4];  // multiples of the lane count
    float (*dot1)(const float *, const float *, size_t);
    void (*decimate)(const float *, const float *, size_t, size_t, size_t, float *, size_t);
    void (*decimate_aligned)(const float *, const float *, size_t, size_t, size_t, float *, size_t);
    long (*polyphase)(const float *, size_t, size_t, size_t, size_t, const float *, long, size_t, long, size_t, float *,
                      size_t, long *, size_t *);
    void (*phase_pairs)(const float *, size_t, size_t, size_t, size_t, const float *, long, size_t, size_t, float *,
                        size_t);
    void (*phase_major)(const float *, size_t, size_t, size_t, size_t, const float *, long, size_t, size_t, size_t,
                        float *, size_t);
} fir_kernels;

static void test_fir_kernels(const fir_kernels *k8) {
    enum { MAXN = 256, SIG = 4096 };
    static float coefs[8 * MAXN], x[SIG], out[2048], one[2048];
    for (int k = 0; k < 8 * MAXN; k++) coefs[k] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
    for (int k = 0; k < SIG; k++) x[k] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
    for (int si = 0; si < 4; si++) {
        size_t n = k8->sizes[si];
        // dot1 against a double-precision reference.
        for (size_t w = 0; w < 50; w++) {
            float d = k8->dot1(coefs, x + w, n);
            double r = ref_dot(coefs, x + w, n);
            CHECK(fabs(d - r) < 1e-4 * (1 + fabs(r)), "%s dot1 n=%zu w=%zu: %g vs %g", k8->name, n, w, d, r);
        }
        // Decimation: every output equals dot1 of its window, bit for bit.
        for (size_t count = 0; count < 23; count++) {
            k8->decimate(coefs, x, 3, n, count, out, 2);
            for (size_t k = 0; k < count; k++) {
                float e = k8->dot1(coefs, x + 3 * k, n);
                CHECK(memcmp(&out[2 * k], &e, sizeof e) == 0, "%s decimate n=%zu count=%zu k=%zu", k8->name, n, count, k);
            }
        }
        // Aligned decimation: the same bits as dot1, from every window alignment (the signal at
        // x + off), strides 1…5 and 16, counts either side of 8 per alignment class.
        static float padded[MAXN + 32] __attribute__((aligned(64)));
        static float xa[SIG] __attribute__((aligned(64)));
        memset(padded, 0, sizeof padded);
        memcpy(padded + 16, coefs, n * sizeof(float));
        memcpy(xa, x, sizeof xa);
        const size_t strides[] = {1, 2, 3, 5, 16}, counts[] = {0, 7, 64, 127, 128, 131, 300};
        for (size_t off = 0; off < 16; off += 3) {
            for (size_t si2 = 0; si2 < 5; si2++) {
                for (size_t ci = 0; ci < 7; ci++) {
                    const size_t st = strides[si2], count = counts[ci];
                    if (off + st * count + n + 16 > SIG) continue;
                    k8->decimate_aligned(padded + 16, xa + off, st, n, count, out, 1);
                    for (size_t k = 0; k < count; k++) {
                        float e = k8->dot1(coefs, xa + off + st * k, n);
                        CHECK(memcmp(&out[k], &e, sizeof e) == 0,
                              "%s decimate_aligned n=%zu off=%zu stride=%zu count=%zu k=%zu", k8->name, n, off, st,
                              count, k);
                    }
                }
            }
        }
        // A NaN or infinity next to a window must not reach its output (aligned decimation reads
        // whole aligned vectors around the windows): one NaN and one infinity in the signal, every
        // output NaN exactly when its window holds one, and otherwise dot1's bits.
        {
            static float xn[SIG] __attribute__((aligned(64)));
            memcpy(xn, x, sizeof xn);
            xn[102] = NAN;  // inside stride 1's windows, in every lane position over them
            xn[642] = NAN;  // lane 2 of an aligned vector: below the windows' start (stride 16: lane 5)
            xn[985] = INFINITY;  // lane 9: past the end of some stride-16 windows
            for (size_t st = 1; st <= 16; st += 15) {
                const size_t fit = (SIG - n - 40) / st, count = fit < 300 ? fit : 300;
                k8->decimate_aligned(padded + 16, xn + 5, st, n, count, out, 1);
                for (size_t k = 0; k < count; k++) {
                    float e = k8->dot1(coefs, xn + 5 + st * k, n);
                    CHECK(isnan(out[k]) == isnan(e) && (isnan(e) || memcmp(&out[k], &e, sizeof e) == 0),
                          "%s decimate_aligned with NaN/inf n=%zu stride=%zu k=%zu: %g vs %g", k8->name, n, st, k,
                          out[k], e);
                }
            }
        }
        // Any ratio: up 3, down 2 (step 0, phase step 2), from phase 1.
        long wa;
        size_t pa;
        long got = k8->polyphase(coefs, n, 3, 0, 2, x, 5, 1, 40, 37, out, 1, &wa, &pa);
        long w = 5;
        size_t p = 1, j = 0;
        for (; j < 37 && w < 40; j++) {
            one[j] = k8->dot1(coefs + p * n, x + w, n);
            p += 2;
            if (p >= 3) {
                p -= 3;
                w += 1;
            }
        }
        CHECK(got == (long)j && wa == w && pa == p, "%s polyphase n=%zu: %ld outputs (expected %zu)", k8->name, n, got, j);
        CHECK(memcmp(out, one, j * sizeof(float)) == 0, "%s polyphase n=%zu: outputs differ", k8->name, n);
        // Whole cycles phase by phase: up 7, down 12 (step 1, phase step 5), from phase 4, 1…9
        // cycles; output (j, k) at out[(j + 7k)·2] equals dot1 of its phase and window.
        for (size_t cycles = 1; cycles < 10; cycles++) {
            k8->phase_major(coefs, n, 7, 1, 5, x, 2, 4, 12, cycles, out, 2);
            w = 2;
            p = 4;
            for (size_t jj = 0; jj < 7; jj++) {
                for (size_t k = 0; k < cycles; k++) {
                    float e = k8->dot1(coefs + p * n, x + w + 12 * k, n);
                    CHECK(memcmp(&out[(jj + 7 * k) * 2], &e, sizeof e) == 0, "%s phase_major n=%zu cycles=%zu j=%zu k=%zu",
                          k8->name, n, cycles, jj, k);
                }
                w += 1;
                p += 5;
                if (p >= 7) {
                    p -= 7;
                    w += 1;
                }
            }
        }
        // Two cycles phase by phase: up 7 (four phases, then three), down 5 (step 0, phase step 5),
        // from phase 2; output (j, k) at out[(j + 7k)·2] equals dot1 of its phase and window.
        k8->phase_pairs(coefs, n, 7, 0, 5, x, 3, 2, 5, out, 2);
        w = 3;
        p = 2;
        for (size_t jj = 0; jj < 7; jj++) {
            for (size_t k = 0; k < 2; k++) {
                float e = k8->dot1(coefs + p * n, x + w + 5 * k, n);
                CHECK(memcmp(&out[(jj + 7 * k) * 2], &e, sizeof e) == 0, "%s phase_pairs n=%zu j=%zu k=%zu", k8->name, n,
                      jj, k);
            }
            p += 5;
            if (p >= 7) {
                p -= 7;
                w += 1;
            }
        }
    }
}

static void test_fir(void) {
    if (!cvk_fir_available()) {
        printf("FIR kernels: not available on this CPU, skipped\n");
        return;
    }
    const fir_kernels lanes8 = {"8-lane",       {8, 24, 88, 256}, cvk_dot1,        cvk_decimate,
                                cvk_decimate_aligned, cvk_polyphase,    cvk_phase_pairs, cvk_phase_major};
    test_fir_kernels(&lanes8);
    if (cvk_fir_level() >= 2) {
        const fir_kernels lanes16 = {"16-lane",         {16, 32, 96, 256},        cvk_dot1_w16,
                                     cvk_decimate_w16,  cvk_decimate_aligned_w16, cvk_polyphase_w16,
                                     cvk_phase_pairs_w16, cvk_phase_major_w16};
        test_fir_kernels(&lanes16);
        printf("FIR kernels: 8 and 16 lanes checked\n");
    } else {
        printf("FIR kernels: checked (no 16-lane kernels on this CPU)\n");
    }
}

// TPDF dither (TPDFNoise's definition, written out again here from its doc comment): samples 2j, 2j + 1
// take the low, high 16 bits of mix(key + j·W + j(j − 1)/2·V), each half's two bytes summed (0…510) and
// mapped to (sum − 255) / 256 LSB. T(j) through 128-bit arithmetic, unlike the kernels' lane algebra.
static float ref_tpdf_noise(uint32_t key, uint64_t k) {
    uint64_t j = k >> 1;
    uint32_t t = (uint32_t)(((unsigned __int128)j * (j - 1)) >> 1);
    uint32_t c = key + (uint32_t)j * 0x9E3779B9u + t * 0x6A09E667u;
    uint32_t h = (c ^ (c >> 16)) * 0x2C1B3C6Du;
    h ^= h >> 15;
    uint32_t half = (k & 1) ? h >> 16 : h & 0xFFFF;
    return ((float)(half & 0xFF) + (float)(half >> 8) - 255.0f) / 256.0f;
}

static void test_tpdf(void) {
    if (!cvk_pcm_available()) {
        printf("PCM kernels: not available on this CPU, skipped\n");
        return;
    }
    enum { N = 1000 };
    static const float special[] = {0, -0.0f, 1, -1, 1.0000001f, -1.0000001f, 2, -2, 1e30f, -1e30f,
                                    INFINITY, -INFINITY, 0.5f / 32768, -0.5f / 32768, 32767.5f / 32768};
    float src[N];
    int16_t dst[N + 1];
    for (int k = 0; k < N; k++) src[k] = k < 15 ? special[k] : ((float)(rnd() % 20001) - 10000) / 10000 * 0.99f;
    const uint64_t pairs[] = {0, 1, 7, 480, 0xFFFFFFF0u, 0x1FFFFFFF7ull, 0x10000000003ull};
    const int top = cvk_pcm_level();
    for (int level = top; level >= 1; level--) {
        cvk_pcm_set_level(level);
        for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++) {
            for (size_t n = 0; n <= 100; n += 1 + n / 4) {
                uint32_t key = rnd() * 2654435761u;
                int odd = -1;
                dst[n] = 7;
                size_t done = cvk_f32_to_i16_tpdf(src, dst, n, key, pairs[p], &odd);
                CHECK(done % 16 == 0 && done <= n && n - done < 16, "tpdf level %d n=%zu: did %zu", level, n, done);
                CHECK(dst[n] == 7, "tpdf level %d n=%zu: wrote past the end", level, n);
                int want_odd = 0;
                for (size_t k = 0; k < done; k++) {
                    float d = ref_tpdf_noise(key, 2 * pairs[p] + k);
                    float s = src[k] * 32768.0f + d;
                    s = s > -32768.0f ? s : -32768.0f;
                    s = s < 32767.0f ? s : 32767.0f;
                    want_odd |= !(fabsf(src[k]) <= 1);
                    CHECK(dst[k] == (int16_t)nearbyintf(s), "tpdf level %d pair %llu k=%zu: %d, expected %d", level,
                          (unsigned long long)pairs[p], k, dst[k], (int)nearbyintf(s));
                }
                CHECK(done == 0 || odd == want_odd, "tpdf level %d n=%zu: odd %d, expected %d", level, n, odd, want_odd);
            }
        }
    }
    cvk_pcm_set_level(2);
    printf("TPDF dither kernels (%s and narrower): checked\n", cvk_pcm_instruction_set());
}

/// The names `audiopipe --version` prints: set exactly when the kernels run, "NEON" on AArch64.
static void test_names(void) {
    const char *b = cb64_instruction_set(), *f = cvk_fir_instruction_set();
    CHECK((b != NULL) == (cb64_available() != 0), "cb64_instruction_set: %s", b ? b : "NULL");
    CHECK((f != NULL) == (cvk_fir_available() != 0), "cvk_fir_instruction_set: %s", f ? f : "NULL");
#if defined(__aarch64__)
    CHECK(b && strcmp(b, "NEON") == 0 && f && strcmp(f, "NEON") == 0, "AArch64 names: %s, %s", b ? b : "NULL", f ? f : "NULL");
#elif defined(__x86_64__)
    CHECK(!b || strcmp(b, "SSSE3") == 0, "x86-64 base64 name: %s", b ? b : "NULL");
    CHECK(!f || strcmp(f, cvk_fir_level() >= 2 ? "AVX-512" : "AVX2+FMA") == 0, "x86-64 FIR name: %s", f ? f : "NULL");
#endif
    printf("instruction sets: base64 %s, FIR %s\n", b ? b : "none", f ? f : "none");
}

// The half-band kernels (halfband.c) against the definition in double precision, and against each
// other bit for bit at every width this CPU runs (the cascade's chunk invariance rests on that):
// every tap count the cascade uses (2 … 24, the fixed AVX-512 ones) and beyond, counts around the
// vector and block sizes, both output strides.
static void test_halfband(void) {
    srand(34);
    const int level = cvk_fir_level();
    for (size_t half = 1; half <= 30; half++) {
        for (size_t count = 1; count <= 1100; count += count < 70 ? 1 : 97) {
            for (size_t stride = 1; stride <= 2; stride++) {
                float g[32];
                for (size_t k = 0; k < half; k++) g[k] = ((float)rand() / (float)RAND_MAX - 0.5f) / (float)(k + 1);
                const size_t nx = 2 * count + 4 * half + 8;
                float *xb = malloc(nx * sizeof *xb);
                for (size_t i = 0; i < nx; i++) xb[i] = (float)rand() / (float)RAND_MAX - 0.5f;
                const float *x = xb + 2 * half + 2;
                float *o0 = calloc(count * stride, sizeof *o0), *o1 = calloc(count * stride, sizeof *o1);
                float *o2 = calloc(count * stride, sizeof *o2);
                cvk_halfband(g, half, 0.5f, x, count, o0, stride);
                if (level >= 1) cvk_halfband_w8(g, half, 0.5f, x, count, o1, stride);
                else memcpy(o1, o0, count * stride * sizeof *o0);
                if (level >= 2) cvk_halfband_w16(g, half, 0.5f, x, count, o2, stride);
                else memcpy(o2, o0, count * stride * sizeof *o0);
                for (size_t i = 0; i < count; i++) {
                    double want = 0.5 * x[2 * i];
                    for (size_t k = 0; k < half; k++)
                        want += g[k] * ((double)x[2 * (long)i - 2 * (long)k - 1] + x[2 * i + 2 * k + 1]);
                    CHECK(fabs(want - o0[i * stride]) < 1e-5, "halfband half %zu count %zu i %zu: %g vs %g", half, count, i,
                          (double)o0[i * stride], want);
                }
                CHECK(memcmp(o0, o1, count * stride * sizeof *o0) == 0, "halfband_w8 differs: half %zu count %zu", half, count);
                CHECK(memcmp(o0, o2, count * stride * sizeof *o0) == 0, "halfband_w16 differs: half %zu count %zu", half, count);
                free(xb);
                free(o0);
                free(o1);
                free(o2);
            }
        }
    }
}


// The 2× upsampling kernels (upsample2.c): phases cut from a symmetric odd-length filter as the
// resampler cuts them; every output against the plain dot product of its phase and window in double
// precision, and the three kernels against each other bit for bit, from either phase, for any count
// (every block size and tail) and output stride.
static void test_up2(void) {
    srand(35);
    const int level = cvk_fir_level();
    static const size_t sizes[] = {8, 16, 24, 96, 128};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const size_t n = sizes[si];
        for (size_t centre = 2; centre < n; centre += centre < 20 ? 1 : 9) {
            float h[2 * 128 + 1], c0[128] = {0}, c1[128] = {0};
            for (size_t i = 0; i <= centre; i++) {
                h[i] = ((float)rand() / (float)RAND_MAX - 0.5f) / (float)(centre - i + 1);
                h[2 * centre - i] = h[i];
            }
            for (size_t t = 0; t < n; t++) {
                const size_t j = 2 * (n - 1 - t);  // as PolyphaseResampler lays the phases out
                if (j <= 2 * centre) c0[t] = h[j];
                if (j + 1 <= 2 * centre) c1[t] = h[j + 1];
            }
            for (size_t count = 0; count <= 300; count += count < 70 ? 1 : 23) {
                for (size_t first = 0; first <= 1; first++) {
                    for (size_t stride = 1; stride <= 2; stride++) {
                        const size_t nb = (first + count) / 2 + n + 1;
                        float *b = malloc(nb * sizeof *b);
                        for (size_t i = 0; i < nb; i++) b[i] = (float)rand() / (float)RAND_MAX - 0.5f;
                        const size_t no = count * stride + 1;
                        float *o0 = calloc(no, sizeof *o0), *o1 = calloc(no, sizeof *o1), *o2 = calloc(no, sizeof *o2);
                        cvk_up2(c0, c1, b, n, centre, first, count, o0, stride);
                        if (level >= 1) cvk_up2_w8(c0, c1, b, n, centre, first, count, o1, stride);
                        else memcpy(o1, o0, no * sizeof *o0);
                        if (level >= 2) cvk_up2_w16(c0, c1, b, n, centre, first, count, o2, stride);
                        else memcpy(o2, o0, no * sizeof *o0);
                        for (size_t j = 0; j < count; j++) {
                            const size_t w = (first + j) / 2;
                            const double want = ref_dot((first + j) % 2 ? c1 : c0, b + w, n);
                            CHECK(fabs(want - o0[j * stride]) < 1e-5, "up2 n %zu centre %zu first %zu count %zu j %zu: %g vs %g",
                                  n, centre, first, count, j, (double)o0[j * stride], want);
                        }
                        CHECK(o0[count * stride] == 0 && o1[count * stride] == 0 && o2[count * stride] == 0,
                              "up2 n %zu centre %zu count %zu: wrote past its outputs", n, centre, count);
                        CHECK(memcmp(o0, o1, no * sizeof *o0) == 0, "up2_w8 differs: n %zu centre %zu first %zu count %zu",
                              n, centre, first, count);
                        CHECK(memcmp(o0, o2, no * sizeof *o0) == 0, "up2_w16 differs: n %zu centre %zu first %zu count %zu",
                              n, centre, first, count);
                        free(b);
                        free(o0);
                        free(o1);
                        free(o2);
                    }
                }
            }
        }
    }
    printf("2x upsampling kernels: checked\n");
}


typedef void (*steep_kernel)(const float *, const float *, float *, const float *, const float *, size_t, size_t,
                             size_t, float *, float *);

// The steep band kernel of a level (cvk_steep_level's numbering; 0 the portable one).
static steep_kernel steep_kernel_at(int level) {
#if defined(__x86_64__)
    if (level == 1) return cvk_steep_bands_avx2;
    if (level == 2) return cvk_steep_bands_avx512;
    if (level == 3) return cvk_steep_bands_avx512_wide;
#endif
    (void)level;
    return cvk_steep_bands;
}

// The VAD's steep bands: the portable kernel against the same recursion in double (a stable
// low-pass/high-pass cascade, so the float rounding stays small), lanes 0-7 fed x0 and 8-15 x1 (or
// zeros) through the same eight bands' sections, the quarters' sums of x0's bands 2-7; every x86
// kernel the CPU runs (AVX2, AVX-512VL, 512-bit) against the portable one bit for bit.
static void test_steep_bands(void) {
    enum { N = 331, B = 8, L = 16, QF = 2, R = 3 };
    float coefs[4 * R * B], scale[B], x0[N], x1[N];
    for (int l = 0; l < B; l++) scale[l] = 0.5f + 0.125f * l;
    for (int s = 0; s < 4; s++)
        for (int l = 0; l < B; l++) {
            // Normalised sections (numerator 1, ∓2, 1: high-pass-like in sections 0-1, low-pass-like
            // in 2-3, as the kernel's contract; band 7's last section a pass-through: the same
            // numerator over its double pole), poles inside the unit circle.
            double r = 0.5 + 0.05 * (l % 4) + 0.05 * s, th = 0.3 + 0.2 * l;
            const int pass = l == 7 && s == 3;
            const float twice = s < 2 ? -2.0f : 2.0f;
            coefs[(s * R + 0) * B + l] = twice;
            coefs[(s * R + 1) * B + l] = pass ? -twice : (float)(2 * r * cos(th));
            coefs[(s * R + 2) * B + l] = pass ? -1.0f : (float)(-r * r);
        }
    for (int k = 0; k < N; k++) {
        x0[k] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
        x1[k] = (float)((int)(rnd() % 2001) - 1000) / 3000.0f;
    }
    for (int with_x1 = 0; with_x1 < 2; with_x1++) {
        float state[4 * 2 * L] = {0}, energy[L], quarters[4];
        const size_t ql = (N + 3) / 4;
        cvk_steep_bands(coefs, scale, state, x0, with_x1 ? x1 : NULL, N, ql, QF, energy, quarters);
        double ds1[4][L] = {{0}}, ds2[4][L] = {{0}}, de[L] = {0}, dq[4] = {0};
        for (int k = 0; k < N; k++) {
            for (int l = 0; l < L; l++) {
                double y = l < B ? x0[k] : (with_x1 ? x1[k] : 0.0);
                for (int s = 0; s < 4; s++) {
                    const float *c = coefs + s * R * B;
                    const int band = l % B;
                    double x = y;
                    y = x + ds1[s][l];
                    ds1[s][l] = c[band] * x + c[B + band] * y + ds2[s][l];
                    ds2[s][l] = x + c[2 * B + band] * y;
                }
                de[l] += scale[l % B] * y * y;
                if (l >= QF && l < B) dq[k / ql < 3 ? k / ql : 3] += scale[l] * y * y;
            }
        }
        for (int l = 0; l < L; l++)
            CHECK(fabs(energy[l] - de[l]) < 1e-4 * (1 + de[l]), "steep x1=%d lane %d: %g vs %g", with_x1, l, energy[l], de[l]);
        for (int q = 0; q < 4; q++)
            CHECK(fabs(quarters[q] - dq[q]) < 1e-4 * (1 + dq[q]), "steep x1=%d quarter %d: %g vs %g", with_x1, q, quarters[q], dq[q]);
        if (!with_x1)
            for (int l = B; l < L; l++) CHECK(energy[l] == 0, "steep lane %d without x1: %g", l, energy[l]);
        else
            for (int l = 0; l < B; l++)
                CHECK(energy[l] != energy[l + B], "steep band %d: x0 and x1 give the same energy", l);
#if defined(__x86_64__)
        for (int level = 1; level <= cvk_steep_level(); level++) {
            float vstate[4 * 2 * L] = {0}, venergy[L], vquarters[4];
            // Two calls (a frame cut in two) against the portable kernel's two calls: state carried.
            float pstate[4 * 2 * L] = {0}, penergy[L], pquarters[4];
            cvk_steep_bands(coefs, scale, pstate, x0, with_x1 ? x1 : NULL, 160, 40, QF, penergy, pquarters);
            cvk_steep_bands(coefs, scale, pstate, x0 + 160, with_x1 ? x1 + 160 : NULL, N - 160, 43, QF, penergy, pquarters);
            const steep_kernel kernel = steep_kernel_at(level);
            kernel(coefs, scale, vstate, x0, with_x1 ? x1 : NULL, 160, 40, QF, venergy, vquarters);
            kernel(coefs, scale, vstate, x0 + 160, with_x1 ? x1 + 160 : NULL, N - 160, 43, QF, venergy, vquarters);
            CHECK(memcmp(penergy, venergy, sizeof venergy) == 0 && memcmp(pquarters, vquarters, sizeof vquarters) == 0 &&
                      memcmp(pstate, vstate, sizeof vstate) == 0,
                  "steep level %d x1=%d: differs from the portable kernel", level, with_x1);
        }
#endif
    }
    printf("VAD steep band kernels: checked (levels 0-%d, preferred %d)\n", cvk_steep_level(),
           cvk_steep_preferred_level());
}

// The caller's floating-point mode (x86: MXCSR's control bits, not its sticky exception flags;
// AArch64: FPCR), to check a kernel restores it.
static unsigned long long fp_mode(void) {
#if defined(__x86_64__)
    return _mm_getcsr() & ~0x3fu;
#elif defined(__aarch64__)
    unsigned long long fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    return fpcr;
#else
    return 0;
#endif
}

// Turns flushing off (the default mode of a C program), so that a kernel that left it on shows.
static void fp_mode_keep_subnormals(void) {
#if defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() & ~0x8040u);
#elif defined(__aarch64__)
    unsigned long long fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr & ~(1ull << 24)));
#endif
}

// A signal that stops: the sections' state decays towards zero and, with poles near the unit
// circle, would pass through (and can hang in) the subnormal range, where x86 cores take a
// microcode assist per operation. Every kernel flushes subnormals to zero: after each call of a
// second of silence in 32-sample frames, every state value is zero or a normal number, every
// kernel's state has the same bits, and the caller's floating-point mode is as it was.
static void test_steep_silence(void) {
    enum { B = 8, L = 16, R = 3, FRAME = 32, CALLS = 500 };
    float coefs[4 * R * B], scale[B];
    for (int l = 0; l < B; l++) scale[l] = 1.0f;
    for (int s = 0; s < 4; s++)
        for (int l = 0; l < B; l++) {
            double r = 0.97 + 0.003 * l, th = 0.01 + 0.02 * l;
            coefs[(s * R + 0) * B + l] = s < 2 ? -2.0f : 2.0f;
            coefs[(s * R + 1) * B + l] = (float)(2 * r * cos(th));
            coefs[(s * R + 2) * B + l] = (float)(-r * r);
        }
    float burst0[FRAME], burst1[FRAME], zeros[FRAME] = {0};
    for (int k = 0; k < FRAME; k++) {
        burst0[k] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
        burst1[k] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
    }
    const int levels =
#if defined(__x86_64__)
        cvk_steep_level();
#else
        0;
#endif
    float first[4 * 2 * L];
    for (int level = 0; level <= levels; level++) {
        const steep_kernel kernel = steep_kernel_at(level);
        float state[4 * 2 * L] = {0}, energy[L], quarters[4];
        fp_mode_keep_subnormals();
        const unsigned long long before = fp_mode();
        kernel(coefs, scale, state, burst0, burst1, FRAME, FRAME / 4, 2, energy, quarters);
        int subnormal = 0, nonzero = 0;
        for (int c = 0; c < CALLS; c++) {
            kernel(coefs, scale, state, zeros, zeros, FRAME, FRAME / 4, 2, energy, quarters);
            for (int i = 0; i < 4 * 2 * L; i++) {
                if (state[i] != 0 && fabsf(state[i]) < FLT_MIN) subnormal++;
                if (c == 0 && state[i] != 0) nonzero++;
            }
        }
        CHECK(nonzero > 0, "steep silence level %d: the burst left no state to decay", level);
        CHECK(subnormal == 0, "steep silence level %d: %d subnormal state values after calls", level, subnormal);
        CHECK(fp_mode() == before, "steep silence level %d: the caller's floating-point mode changed", level);
        if (level == 0)
            memcpy(first, state, sizeof first);
        else
            CHECK(memcmp(first, state, sizeof first) == 0, "steep silence level %d: differs from the portable kernel",
                  level);
    }
    printf("VAD steep band kernels: silence flushed, no subnormals (levels 0-%d)\n", levels);
}

int main(void) {
    test_names();
    test_steep_bands();
    test_steep_silence();
    test_halfband();
    test_up2();
    test_base64();
    test_fir();
    test_tpdf();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("all kernel checks passed\n");
    return 0;
}
