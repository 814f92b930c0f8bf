// The allocation counter behind `audiopipe bench` and AudioPipelineBench: per-thread counts that
// the interposer (CAllocationInterposer, linked into the program that wants counting) bumps. This
// target defines no allocator symbol, so any program can link the bench library; counting is on
// only where the interposer is present (a weak reference tells), never assumed.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  // sched_setaffinity
#endif
#include "allocation_counter.h"

#include <stddef.h>
#include <sys/resource.h>
#if defined(__linux__)
#include <sched.h>
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define APC_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define APC_SANITIZED 1
#endif

// Per thread: a bench counts the allocations of the thread that runs the stage, not those of
// whatever else the process (an app, a parallel test runner) does meanwhile. On glibc, initial-exec
// TLS, so reading it from inside malloc never allocates.
#if defined(__GLIBC__)
#define APC_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define APC_TLS _Thread_local
#endif
static APC_TLS int apc_counting;
static APC_TLS uint64_t apc_count;

#if defined(__GLIBC__)
// Defined by CAllocationInterposer when it is linked in and active (a weak reference: ELF resolves
// a missing one to NULL).
extern const int apc_interposer_active __attribute__((weak));
int apc_available(void) { return &apc_interposer_active != NULL && apc_interposer_active; }
#else
// Only glibc has an interposer (Mach-O has no weak undefined references without a definition).
int apc_available(void) { return 0; }
#endif

int apc_sanitized(void) {
#if defined(APC_SANITIZED)
    return 1;
#else
    return 0;
#endif
}

void apc_note_allocation(void) {
    if (__builtin_expect(apc_counting, 0)) apc_count++;
}

void apc_start(void) {
    apc_count = 0;
    apc_counting = 1;
}

uint64_t apc_stop(void) {
    apc_counting = 0;
    return apc_count;
}

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
