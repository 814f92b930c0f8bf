// The VAD's steep band analysis (VADSteepBank in the core): per lane four biquad sections in
// cascade (transposed direct form II), the microphone's eight bands in lanes 0–7 and the far-end
// reference's in lanes 8–15, one sample at a time. Swift, on the SSE2 baseline, ran four bands of
// each at 3.7 µs per 10 ms frame pair at 16 kHz (the VAD's budget is 2 µs for the whole frame); in
// AVX2 with FMA a signal's eight bands fill one register, and the two signals' registers are two
// independent chains the CPU runs side by side (a section's output feeds the next: one chain
// alone waits on its fused multiply-adds' latency). On Intel cores with AVX-512, and AMD's from Zen 5
// on, both signals share one 512-bit register instead (`cvk_steep_bands_avx512_wide`, below: fewer
// operations); AMD's Zen 4 keeps the two 256-bit chains (`cvk_steep_preferred_level`).
//
// Every section is normalised by its b0 (the band's gain, the product of its sections' b0, is
// applied to each quarter's energies as `scale`, its square): a Butterworth section's numerator is
// then (1, ±2, 1). Per section, with c = (b1/b0, −a1, −a2) and state (s1, s2):
//   y = x + s1;  s1 = fma(−a1, y, fma(b1/b0, x, s2));  s2 = fma(−a2, y, x)
// A section that filters nothing (a band's missing high- or low-pass) is the same numerator over
// the same double pole, (1 ∓ z⁻¹)² / (1 ∓ z⁻¹)² = 1: −a1 = −b1/b0, −a2 = −1. From zero state it
// gives y = x and keeps s1 = s2 = 0 exactly (2x − 2x and x − x are exact), so every lane runs the
// same operations with no mask (an earlier version took x through a bit mask, clear in such a
// section: eight more operations a sample on the same ports). Sixteen lanes are bound by the
// floating-point ports, the multiply-adds on two of them, the adds on the other two; b1/b0 is −2
// in sections 0 and 1 and +2 in sections 2 and 3 (high-passes first, then low-passes, the caller's
// layout), so fma(b1/b0, x, s2) is s2 ∓ (x + x), the same bits (2x is exact; one rounding either
// way), and the x86 version moves it to the adders in the microphone's chain: 22 multiply-adds and
// 16 adds a sample. (Also on the adders in the reference's first two sections, 20 and 20: slower,
// 160 samples 457 → 495 ns with AVX-512VL, 843 → 980 ns with AVX2; with the mask, 528 and 860 ns.)
// y enters each new state in the last operation: from one sample's y to the next's, two dependent
// operations.
//
// Every lane is the same chain of operations in every version (fused multiply-adds: fmaf in the
// portable one; the 512-bit kernel keeps the microphone's fma(∓2, x, s2), the same bits as its
// s2 ∓ (x + x)), so the AVX2, AVX-512 and portable code give the same bits, and a lane does not
// depend on what the other lanes hold (the microphone alone gives the same bands as beside a reference).
// The energies are summed per quarter of the frame (fma(y, y, e)); a quarter's power is the sum of
// the microphone's lanes quarter_from…7 in lane order, and a lane's total ((q0 + q1) + q2) + q3.
//
// Subnormal numbers are flushed to zero inside every kernel (`cvk_fp_flush_subnormals`, fpmode.c:
// x86 MXCSR's flush-to-zero and denormals-are-zero, AArch64 FPCR's FZ), and the caller's mode
// restored on return. When a signal stops — the agent's audio between utterances is digital
// silence — each section's state decays towards zero through the subnormal range, where a
// recursion with poles near the unit circle can hang on the smallest subnormals for good, and
// every operation on a subnormal takes a microcode assist on Intel cores. Measured 2026-11-28 on an
// Intel Xeon: the suite's 10 ms VAD frame with a reference that pauses (1.2 s of speech, 0.8 s of
// silence) 32 µs per frame on average, 2.2–3.0 µs flushed; `vad detect` over 18 minutes of
// generated barge-in items with their references 2.7 → 0.35–0.46 s, the same segments. A flushed
// value is under 1.2e-38, over 700 dB below a full-scale sample: no band power a decision reads
// changes. Each kernel flushes the same way, so they keep giving the same bits.
#include "cvectorkernels.h"
#include <math.h>

