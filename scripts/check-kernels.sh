#!/usr/bin/env bash
# `make check-kernels` (run by .ci/run): the C vector kernels against plain references, natively
# (x86-64: SSSE3 base64, AVX2/FMA resampler and VAD band kernels) and cross-compiled for AArch64 and run under
# qemu-aarch64 (the NEON kernels). Correctness only; speed is the benchmark suite's job.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sources=(scripts/vector_kernels_test.c Sources/CVectorKernels/base64.c Sources/CVectorKernels/fir.c Sources/CVectorKernels/pcm.c
    Sources/CVectorKernels/halfband.c Sources/CVectorKernels/steepbands.c Sources/CVectorKernels/fpmode.c Sources/CVectorKernels/upsample2.c)
flags=(-O2 -Wall -Wextra -Werror -I Sources/CVectorKernels/include)
cc=$(command -v clang || command -v cc)
echo "== native ($(uname -m))"
"$cc" "${flags[@]}" "${sources[@]}" -lm -o "$out/native"
"$out/native"
echo "== aarch64 under qemu"
aarch64-linux-gnu-gcc "${flags[@]}" -static "${sources[@]}" -lm -o "$out/arm64"
qemu-aarch64 "$out/arm64"
