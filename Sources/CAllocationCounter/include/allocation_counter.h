#ifndef AUDIOPIPELINE_ALLOCATION_COUNTER_H
#define AUDIOPIPELINE_ALLOCATION_COUNTER_H

#include <stdint.h>

/// 1 when this build counts heap allocations in-process (glibc, no sanitizer), else 0: then the
/// bench reports allocations as "not measured".
int apc_available(void);
/// Starts counting (from zero) the calling thread's allocations; apc_stop returns the count since.
void apc_start(void);
uint64_t apc_stop(void);
/// Peak resident memory of the process, bytes.
int64_t apc_peak_memory(void);
/// Pins the calling thread to CPU `cpu` (Linux); 0 on success, -1 where it cannot.
int apc_pin_cpu(int cpu);

#endif
