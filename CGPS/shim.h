#ifndef BREEZE_CGPS_SHIM_H
#define BREEZE_CGPS_SHIM_H

#include <gps.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* What Swift cannot import from libgps (macros, variadic calls, a union-typed descriptor), as real functions. */

/* A fix, copied out of gps_data_t so that no libgps type reaches Swift's public API. */
typedef struct {
    int mode;             /* MODE_NOT_SEEN 0, MODE_NO_FIX 1, MODE_2D 2, MODE_3D 3 */
    int has_mode;         /* the report set MODE_SET */
    double latitude;      /* NaN when missing */
    double longitude;
    double altitude_msl;
    double eph;           /* horizontal error estimate, metres (95%) */
    double speed;         /* metres per second */
    double track;         /* degrees from true north */
    long long time_sec;   /* receiver time; 0 when missing */
    long time_nsec;
} CGPS_Fix;

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

/* Wraps gps_unpack: parses one JSON report (a NUL-terminated line) into data, after clearing data->set.
 * The caller reads the socket itself: gps_read and gps_waiting use select(), which aborts the process for a
 * descriptor at or above FD_SETSIZE (1024), and a daemon serving many clients has such descriptors. */
static inline int CGPS_unpack(char *line, struct gps_data_t *data) {
    data->set = 0;
    return gps_unpack(line, data);
}

/* The fix of the last report, when it was a TPV (MODE_SET); returns 1 then, 0 otherwise. */
static inline int CGPS_take_fix(const struct gps_data_t *data, CGPS_Fix *out) {
    if (!(data->set & MODE_SET)) return 0;
    out->has_mode = 1;
    out->mode = data->fix.mode;
    out->latitude = data->fix.latitude;
    out->longitude = data->fix.longitude;
    out->altitude_msl = data->fix.altMSL;
    out->eph = data->fix.eph;
    out->speed = data->fix.speed;
    out->track = data->fix.track;
    out->time_sec = (data->set & TIME_SET) ? (long long)data->fix.time.tv_sec : 0;
    out->time_nsec = (data->set & TIME_SET) ? (long)data->fix.time.tv_nsec : 0;
    return 1;
}

/* gps_send is variadic: send one fixed string. */
static inline int CGPS_send(struct gps_data_t *data, const char *text) {
    return gps_send(data, "%s", text);
}

static inline const char *CGPS_errstr(int code) {
    return gps_errstr(code);
}

static inline int CGPS_close(struct gps_data_t *data) {
    return gps_close(data);
}

#endif
