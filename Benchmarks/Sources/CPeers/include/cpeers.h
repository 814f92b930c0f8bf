#ifndef CPEERS_H
#define CPEERS_H
#include <stddef.h>
#include <stdint.h>

/* One source, compiled twice: CPeers (baseline ISA) and CPeersNative (-march=native), which
   defines CPEERS_NAME to give its copies other names. */
#ifndef CPEERS_NAME
#define CPEERS_NAME(x) cpeers_##x
#endif

/// Float32 -> Int16 the way a C programmer writes it: scale by 32768, clamp, round to nearest.
void CPEERS_NAME(f32_to_s16)(const float *src, int16_t *dst, size_t n);
/// Int16 -> Float32: divide by 32768.
void CPEERS_NAME(s16_to_f32)(const int16_t *src, float *dst, size_t n);
/// Interleaved stereo -> mono mean.
void CPEERS_NAME(stereo_to_mono)(const float *src, float *dst, size_t frames);

#endif
