#include "include/cpeers.h"
#include <math.h>

void CPEERS_NAME(f32_to_s16)(const float *src, int16_t *dst, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float x = src[i] * 32768.0f;
        x = x > 32767.0f ? 32767.0f : (x < -32768.0f ? -32768.0f : x);
        dst[i] = (int16_t)lrintf(x);
    }
}

void CPEERS_NAME(s16_to_f32)(const int16_t *src, float *dst, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = (float)src[i] * (1.0f / 32768.0f);
}

void CPEERS_NAME(stereo_to_mono)(const float *src, float *dst, size_t frames) {
    for (size_t i = 0; i < frames; i++) dst[i] = (src[2 * i] + src[2 * i + 1]) * 0.5f;
}
