// Linux calls the toolchain's Glibc module leaves out. Part of the C library: nothing to link.
// epoll: the socket thread's wait for readiness.
#include <sys/epoll.h>
// malloc_trim: hands freed heap back to the system after a heavy client leaves.
#include <malloc.h>
