#ifndef BREEZE_CGPS_SHIM_H
#define BREEZE_CGPS_SHIM_H

#include <gps.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* What Swift cannot import from libgps (macros, a union-typed descriptor), as real functions. Reports are not
 * parsed by libgps: its gps_unpack reads lines that are not JSON ("lat":0x2E as 0), so BreezeGPSD reads and
 * checks them itself. It also reads the socket itself: gps_read and gps_waiting use select(), which aborts the
 * process for a descriptor at or above FD_SETSIZE (1024). */

static inline struct gps_data_t *CGPS_new(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}

static inline void CGPS_free(struct gps_data_t *data) {
    free(data);
}

/* Wraps gps_open; returns 0 or -1 with errno set: an errno value, or one of libgps's negative codes (see
 * CGPS_errstr). */
static inline int CGPS_open(const char *host, const char *port, struct gps_data_t *data) {
    errno = 0;
    return gps_open(host, port, data);
}

static inline int CGPS_fd(const struct gps_data_t *data) {
    return (int)data->gps_fd;
}

/* libgps's own failure codes, left in errno by gps_open (negative, so never an errno value). */
static const int CGPS_NOSERVICE = NL_NOSERVICE;
static const int CGPS_NOHOST = NL_NOHOST;
static const int CGPS_NOCONNECT = NL_NOCONNECT;

/* Wraps gps_errstr: libgps's words for one of its codes. */
static inline const char *CGPS_errstr(int code) {
    return gps_errstr(code);
}

static inline int CGPS_close(struct gps_data_t *data) {
    return gps_close(data);
}

#endif
