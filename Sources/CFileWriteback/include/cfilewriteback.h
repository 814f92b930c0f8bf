// Starting the kernel's writeback of part of a file, for AtomicOutput (AudioPipelineWorkflows):
// glibc declares sync_file_range only under _GNU_SOURCE, which Swift's Glibc module is built without.
#pragma once

/// Starts writing bytes [offset, offset + count) of `fd` to its disk and returns without waiting
/// (Linux sync_file_range with SYNC_FILE_RANGE_WRITE: no durability promise, no metadata). 0 on
/// success, −1 with errno on failure; elsewhere than Linux a no-op returning 0.
int cfw_start_writeback(int fd, long long offset, long long count);
