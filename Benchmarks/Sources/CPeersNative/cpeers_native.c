/* The same loops as CPeers, compiled with -march=native under other names. */
#define CPEERS_NAME(x) cpeers_native_##x
#include "../CPeers/include/cpeers.h"
#include "../CPeers/cpeers.c"
