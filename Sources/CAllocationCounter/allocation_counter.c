// Counts heap allocations for `audiopipe bench` and AudioPipelineBench, in-process, on glibc.
//
// glibc removed its malloc hooks (2.34) and mallinfo2 only shows bytes in use (an allocation freed
// within the chunk leaves no trace), so the allocation entry points are interposed here: defined in
// the program, they come before libc's, count while counting is on, and forward to glibc's own
// implementation (__libc_malloc and friends, exported for exactly this). free needs no wrapper:
// the memory is glibc's. Off (and not compiled) under sanitizers, which interpose these themselves,
// and on other C libraries: apc_available() then says 0 and nothing is reported as counted.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  // sched_setaffinity
#endif
#include "allocation_counter.h"

#include <sys/resource.h>
#if defined(__linux__)
#include <sched.h>
#endif

int64_t apc_peak_memory(void) {
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0) return -1;
#if defined(__APPLE__)
    return (int64_t)u.ru_maxrss;  // bytes on Darwin
#else
    return (int64_t)u.ru_maxrss * 1024;  // KiB on Linux
#endif
}

int apc_pin_cpu(int cpu) {
#if defined(__linux__)
    if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
#else
    (void)cpu;
    return -1;
#endif
}

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define APC_SANITIZED 1
#endif
#endif
#endif

#if defined(__GLIBC__) && !defined(APC_SANITIZED) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

// Per thread: a bench counts the allocations of the thread that runs the stage, not those of
// whatever else the process (an app, a parallel test runner) does meanwhile. initial-exec TLS:
// this code is linked into the program, so reading it never allocates.
static _Thread_local int apc_counting __attribute__((tls_model("initial-exec")));
static _Thread_local uint64_t apc_count __attribute__((tls_model("initial-exec")));

static inline void apc_note(void) {
    if (__builtin_expect(apc_counting, 0)) apc_count++;
}

void *malloc(size_t n) { apc_note(); return __libc_malloc(n); }
void *calloc(size_t k, size_t n) { apc_note(); return __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { apc_note(); return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { apc_note(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { apc_note(); return __libc_memalign(a, n); }
void *valloc(size_t n) { apc_note(); return __libc_valloc(n); }
void *pvalloc(size_t n) { apc_note(); return __libc_pvalloc(n); }
int posix_memalign(void **out, size_t a, size_t n) {
    if (a < sizeof(void *) || (a & (a - 1)) != 0) return EINVAL;
    apc_note();
    void *p = __libc_memalign(a, n);
    if (p == NULL && n != 0) return ENOMEM;
    *out = p;
    return 0;
}

int apc_available(void) { return 1; }
void apc_start(void) {
    apc_count = 0;
    apc_counting = 1;
}
uint64_t apc_stop(void) {
    apc_counting = 0;
    return apc_count;
}
#else
int apc_available(void) { return 0; }
void apc_start(void) {}
uint64_t apc_stop(void) { return 0; }
#endif
