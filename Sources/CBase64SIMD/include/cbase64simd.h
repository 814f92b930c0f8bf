// Vectorised base64 kernels (standard alphabet) for AudioPipelineAdapters' `Base64SIMD`.
// Each call handles whole 12-byte / 16-character groups only and returns how much it did; the
// caller finishes the tail (and any error) with the core's scalar codec.
#ifndef CBASE64SIMD_H
#define CBASE64SIMD_H
#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU runs the vector kernels (x86-64 with SSSE3), else 0. Call the two kernels
/// only after it returned 1 (they assume the instructions exist).
int cb64_available(void);

/// Encodes whole 12-byte groups of `src` (leaving at least 4 bytes unread at the end) into `dst`;
/// returns the bytes consumed (a multiple of 12); `dst` receives consumed / 3 * 4 characters.
size_t cb64_encode(const uint8_t *src, size_t len, uint8_t *dst);

/// Decodes whole 16-character groups of `src` while every character is in the alphabet (no
/// padding, no whitespace) into `dst` (which must have room for 4 bytes beyond the decoded ones);
/// stops before the first group with any other character. Returns the characters consumed (a
/// multiple of 16); `dst` receives consumed / 4 * 3 bytes.
size_t cb64_decode(const uint8_t *src, size_t len, uint8_t *dst);

#endif
