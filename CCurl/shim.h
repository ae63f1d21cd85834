#ifndef BREEZE_CCURL_SHIM_H
#define BREEZE_CCURL_SHIM_H

#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one real function per argument
 * type. Each returns libcurl's own code. */

static inline CURLcode CCurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* A string (libcurl copies it), a list, a buffer or a callback's user data. */
static inline CURLcode CCurl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* The body and header callbacks: (bytes, 1, count, user data) -> bytes taken. */
typedef size_t (*CCurl_data_callback)(char *bytes, size_t size, size_t count, void *context);

static inline CURLcode CCurl_setopt_data_callback(CURL *handle, CURLoption option, CCurl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode CCurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* The result of a finished transfer, from the union in CURLMsg. */
static inline CURLcode CCurl_message_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
