// Linux calls the toolchain's Glibc module leaves out. Part of the C library: nothing to link.
// epoll: the socket thread's wait for readiness.
#include <sys/epoll.h>
// eventfd: a signal handler's wake-up for breezed's signal stream (one descriptor, where a pipe takes two).
#include <sys/eventfd.h>
// malloc_trim: hands freed heap back to the system after a heavy client leaves.
#include <malloc.h>
