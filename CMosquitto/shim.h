#ifndef BREEZE_CMOSQUITTO_SHIM_H
#define BREEZE_CMOSQUITTO_SHIM_H

/* libmosquitto is loaded with dlopen when a connection is first made, not linked: breezectl links this module for
 * `fleet` alone, and loading libmosquitto with libssl and libcrypto at every start cost about 3.5 ms (+23%) of
 * `breezectl --version`. The header gives the types and constants; the functions come from this table. */

#include "../CLoader/loader.h"
#include <stddef.h>
#include <mosquitto.h>

/* The callbacks libmosquitto calls from inside mosquitto_loop_read/loop_write, on the thread that drives it. */
typedef void (*CMosquitto_connect_callback)(struct mosquitto *mosq, void *context, int code);
typedef void (*CMosquitto_message_callback)(struct mosquitto *mosq, void *context,
                                            const struct mosquitto_message *message);

/* The functions used, resolved from libmosquitto.so.1. */
struct CMosquitto_api {
    int (*lib_init)(void);
    struct mosquitto *(*new_)(const char *id, bool clean_session, void *context);
    void (*destroy)(struct mosquitto *mosq);
    void (*user_data_set)(struct mosquitto *mosq, void *context);
    void (*connect_callback_set)(struct mosquitto *mosq, CMosquitto_connect_callback callback);
    void (*message_callback_set)(struct mosquitto *mosq, CMosquitto_message_callback callback);
    int (*int_option)(struct mosquitto *mosq, enum mosq_opt_t option, int value);
    int (*will_set)(struct mosquitto *mosq, const char *topic, int length, const void *payload, int qos, bool retain);
    int (*username_pw_set)(struct mosquitto *mosq, const char *username, const char *password);
    int (*tls_set)(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile,
                   const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata));
    int (*connect)(struct mosquitto *mosq, const char *host, int port, int keepalive);
    int (*publish)(struct mosquitto *mosq, int *mid, const char *topic, int length, const void *payload, int qos,
                   bool retain);
    int (*subscribe)(struct mosquitto *mosq, int *mid, const char *pattern, int qos);
    int (*disconnect)(struct mosquitto *mosq);
    int (*socket)(struct mosquitto *mosq);
    bool (*want_write)(struct mosquitto *mosq);
    int (*loop_read)(struct mosquitto *mosq, int max_packets);
    int (*loop_write)(struct mosquitto *mosq, int max_packets);
    int (*loop_misc)(struct mosquitto *mosq);
    const char *(*strerror)(int code);
    const char *(*connack_string)(int code);
};

/* Fills `api` from libmosquitto.so.1. Returns NULL, or dlerror's message when the library or a symbol is missing.
 * The library stays loaded for the life of the process. */
static inline const char *CMosquitto_load(struct CMosquitto_api *api) {
    const char *failure = NULL;
    void *library = CLoader_open("libmosquitto.so.1", &failure);
    CLoader_resolve(library, (void **)&api->lib_init, "mosquitto_lib_init", &failure);
    CLoader_resolve(library, (void **)&api->new_, "mosquitto_new", &failure);
    CLoader_resolve(library, (void **)&api->destroy, "mosquitto_destroy", &failure);
    CLoader_resolve(library, (void **)&api->user_data_set, "mosquitto_user_data_set", &failure);
    CLoader_resolve(library, (void **)&api->connect_callback_set, "mosquitto_connect_callback_set", &failure);
    CLoader_resolve(library, (void **)&api->message_callback_set, "mosquitto_message_callback_set", &failure);
    CLoader_resolve(library, (void **)&api->int_option, "mosquitto_int_option", &failure);
    CLoader_resolve(library, (void **)&api->will_set, "mosquitto_will_set", &failure);
    CLoader_resolve(library, (void **)&api->username_pw_set, "mosquitto_username_pw_set", &failure);
    CLoader_resolve(library, (void **)&api->tls_set, "mosquitto_tls_set", &failure);
    CLoader_resolve(library, (void **)&api->connect, "mosquitto_connect", &failure);
    CLoader_resolve(library, (void **)&api->publish, "mosquitto_publish", &failure);
    CLoader_resolve(library, (void **)&api->subscribe, "mosquitto_subscribe", &failure);
    CLoader_resolve(library, (void **)&api->disconnect, "mosquitto_disconnect", &failure);
    CLoader_resolve(library, (void **)&api->socket, "mosquitto_socket", &failure);
    CLoader_resolve(library, (void **)&api->want_write, "mosquitto_want_write", &failure);
    CLoader_resolve(library, (void **)&api->loop_read, "mosquitto_loop_read", &failure);
    CLoader_resolve(library, (void **)&api->loop_write, "mosquitto_loop_write", &failure);
    CLoader_resolve(library, (void **)&api->loop_misc, "mosquitto_loop_misc", &failure);
    CLoader_resolve(library, (void **)&api->strerror, "mosquitto_strerror", &failure);
    CLoader_resolve(library, (void **)&api->connack_string, "mosquitto_connack_string", &failure);
    return failure;
}

#endif
