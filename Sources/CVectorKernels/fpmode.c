// The floating-point mode for code whose signals decay towards zero (recursive filters, and what
// their output feeds): subnormal numbers flushed to zero, on x86 with MXCSR's flush-to-zero (bit
// 15) and denormals-are-zero (bit 6), on AArch64 with FPCR's FZ (bit 24, single and double
// precision). A recursion that decays through the subnormal range can hang on its smallest values
// for good, and on Intel cores every operation on a subnormal takes a microcode assist: measured
// in the VAD's steep bands and the session simulator's room
// (steepbands.c, docs/design/vector-kernels.md). The mode is per thread; the caller's is restored.
#include "cvectorkernels.h"
#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

uint64_t cvk_fp_flush_subnormals(void) {
#if defined(__x86_64__) || defined(_M_X64)
    const unsigned int csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u);
    return csr;
#elif defined(__aarch64__)
    uint64_t fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr | (UINT64_C(1) << 24)));
    return fpcr;
#else
    return 0;  // other targets: subnormals kept (the same results but for them; slower on some cores)
#endif
}

void cvk_fp_restore_mode(uint64_t mode) {
#if defined(__x86_64__) || defined(_M_X64)
    _mm_setcsr((unsigned int)mode);
#elif defined(__aarch64__)
    __asm__ __volatile__("msr fpcr, %0" : : "r"(mode));
#else
    (void)mode;
#endif
}
