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

/* Wraps gps_open; returns 0 or -1 with errno set (libgps leaves errno 0 for some failures: see gps_errstr). */
static inline int CGPS_open(const char *host, const char *port, struct gps_data_t *data) {
    errno = 0;
    return gps_open(host, port, data);
}

/* Wraps gps_stream(WATCH_ENABLE | WATCH_JSON). */
static inline int CGPS_watch(struct gps_data_t *data) {
    return gps_stream(data, WATCH_ENABLE | WATCH_JSON, NULL);
}

static inline int CGPS_fd(const struct gps_data_t *data) {
    return (int)data->gps_fd;
}

static inline const char *CGPS_errstr(int code) {
    return gps_errstr(code);
}

static inline int CGPS_close(struct gps_data_t *data) {
    return gps_close(data);
}

#endif
