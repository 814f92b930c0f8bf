// Vector kernels for the core (AudioPipelineCore), for instruction sets a portable Swift build
// cannot use. x86-64: each is compiled with a function target attribute and used only after its
// `…_available()` check said the CPU has it; AArch64: NEON versions (always available). Elsewhere
// the `…_available()` checks answer 0 and the Swift code does the work.
#ifndef CVECTORKERNELS_H
#define CVECTORKERNELS_H
#include <stddef.h>
#include <stdint.h>

// --- Base64 (SSSE3 / NEON), standard alphabet, for Base64 --------------------------------------------
// Each call handles whole 12-byte / 16-character groups only and returns how much it did; the
// caller finishes the tail (and any error) with the Swift codec.

/// 1 when this CPU runs the base64 kernels (x86-64 with SSSE3, or AArch64), else 0. Call the two kernels
/// only after it returned 1 (they assume the instructions exist).
int cb64_available(void);
/// The instruction set the base64 kernels use on this CPU ("SSSE3", "NEON"), or NULL when they are not used.
const char *cb64_instruction_set(void);

/// Encodes whole 12-byte groups of `src` (leaving at least 4 bytes unread at the end) into `dst`;
/// returns the bytes consumed (a multiple of 12); `dst` receives consumed / 3 * 4 characters.
size_t cb64_encode(const uint8_t *src, size_t len, uint8_t *dst);

/// Decodes whole 16-character groups of `src` while every character is in the alphabet (no
/// padding, no whitespace) into `dst` (which must have room for 4 bytes beyond the decoded ones);
/// stops before the first group with any other character. Returns the characters consumed (a
/// multiple of 16); `dst` receives consumed / 4 * 3 bytes.
size_t cb64_decode(const uint8_t *src, size_t len, uint8_t *dst);

// --- FIR dot products (AVX2 + FMA / NEON) for PolyphaseResampler ----------------------------------
// `n` is a multiple of 8. Each output: one 8-lane fused multiply-add accumulator over the taps in
// order, lanes summed as ((0+1)+(2+3))+((4+5)+(6+7)) — identical in every kernel.

/// 1 when this CPU has AVX2 and FMA (x86-64) or is AArch64, else 0.
int cvk_fir_available(void);
/// The widest FIR kernels this CPU runs: 0 none, 1 the 8-lane ones (AVX2+FMA or NEON), 2 also the
/// 16-lane ones (`_w16`, AVX-512F).
int cvk_fir_level(void);
/// The instruction set the FIR kernels use on this CPU ("AVX2+FMA", "NEON"), or NULL when they are not used.
const char *cvk_fir_instruction_set(void);
/// Σ a[i]·b[i].
float cvk_dot1(const float *a, const float *b, size_t n);
/// Decimation: `count` outputs, output k = a·(b + k·stride), written to out[k·out_stride].
void cvk_decimate(const float *a, const float *b, size_t stride, size_t n, size_t count, float *out, size_t out_stride);
/// cvk_decimate's outputs, bit for bit (for finite input), read with aligned input loads: `a_pad`
/// must have 16 zero floats before a_pad[0] and after a_pad[n − 1], and b[…] is read from the
/// vector-aligned address at or before each window up to 16 floats past its end. Outputs whose
/// windows share an alignment go eight at a time (about 2× cvk_decimate on AVX-512 here).
void cvk_decimate_aligned(const float *a_pad, const float *b, size_t stride, size_t n, size_t count, float *out,
                          size_t out_stride);
/// Any ratio: output j is coefs[p_j·n …]·(b + w_j), where (w, p) start at (w0, p0) and advance by
/// (step, step_phase), p carrying into w at `up`. Computes outputs while j < room and w_j < wend
/// (eight at a time), writes them to out[j·out_stride], returns how many and the state after them.
long cvk_polyphase(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                   size_t p0, long wend, size_t room, float *out, size_t out_stride, long *w_after, size_t *p_after);
/// `cycles` whole cycles of a ratio with `up` phases, phase by phase: output j of cycle k (j < up,
/// k < cycles) is coefs[p_j·n …]·(b + w_j + k·down), written to out[(j + k·up)·out_stride], where
/// (w_j, p_j) start at (w0, p0) and advance as in cvk_polyphase; each phase as cvk_decimate.
void cvk_phase_major(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                     size_t p0, size_t down, size_t cycles, float *out, size_t out_stride);
/// Two whole cycles of a ratio with `up` phases, phase by phase: output j of cycle k (j < up,
/// k < 2) is coefs[p_j·n …]·(b + w_j + k·down), written to out[(j + k·up)·out_stride], where
/// (w_j, p_j) start at (w0, p0) and advance as in cvk_polyphase. Reads b[w0 … w_last + down + n).
void cvk_phase_pairs(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                     size_t p0, size_t down, float *out, size_t out_stride);
/// The same six with one 16-lane accumulator per output (AVX-512F; call only when
/// cvk_fir_level() is 2): `n` a multiple of 16; the lanes folded to 8 (i + i+8) and then summed in
/// the 8-lane order. Outputs differ from the 8-lane kernels' in the last bits, and agree among
/// themselves bit for bit.
float cvk_dot1_w16(const float *a, const float *b, size_t n);
void cvk_decimate_w16(const float *a, const float *b, size_t stride, size_t n, size_t count, float *out, size_t out_stride);
void cvk_decimate_aligned_w16(const float *a_pad, const float *b, size_t stride, size_t n, size_t count, float *out,
                              size_t out_stride);
