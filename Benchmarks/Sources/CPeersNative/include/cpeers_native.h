#ifndef CPEERS_NATIVE_H
#define CPEERS_NATIVE_H
#include <stddef.h>
#include <stdint.h>

/// Float32 -> Int16 the way a C programmer writes it: scale by 32768, clamp, round to nearest.
void cpeers_native_f32_to_s16(const float *src, int16_t *dst, size_t n);
/// Int16 -> Float32: divide by 32768.
void cpeers_native_s16_to_f32(const int16_t *src, float *dst, size_t n);
/// Interleaved stereo -> mono mean.
void cpeers_native_stereo_to_mono(const float *src, float *dst, size_t frames);

#endif
