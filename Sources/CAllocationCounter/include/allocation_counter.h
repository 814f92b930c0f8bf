#ifndef AUDIOPIPELINE_ALLOCATION_COUNTER_H
#define AUDIOPIPELINE_ALLOCATION_COUNTER_H

#include <stdint.h>

/// 1 when heap allocations are counted in this process: the program links CAllocationInterposer
/// (the `audiopipe` executable does) on glibc without a sanitizer; else 0, and the bench reports
/// allocations as "not measured".
int apc_available(void);
/// 1 when this code was compiled under a sanitizer (which interposes malloc itself).
int apc_sanitized(void);
/// Starts counting (from zero) the calling thread's allocations; apc_stop returns the count since.
void apc_start(void);
uint64_t apc_stop(void);
/// Called by the interposer on every allocation (counts only while the thread is counting).
void apc_note_allocation(void);
/// Peak resident memory of the process, bytes.
int64_t apc_peak_memory(void);
/// Pins the calling thread to CPU `cpu` (Linux); 0 on success, -1 where it cannot.
int apc_pin_cpu(int cpu);

#endif