long cvk_polyphase_w16(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                       size_t p0, long wend, size_t room, float *out, size_t out_stride, long *w_after, size_t *p_after);
void cvk_phase_pairs_w16(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b, long w0,
                         size_t p0, size_t down, float *out, size_t out_stride);
void cvk_phase_major_w16(const float *coefs, size_t n, size_t up, size_t step, size_t step_phase, const float *b,
                         long w0, size_t p0, size_t down, size_t cycles, float *out, size_t out_stride);

// --- 2× upsampling with the outputs in the lanes (upsample2.c) ---------------------------------------
// c0, c1: the two phases' n coefficients (phase 0 the even taps of a symmetric odd-length filter
// 2·centre + 1 long, phase 1 the odd ones, each ending at index n − 1; centre ≥ 2 and ≤ n − 1). Output j
// (j < count) is window (first + j) / 2 (at b + that), phase (first + j) % 2 (first 0 or 1), written to
// out[j·out_stride]. The sums pair the symmetric taps (see upsample2.c for the order); every kernel
// and lane computes an output the same way, so the three agree bit for bit. Reads b[0 … last window + n)
// (cvk_up2_w16: the 64-byte blocks that hold them, whole).

/// Portable C (any CPU).
void cvk_up2(const float *c0, const float *c1, const float *b, size_t n, size_t centre, size_t first, size_t count,
             float *out, size_t out_stride);
/// 8 windows per vector (AVX2 + FMA; call only when cvk_fir_level() ≥ 1 on x86-64); NEON (four a vector) on
/// AArch64; elsewhere the portable code.
void cvk_up2_w8(const float *c0, const float *c1, const float *b, size_t n, size_t centre, size_t first, size_t count,
                float *out, size_t out_stride);
/// 16 windows per vector (AVX-512F; call only when cvk_fir_level() is 2).
void cvk_up2_w16(const float *c0, const float *c1, const float *b, size_t n, size_t centre, size_t first, size_t count,
                 float *out, size_t out_stride);

// --- 2:1 half-band decimation for HalfBandCascadeResampler (halfband.c) ---------------------------
// Output i (i < count) is the symmetric half-band filter centred on x[2i]:
//   Σ_k g[k]·(x[2i − 2k − 1] + x[2i + 2k + 1]) + centre·x[2i], k < half,
// summed from k = half − 1 down to 0 (a multiply, then fused multiply-adds), the centre tap last;
// written to out[i·out_stride]. Reads x[−2·half + 1 … 2·count + 2·half − 2]. Every output is the same
// chain of operations in every kernel and lane, so the three agree bit for bit. `half` ≤
// cvk_halfband_max_half().

/// The largest `half` (taps on one side) the half-band kernels take.
size_t cvk_halfband_max_half(void);
/// Portable C (any CPU).
void cvk_halfband(const float *g, size_t half, float centre, const float *x, size_t count, float *out,
                  size_t out_stride);
/// 8 outputs per vector (AVX2 + FMA; call only when cvk_fir_level() ≥ 1 on x86-64; elsewhere the portable code).
void cvk_halfband_w8(const float *g, size_t half, float centre, const float *x, size_t count, float *out,
                     size_t out_stride);
/// 16 outputs per vector (AVX-512F; call only when cvk_fir_level() is 2).
void cvk_halfband_w16(const float *g, size_t half, float centre, const float *x, size_t count, float *out,
                      size_t out_stride);

// --- PCM conversion (AVX2) for PCMKernels ------------------------------------------------------------
// Bit-identical to the Swift SIMD loops (same operations in the same order). Each call handles whole
// groups of 16 samples (8 frames for the stereo mean) and returns how many it did; the Swift code
// does the rest. Call only after cvk_pcm_available() returned 1.