enum { SB_SECTIONS = 4, SB_BANDS = 8, SB_LANES = 16, SB_ROWS = 3 };

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

// The portable kernel: the sixteen lanes innermost, in arrays a compiler can vectorize (NEON on
// ARM, where the x86 kernels do not exist: four registers a row, fmaf as its fused multiply-add),
// each lane's operations in the same order as the x86 kernels'. (With the samples innermost, lane
// by lane, every section waited on the one before it: a chain of dependent operations per sample
// that no SIMD unit shortens.)
void cvk_steep_bands(const float *coefs, const float *scale, float *state, const float *x0, const float *x1, size_t n,
                     size_t quarter_length, size_t quarter_from, float *energy, float *quarters) {
    const uint64_t mode = cvk_fp_flush_subnormals();
    // Per section, each coefficient row widened to sixteen lanes (lane l takes band l mod 8), and the state.
    float cb[SB_SECTIONS][SB_LANES], ca1[SB_SECTIONS][SB_LANES], ca2[SB_SECTIONS][SB_LANES];
    float s1[SB_SECTIONS][SB_LANES], s2[SB_SECTIONS][SB_LANES];
    for (int s = 0; s < SB_SECTIONS; s++) {
        const float *c = coefs + s * SB_ROWS * SB_BANDS;
        for (int l = 0; l < SB_LANES; l++) {
            const int band = l % SB_BANDS;
            cb[s][l] = c[band];
            ca1[s][l] = c[SB_BANDS + band];
            ca2[s][l] = c[2 * SB_BANDS + band];
            s1[s][l] = state[(2 * s) * SB_LANES + l];
            s2[s][l] = state[(2 * s + 1) * SB_LANES + l];
        }
    }
    float tot[SB_LANES];
    size_t start = 0;
    for (size_t q = 0; q < 4; q++) {
        size_t end = quarter_end(q, quarter_length, n);
        if (end < start) end = start;
        float e[SB_LANES] = {0};
        for (size_t k = start; k < end; k++) {
            float y[SB_LANES];
            const float b = x1 ? x1[k] : 0.0f;
            for (int l = 0; l < SB_LANES; l++) y[l] = l < SB_BANDS ? x0[k] : b;
            for (int s = 0; s < SB_SECTIONS; s++) {
                for (int l = 0; l < SB_LANES; l++) {
                    const float x = y[l];
                    const float out = x + s1[s][l];
                    s1[s][l] = fmaf(ca1[s][l], out, fmaf(cb[s][l], x, s2[s][l]));
                    s2[s][l] = fmaf(ca2[s][l], out, x);
                    y[l] = out;
                }
            }
            for (int l = 0; l < SB_LANES; l++) e[l] = fmaf(y[l], y[l], e[l]);
        }
        float eq[SB_LANES];
        for (int l = 0; l < SB_LANES; l++) eq[l] = e[l] * scale[l % SB_BANDS];
        quarters[q] = quarter_sum(eq, quarter_from);
        for (int l = 0; l < SB_LANES; l++) tot[l] = q == 0 ? eq[l] : tot[l] + eq[l];
        start = end;
    }
    for (int l = 0; l < SB_LANES; l++) energy[l] = tot[l];
    for (int s = 0; s < SB_SECTIONS; s++)
        for (int l = 0; l < SB_LANES; l++) {
            state[(2 * s) * SB_LANES + l] = s1[s][l];
            state[(2 * s + 1) * SB_LANES + l] = s2[s][l];
        }
    cvk_fp_restore_mode(mode);
}

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#include <immintrin.h>

