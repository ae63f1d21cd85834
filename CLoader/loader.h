#ifndef BREEZE_CLOADER_LOADER_H
#define BREEZE_CLOADER_LOADER_H

/* Loading a C library at run time, for the shims whose library breezed opens when it is first used instead of
 * linking it (CGPS, CDBus, CCurl, CMosquitto: each says why). Not a module of its own: each shim includes it.
 *
 * A shim lists its functions as fields of a table and fills the table with one CLoader_resolve per field:
 *
 *     const char *failure = NULL;
 *     void *library = CLoader_open("libgps.so.30", &failure);
 *     CLoader_resolve(library, (void **)&api->open, "gps_open", &failure);
 *     ...
 *     return failure;
 *
 * Once a step fails, the steps after it do nothing, and `failure` keeps the first failure's words (dlerror's). The
 * library stays loaded for the life of the process. */

#include <dlfcn.h>
#include <stddef.h>

/* The library named `soname`, or NULL with dlerror's message in `failure`. */
static inline void *CLoader_open(const char *soname, const char **failure) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *message = dlerror();
        *failure = message != NULL ? message : soname;
    }
    return library;
}

/* Sets `slot` to the function `name` in `library`; with no such function, or after an earlier failure, leaves it
 * and sets (or keeps) `failure`. */
static inline void CLoader_resolve(void *library, void **slot, const char *name, const char **failure) {
    if (*failure != NULL || library == NULL) return;
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        const char *message = dlerror();
        *failure = message != NULL ? message : name;
    }
}

#endif
