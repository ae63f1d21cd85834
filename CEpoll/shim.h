// Linux's epoll, which the toolchain's Glibc module leaves out. Part of the C library: nothing to link.
#include <sys/epoll.h>