// The x86 kernel, written once: inlined into an AVX2 + FMA entry and an AVX-512VL one. The same
// operations on 256-bit registers in both; with AVX-512VL the compiler has 32 of them instead of 16,
// and the sixteen lanes' state (16 registers), the coefficients (12) and the working values fit
// without spilling: the AVX2 build keeps part of the state in memory, and a state that goes through
// memory between one sample and the next puts the store-to-load latency on the recursion (160
// samples: 0.84 → 0.46 µs on an EPYC, clang -O2 as SwiftPM builds it).
__attribute__((target("avx2,fma"), always_inline)) static inline void steep_bands_x86(
    const float *coefs, const float *scale, float *state, const float *x0, const float *x1, size_t n,
    size_t quarter_length, size_t quarter_from, float *energy, float *quarters) {
    const uint64_t mode = cvk_fp_flush_subnormals();
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
                // The microphone's chain takes fma(∓2, x, s2) as s2 ∓ (x + x) on the adders (the same
                // bits: 2x is exact, one rounding either way); the reference's keeps the fused form.
                const __m256 twice = _mm256_add_ps(xa, xa);
                const __m256 ta = s < 2 ? _mm256_sub_ps(a2[s], twice) : _mm256_add_ps(a2[s], twice);
                const __m256 tb = _mm256_fmadd_ps(c[s][0], xb, b2[s]);
                a1[s] = _mm256_fmadd_ps(c[s][1], ya, ta);
                b1[s] = _mm256_fmadd_ps(c[s][1], yb, tb);
                a2[s] = _mm256_fmadd_ps(c[s][2], ya, xa);
                b2[s] = _mm256_fmadd_ps(c[s][2], yb, xb);
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
    cvk_fp_restore_mode(mode);
}
__attribute__((target("avx2,fma"))) void cvk_steep_bands_avx2(const float *coefs, const float *scale, float *state,
                                                                const float *x0, const float *x1, size_t n,
                                                                size_t quarter_length, size_t quarter_from,
                                                                float *energy, float *quarters) {
    steep_bands_x86(coefs, scale, state, x0, x1, n, quarter_length, quarter_from, energy, quarters);
}

__attribute__((target("avx2,fma,avx512f,avx512vl"))) void cvk_steep_bands_avx512(
    const float *coefs, const float *scale, float *state, const float *x0, const float *x1, size_t n,
    size_t quarter_length, size_t quarter_from, float *energy, float *quarters) {
    steep_bands_x86(coefs, scale, state, x0, x1, n, quarter_length, quarter_from, energy, quarters);
}

// A band's coefficient row (eight floats) in both halves of a 512-bit register.
__attribute__((target("avx2,fma,avx512f"))) static inline __m512 both_halves(const float *row) {
    const __m256d half = _mm256_castps_pd(_mm256_loadu_ps(row));
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(half), half, 1));
}

