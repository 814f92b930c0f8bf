// Heap allocation counting for `audiopipe bench` (and any program that links this target, such as
// an on-device test on Linux), in-process, on glibc.
//
// glibc removed its malloc hooks (2.34) and mallinfo2 only shows bytes in use (an allocation freed
// within the chunk leaves no trace), so the allocation entry points are defined here: in the
// program, they come before libc's, tell the counter (CAllocationCounter: counted only on a thread
// that is measuring), and forward to glibc's own implementation (__libc_malloc and friends,
// exported for exactly this). free needs no wrapper: the memory is glibc's. Under a sanitizer
// (which interposes these itself) and on other C libraries nothing is defined and
// apc_interposer_active is 0, so the bench says "not measured".
#include "allocation_interposer.h"

#include <stdint.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define API_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define API_SANITIZED 1
#endif

#if defined(__GLIBC__) && !defined(API_SANITIZED)
#include <errno.h>
#include <stddef.h>

void apc_note_allocation(void);

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

const int apc_interposer_active = 1;

void *malloc(size_t n) {
    apc_note_allocation();
    return __libc_malloc(n);
}
void *calloc(size_t k, size_t n) {
    apc_note_allocation();
    return __libc_calloc(k, n);
}
void *realloc(void *p, size_t n) {
    apc_note_allocation();
    return __libc_realloc(p, n);
}
void *memalign(size_t a, size_t n) {
    apc_note_allocation();
    return __libc_memalign(a, n);
}
void *aligned_alloc(size_t a, size_t n) {
    apc_note_allocation();
    return __libc_memalign(a, n);
}
void *valloc(size_t n) {
    apc_note_allocation();
    return __libc_valloc(n);
}
void *pvalloc(size_t n) {
    apc_note_allocation();
    return __libc_pvalloc(n);
}
int posix_memalign(void **out, size_t a, size_t n) {
    if (a < sizeof(void *) || (a & (a - 1)) != 0) return EINVAL;
    apc_note_allocation();
    void *p = __libc_memalign(a, n);
    if (p == NULL && n != 0) return ENOMEM;
    *out = p;
    return 0;
}
#else
const int apc_interposer_active = 0;
#endif
