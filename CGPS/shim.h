#ifndef BREEZE_CGPS_SHIM_H
#define BREEZE_CGPS_SHIM_H

/* libgps is loaded with dlopen when the gpsd source first connects, not linked: linking it had every start of
 * breezed load libgps with libstdc++, libdbus, libsystemd, libgcrypt, liblz4, libzstd and liblzma behind it, and run
 * their initializers and relocations, for a daemon started with --no-gpsd or not reaching gpsd for a while. The
 * header gives the types and constants; the functions come from this table. */

#include "../CLoader/loader.h"
#include <gps.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* The soname loaded: the one built beside the gps.h compiled against (gps_data_t's layout is part of the ABI).
 * Package.swift names it from the installed libgps.so (-DCGPS_LIBRARY); where it finds none, the sonames of the
 * gpsd versions tried: 3.22 (Debian 12) and 3.25 (Debian 13). */
#ifndef CGPS_LIBRARY
#if GPSD_API_MAJOR_VERSION == 11
#define CGPS_LIBRARY "libgps.so.28"
#elif GPSD_API_MAJOR_VERSION == 14
#define CGPS_LIBRARY "libgps.so.30"
#else
#error "CGPS: unknown libgps soname for this gps.h; name it with -Xcc -DCGPS_LIBRARY='\"libgps.so.N\"'"
#endif
#endif

/* What Swift cannot import from libgps (macros, a union-typed descriptor), as real functions. Reports are not
 * parsed by libgps: its gps_unpack reads lines that are not JSON ("lat":0x2E as 0), so BreezeGPSD reads and
 * checks them itself. It also reads the socket itself: gps_read and gps_waiting use select(), which aborts the
 * process for a descriptor at or above FD_SETSIZE (1024). */

/* The functions used, resolved from CGPS_LIBRARY. */
struct CGPS_api {
    int (*open)(const char *host, const char *port, struct gps_data_t *data);
    int (*close)(struct gps_data_t *data);
    const char *(*errstr)(const int code);
};

/* Fills `api` from CGPS_LIBRARY. Returns NULL, or dlerror's message when the library or a symbol is missing.
 * The library stays loaded for the life of the process. */
static inline const char *CGPS_load(struct CGPS_api *api) {
    const char *failure = NULL;
    void *library = CLoader_open(CGPS_LIBRARY, &failure);
    CLoader_resolve(library, (void **)&api->open, "gps_open", &failure);
    CLoader_resolve(library, (void **)&api->close, "gps_close", &failure);
    CLoader_resolve(library, (void **)&api->errstr, "gps_errstr", &failure);
    return failure;
}

/* The soname, for messages. */
static inline const char *CGPS_library_name(void) {
    return CGPS_LIBRARY;
}

static inline struct gps_data_t *CGPS_new(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}

static inline void CGPS_free(struct gps_data_t *data) {
    free(data);
}

/* Wraps gps_open; returns 0 or -1 with errno set: an errno value, or one of libgps's negative codes (see
 * CGPS_errstr). */
static inline int CGPS_open(const struct CGPS_api *api, const char *host, const char *port,
                            struct gps_data_t *data) {
    errno = 0;
    return api->open(host, port, data);
}

static inline int CGPS_fd(const struct gps_data_t *data) {
    return (int)data->gps_fd;
}

/* libgps's own failure codes, left in errno by gps_open (negative, so never an errno value). */
static const int CGPS_NOSERVICE = NL_NOSERVICE;
static const int CGPS_NOHOST = NL_NOHOST;
static const int CGPS_NOCONNECT = NL_NOCONNECT;

/* Wraps gps_errstr: libgps's words for one of its codes. */
static inline const char *CGPS_errstr(const struct CGPS_api *api, int code) {
    return api->errstr(code);
}

/* Wraps gps_close. */
static inline int CGPS_close(const struct CGPS_api *api, struct gps_data_t *data) {
    return api->close(data);
}

#endif