// The 512-bit kernel (level 3): both signals' sixteen lanes in one register, every section's
// operations once for both — 17 operations a sample (four adds, thirteen multiply-adds) against the
// 256-bit kernels' 38 (22 multiply-adds, 16 adds). With the sixteen lanes in one register the
// microphone's fma(∓2, x, s2) cannot move to the adders alone (the same bits either way); on Intel
// cores, where the multiply-adds and adds share two ports for 512-bit operations, that costs
// nothing. The recursion bounds it: from one sample's state to the next, an add and a multiply-add
// (8 cycles at 4 each; 160 samples ≥ 556 ns at 2.3 GHz). Measured 2026-11-28 on an Intel Xeon
// (2.3 GHz; AVX-512 FP16 in its flags: Sapphire Rapids or later), 160-sample frames of a talking reference
// and its echo, clang -O2, same bits: 860–1080 ns with the 256-bit AVX-512VL kernel, 690–777 ns
// with this one. Measured 2026-12-01 on an AMD EPYC of family 26 (Zen 5, whose server cores run
// 512-bit operations whole), the same frames in a C loop, best of 20 blocks, three runs: 491–505 ns
// with the 256-bit AVX-512VL kernel, 406–417 ns with this one. AMD's Zen 4 (family 25) runs a
// 512-bit operation as two 256-bit halves on pipes that keep multiply-adds and adds apart: there
// this kernel's 13 multiply-adds take 13 cycles of its two FMA pipes a sample where the 256-bit
// kernel needs 11 — measured 2026-12-05 on an AMD EPYC of family 25 with AVX-512, 160-sample frames
// in a C loop (clang -O2, three runs): 578–582 ns with the 256-bit AVX-512VL kernel, 661 ns with
// this one (1.14×, the arithmetic's 13/11 = 1.18) — so AMD CPUs before family 26 keep
// the 256-bit kernel (`cvk_steep_preferred_level`). Zen 5's laptop cores split 512-bit operations
// as Zen 4 does; they get this kernel too, unmeasured.
__attribute__((target("avx2,fma,avx512f"))) void cvk_steep_bands_avx512_wide(
    const float *coefs, const float *scale, float *state, const float *x0, const float *x1, size_t n,
    size_t quarter_length, size_t quarter_from, float *energy, float *quarters) {
    const uint64_t mode = cvk_fp_flush_subnormals();
    const __m512 gain = both_halves(scale);
    __m512 cb[SB_SECTIONS], ca1[SB_SECTIONS], ca2[SB_SECTIONS], s1[SB_SECTIONS], s2[SB_SECTIONS];
    for (int s = 0; s < SB_SECTIONS; s++) {
        cb[s] = both_halves(coefs + (s * SB_ROWS + 0) * SB_BANDS);
        ca1[s] = both_halves(coefs + (s * SB_ROWS + 1) * SB_BANDS);
        ca2[s] = both_halves(coefs + (s * SB_ROWS + 2) * SB_BANDS);
        s1[s] = _mm512_loadu_ps(state + (2 * s) * SB_LANES);
        s2[s] = _mm512_loadu_ps(state + (2 * s + 1) * SB_LANES);
    }
    static const float zero = 0.0f;
    const float *reference = x1 ? x1 : &zero;
    const size_t reference_step = x1 ? 1 : 0;
    __m512 tot = _mm512_setzero_ps();
    size_t start = 0;
    for (size_t q = 0; q < 4; q++) {
        size_t end = quarter_end(q, quarter_length, n);
        if (end < start) end = start;
        __m512 e = _mm512_setzero_ps();
        for (size_t k = start; k < end; k++) {
            __m512 y = _mm512_mask_broadcastss_ps(_mm512_set1_ps(x0[k]), 0xFF00,
                                                  _mm_load_ss(reference + k * reference_step));
            for (int s = 0; s < SB_SECTIONS; s++) {
                const __m512 x = y;
                y = _mm512_add_ps(x, s1[s]);
                s1[s] = _mm512_fmadd_ps(ca1[s], y, _mm512_fmadd_ps(cb[s], x, s2[s]));
                s2[s] = _mm512_fmadd_ps(ca2[s], y, x);
            }
            e = _mm512_fmadd_ps(y, y, e);
        }
        e = _mm512_mul_ps(e, gain);
        float eq[SB_LANES];
        _mm512_storeu_ps(eq, e);
        quarters[q] = quarter_sum(eq, quarter_from);
        tot = q == 0 ? e : _mm512_add_ps(tot, e);
        start = end;
    }
    _mm512_storeu_ps(energy, tot);
    for (int s = 0; s < SB_SECTIONS; s++) {
        _mm512_storeu_ps(state + (2 * s) * SB_LANES, s1[s]);
        _mm512_storeu_ps(state + (2 * s + 1) * SB_LANES, s2[s]);
    }
    cvk_fp_restore_mode(mode);
}

int cvk_steep_level(void) {
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return 0;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? 3 : 1;
}

// The CPU's family as CPUID leaf 1 gives it (base family, plus the extended family when the base is 15).
static unsigned cpu_family(void) {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned base = (eax >> 8) & 0xF;
    return base == 0xF ? base + ((eax >> 20) & 0xFF) : base;
}

int cvk_steep_preferred_level(void) {
    const int level = cvk_steep_level();
    return level == 3 && __builtin_cpu_is("amd") && cpu_family() < 0x1A ? 2 : level;
}
#else
int cvk_steep_level(void) { return 0; }
int cvk_steep_preferred_level(void) { return 0; }
#endif