/// 1 when this CPU runs the PCM kernels (x86-64 with AVX2; AVX-512 F+BW where present), else 0.
int cvk_pcm_available(void);
/// The widest PCM kernels in use: 0 none, 1 AVX2, 2 AVX-512; and their name ("AVX-512", "AVX2", or NULL).
int cvk_pcm_level(void);
const char *cvk_pcm_instruction_set(void);
/// Caps the level (tests run every level this CPU has against the Swift code); 2 is no cap.
void cvk_pcm_set_level(int level);
/// Float32 → Int16, standard: clamp(round(x·32768)); NaN → -32768 here (the caller writes 0 for NaNs).
/// `*odd` = 1 when any sample done was outside [-1, 1] or NaN (the caller counts them exactly).
size_t cvk_f32_to_i16(const float *src, int16_t *dst, size_t n, int *odd);
/// As cvk_f32_to_i16 with TPDF dither (TPDFNoise's definition): `src[0]` is sample 2·pair of the stream
/// whose noise `key` selects. Whole groups of 16 samples; the caller advances its position by the result.
size_t cvk_f32_to_i16_tpdf(const float *src, int16_t *dst, size_t n, uint32_t key, uint64_t pair, int *odd);
/// Float32 → Int16, iOS compatibility (truncating, NaN → 32767), counting clipped samples and NaNs.
size_t cvk_f32_to_i16_ios(const float *src, int16_t *dst, size_t n, size_t *clipped, size_t *nans);
/// Int16 → Float32: x · 2^-15 (standard) or x / 32767 (ios ≠ 0).
size_t cvk_i16_to_f32(const int16_t *src, float *dst, size_t n, int ios);
/// Interleaved stereo → mono: (L + R) · 0.5 per frame.
size_t cvk_stereo_mean(const float *src, float *dst, size_t frames);
/// How many leading samples of x[0 ..< n] are known finite (a multiple of 32 or 64; 0 where the
/// kernels are not used): the scan stops at the first group holding a NaN or an infinity.
size_t cvk_finite_prefix(const float *x, size_t n);


/// Subnormal numbers flushed to zero on this thread (fpmode.c: x86 FTZ + DAZ, AArch64 FZ; nothing
/// elsewhere); returns the caller's mode for cvk_fp_restore_mode. For signals that decay towards
/// zero: a recursion through the subnormal range is slow on Intel cores and can hang there.
uint64_t cvk_fp_flush_subnormals(void);
/// Restores the mode cvk_fp_flush_subnormals returned.
void cvk_fp_restore_mode(uint64_t mode);

// The VAD's steep band analysis (steepbands.c): eight bands, per band four biquad sections in
// cascade, run on two signals: lanes 0–7 are `x0`'s bands, lanes 8–15 `x1`'s (or zeros when it is
// NULL). `coefs`: per section three rows of eight bands (b1/b0; −a1; −a2: every section normalised
// by its b0, which `scale` applies to the energies: per band the square of the product of its
// sections' b0; b1/b0 is −2 in sections 0 and 1 and +2 in sections 2 and 3 — a section that
// filters nothing has −a1 = −b1/b0 and −a2 = −1, and from zero state passes x unchanged), shared by
// both signals; `state`: per section two rows (s1, s2) of sixteen lanes, updated. Writes the sixteen
// lanes' sums of squares to `energy` and, per quarter of the n samples (quarter_length each, the
// last to n), the sum of x0's bands `quarter_from`…7 to `quarters`. The same bits from every kernel.
// Subnormal results are flushed to zero inside (cvk_fp_flush_subnormals; the caller's mode
// restored on return): a signal that stops decays through them.
void cvk_steep_bands(const float *coefs, const float *scale, float *state, const float *x0, const float *x1, size_t n,
                     size_t quarter_length, size_t quarter_from, float *energy, float *quarters);
/// The highest steep band kernel the CPU can run: 0 the portable one, 1 AVX2 + FMA, 3 also AVX-512F
/// and VL (which runs level 2, the AVX2 operations with 32 registers, and level 3, both signals in
/// one 512-bit register). x86-64 only above 0. Every level gives the same bits.
int cvk_steep_level(void);
/// The steep band kernel to use: cvk_steep_level(), except 2 in place of 3 on AMD CPUs before
/// family 26 (Zen 5). Level 3 was measured faster than level 2 on an Intel Xeon (20–28 %) and on an
/// AMD EPYC of family 26 (17 %); Zen 4 (family 25) splits 512-bit operations in two, and level 3 was
/// slower there (an EPYC of family 25: 661 ns a 160-sample frame against level 2's 578–582 ns).
int cvk_steep_preferred_level(void);
#if defined(__x86_64__) || defined(_M_X64)
/// AVX2 + FMA (call only when cvk_steep_level() ≥ 1).
void cvk_steep_bands_avx2(const float *coefs, const float *scale, float *state, const float *x0, const float *x1,
                          size_t n, size_t quarter_length, size_t quarter_from, float *energy, float *quarters);
