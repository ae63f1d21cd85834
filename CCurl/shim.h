#ifndef BREEZE_CCURL_SHIM_H
#define BREEZE_CCURL_SHIM_H

/* libcurl is loaded with dlopen at the first fetch, not linked: linking it had every start of breezed load libcurl
 * with libssl, libcrypto and the rest behind it, and run their initializers and relocations (about 4 MiB of memory
 * and most of the time to READY), for a daemon that may never fetch (`--offline`) or not for a while. The header
 * gives the types and constants; the functions come from this table. */

#include "../CLoader/loader.h"
#include <stddef.h>
#include <curl/curl.h>

/* The soname loaded: Debian's libcurl4 (libcurl4t64 from trixie on), or another package's build of the same ABI. */
#define CCURL_LIBRARY "libcurl.so.4"

/* The functions used, resolved from CCURL_LIBRARY. curl_easy_setopt and curl_easy_getinfo are variadic, which
 * Swift cannot call: the helpers below call them, one per argument type. */
struct CCurl_api {
    CURLcode (*global_init)(long flags);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *remaining);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
    const char *(*multi_strerror)(CURLMcode code);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    /* curl_easy_setopt and curl_easy_getinfo, variadic: called through the helpers below. */
    void *easy_setopt;
    void *easy_getinfo;
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
};

/* Fills `api` from CCURL_LIBRARY. Returns NULL, or dlerror's message when the library or a symbol is missing.
 * The library stays loaded for the life of the process. */
static inline const char *CCurl_load(struct CCurl_api *api) {
    const char *failure = NULL;
    void *library = CLoader_open(CCURL_LIBRARY, &failure);
    CLoader_resolve(library, (void **)&api->global_init, "curl_global_init", &failure);
    CLoader_resolve(library, (void **)&api->multi_init, "curl_multi_init", &failure);
    CLoader_resolve(library, (void **)&api->multi_add_handle, "curl_multi_add_handle", &failure);
    CLoader_resolve(library, (void **)&api->multi_remove_handle, "curl_multi_remove_handle", &failure);
    CLoader_resolve(library, (void **)&api->multi_perform, "curl_multi_perform", &failure);
    CLoader_resolve(library, (void **)&api->multi_info_read, "curl_multi_info_read", &failure);
    CLoader_resolve(library, (void **)&api->multi_poll, "curl_multi_poll", &failure);
    CLoader_resolve(library, (void **)&api->multi_wakeup, "curl_multi_wakeup", &failure);
    CLoader_resolve(library, (void **)&api->multi_strerror, "curl_multi_strerror", &failure);
    CLoader_resolve(library, (void **)&api->easy_init, "curl_easy_init", &failure);
    CLoader_resolve(library, (void **)&api->easy_cleanup, "curl_easy_cleanup", &failure);
    CLoader_resolve(library, (void **)&api->easy_setopt, "curl_easy_setopt", &failure);
    CLoader_resolve(library, (void **)&api->easy_getinfo, "curl_easy_getinfo", &failure);
    CLoader_resolve(library, (void **)&api->easy_strerror, "curl_easy_strerror", &failure);
    CLoader_resolve(library, (void **)&api->slist_append, "curl_slist_append", &failure);
    CLoader_resolve(library, (void **)&api->slist_free_all, "curl_slist_free_all", &failure);
    return failure;
}

/* The soname, for messages. */
static inline const char *CCurl_library_name(void) {
    return CCURL_LIBRARY;
}

typedef CURLcode (*CCurl_setopt_function)(CURL *handle, CURLoption option, ...);
typedef CURLcode (*CCurl_getinfo_function)(CURL *handle, CURLINFO info, ...);

/* Each returns libcurl's own code. */
static inline CURLcode CCurl_setopt_long(const struct CCurl_api *api, CURL *handle, CURLoption option, long value) {
    return ((CCurl_setopt_function)api->easy_setopt)(handle, option, value);
}

static inline CURLcode CCurl_setopt_off(const struct CCurl_api *api, CURL *handle, CURLoption option,
                                        curl_off_t value) {
    return ((CCurl_setopt_function)api->easy_setopt)(handle, option, value);
}

/* A string (libcurl copies it), a list, a buffer or a callback's user data. */
static inline CURLcode CCurl_setopt_pointer(const struct CCurl_api *api, CURL *handle, CURLoption option,
                                            const void *value) {
    return ((CCurl_setopt_function)api->easy_setopt)(handle, option, value);
}

/* The body and header callbacks: (bytes, 1, count, user data) -> bytes taken. */
typedef size_t (*CCurl_data_callback)(char *bytes, size_t size, size_t count, void *context);

static inline CURLcode CCurl_setopt_data_callback(const struct CCurl_api *api, CURL *handle, CURLoption option,
                                                  CCurl_data_callback callback) {
    return ((CCurl_setopt_function)api->easy_setopt)(handle, option, callback);
}

static inline CURLcode CCurl_getinfo_long(const struct CCurl_api *api, CURL *handle, CURLINFO info, long *value) {
    return ((CCurl_getinfo_function)api->easy_getinfo)(handle, info, value);
}

/* The result of a finished transfer, from the union in CURLMsg. */
static inline CURLcode CCurl_message_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
