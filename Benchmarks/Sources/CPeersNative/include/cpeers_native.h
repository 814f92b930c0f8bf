#ifndef CPEERS_NATIVE_H
#define CPEERS_NATIVE_H
#include <stddef.h>
#include <stdint.h>
/* The CPeers loops, built with -march=native (cpeers_native.c compiles ../CPeers/cpeers.c). */
void cpeers_native_f32_to_s16(const float *src, int16_t *dst, size_t n);
void cpeers_native_s16_to_f32(const int16_t *src, float *dst, size_t n);
void cpeers_native_stereo_to_mono(const float *src, float *dst, size_t frames);
#endif