/// AVX-512VL, 256-bit operations (call only when cvk_steep_level() ≥ 2).
void cvk_steep_bands_avx512(const float *coefs, const float *scale, float *state, const float *x0, const float *x1,
                            size_t n, size_t quarter_length, size_t quarter_from, float *energy, float *quarters);
/// AVX-512F, both signals in one 512-bit register (call only when cvk_steep_level() ≥ 3).
void cvk_steep_bands_avx512_wide(const float *coefs, const float *scale, float *state, const float *x0,
                                 const float *x1, size_t n, size_t quarter_length, size_t quarter_from, float *energy,
                                 float *quarters);
#endif
// The VAD echo model's delay correlation (delaycorrelation.c). `columns`: nine columns of 2·ring
// doubles (the reference's band changes 0–7 and their sum of squares), the frame `d` frames back
// at `at + d` (`at` moves down a slot a frame: the newest first), each value written twice, a ring
// apart (VADEchoModel.pushChange), so lags at…at+ring−1 are contiguous. Per lag d in
// lag_min…lag_max (< ring): scores[d] += α·(Σ_b mic[b]·column_b[at + d] − scores[d]) and
// reference[d] += α·(column_8[at + d] − reference[d]), each as m + α·(x − m) with no fused
// operation, the products summed in band order. Returns the first lag with the largest score above 0 (peak 0 and lag_min when none is) and
// Σ|scores[d]|, summed in four partial sums by (d − lag_min) mod 4, combined (m0 + m1) + (m2 + m3).
// The same bits from every kernel.
typedef struct {
    double peak;
    double magnitude;
    size_t lag;
} cvk_delay_peak;
cvk_delay_peak cvk_delay_correlate(double *scores, double *reference, const double *columns, size_t ring, size_t at,
                                   const double *mic, size_t lag_min, size_t lag_max, double alpha);
/// 1 when the CPU runs cvk_delay_correlate_avx2, else 0 (x86-64 only above 0).
int cvk_delay_level(void);
#if defined(__x86_64__) || defined(_M_X64)
/// AVX2, four lags a register (call only when cvk_delay_level() is 1).
cvk_delay_peak cvk_delay_correlate_avx2(double *scores, double *reference, const double *columns, size_t ring,
                                        size_t at, const double *mic, size_t lag_min, size_t lag_max, double alpha);
#endif
// The VAD's eight-lane double arithmetic (vadlanes.c), the same bits as the Swift it stands for, with
// AVX2 where the CPU has it (chosen on the first call). `cvk_vad_lanes_db`: `fastDB` (Decibels.swift)
// of eight band powers into `out`; `cvk_vad_lanes_power`: `fastPower` of eight levels. Each returns a
// bit per lane (bit i: lane i) that was in range; the caller computes the others itself (`out` holds
// nothing of use there). `cvk_vad_leakage`: `VADEchoModel.withLeakage` of eight bands, `distant` and
// `all` its tables' eight rows of eight, `margin` its `neighbourMargin`.
int cvk_vad_lanes_db(const double *p, double *out);
int cvk_vad_lanes_power(const double *levels, double *out);
void cvk_vad_leakage(const double *gains, const double *x, const double *distant, const double *all, double margin,
                     double *echo);
/// The portable kernels the three above run where the CPU has no AVX2 (the same bits; for the tests).
int cvk_vad_lanes_db_portable(const double *p, double *out);
int cvk_vad_lanes_power_portable(const double *levels, double *out);
void cvk_vad_leakage_portable(const double *gains, const double *x, const double *distant, const double *all,
                              double margin, double *echo);
/// `VADRingPredictor.filter`'s third difference of x[0..<n) (n ≥ 3): out[i] for i = 3, 4, … eight at a
/// time while i + 8 ≤ n, and each lane's sum of squares in `squares` (eight floats); returns the first
/// i it did not do (the caller does the rest). The same bits as the Swift loop it replaces, on every CPU.
size_t cvk_ring_third_difference(const float *x, size_t n, float *out, float *squares);
size_t cvk_ring_third_difference_portable(const float *x, size_t n, float *out, float *squares);
/// `VADRingPredictor.correlations`: over the filtered samples y[h…h+n−1] (h ≥ lag + 7), lane j of
/// `short_lags` sums y[k]·y[k − 7 + j] and of `long_lags` y[k]·y[k − lag − 7 + j] (eight floats each).
/// The same bits as the Swift loop it replaces, on every CPU.
void cvk_ring_correlations(const float *y, size_t h, size_t n, size_t lag, float *short_lags, float *long_lags);
void cvk_ring_correlations_portable(const float *y, size_t h, size_t n, size_t lag, float *short_lags,
                                    float *long_lags);
#endif
