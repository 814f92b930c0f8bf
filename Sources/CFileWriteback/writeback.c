#define _GNU_SOURCE
#include "cfilewriteback.h"

#if defined(__linux__)
#include <fcntl.h>

int cfw_start_writeback(int fd, long long offset, long long count) {
    return sync_file_range(fd, (off_t)offset, (off_t)count, SYNC_FILE_RANGE_WRITE);
}
#else
int cfw_start_writeback(int fd, long long offset, long long count) {
    (void)fd;
    (void)offset;
    (void)count;
    return 0;
}
#endif
