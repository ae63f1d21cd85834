#ifndef BREEZE_CDBUS_SHIM_H
#define BREEZE_CDBUS_SHIM_H

/* libdbus-1 is loaded with dlopen when GeoClue is first tried, not linked: linking it had every start of breezed
 * load libdbus with libsystemd, libgcrypt, libcap, liblz4, libzstd and liblzma behind it, and run their
 * initializers and relocations, for a daemon that reaches for GeoClue only when gpsd has no fix (and never with
 * --no-geoclue). The functions come from the table below.
 *
 * The types and constants are libdbus's public ABI (soname libdbus-1.so.3, unchanged since 2006), written out here
 * as dbus/dbus.h declares them, rather than included: that header needs dbus-1's include folders, and taking them
 * from pkg-config (`pkgConfig: "dbus-1"`) also links -ldbus-1 into every product, which is the load this avoids. */

#include "../CLoader/loader.h"
#include <stdint.h>
#include <stdlib.h>

typedef uint32_t dbus_uint32_t;
typedef dbus_uint32_t dbus_bool_t;
typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;

/* dbus-message.h: an iterator lives on the caller's stack; its fields are libdbus's own. */
typedef struct DBusMessageIter {
    void *dummy1;
    void *dummy2;
    dbus_uint32_t dummy3;
    int dummy4;
    int dummy5;
    int dummy6;
    int dummy7;
    int dummy8;
    int dummy9;
    int dummy10;
    int dummy11;
    int pad1;
    void *pad2;
    void *pad3;
} DBusMessageIter;

/* dbus-errors.h: `name` and `message` are public, the rest libdbus's own. */
typedef struct DBusError {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1;
    unsigned int dummy2 : 1;
    unsigned int dummy3 : 1;
    unsigned int dummy4 : 1;
    unsigned int dummy5 : 1;
    void *padding1;
} DBusError;

/* dbus-protocol.h: type codes (the signature letters) and message types. */
#define DBUS_TYPE_INVALID ((int)'\0')
#define DBUS_TYPE_BYTE ((int)'y')
#define DBUS_TYPE_BOOLEAN ((int)'b')
#define DBUS_TYPE_INT32 ((int)'i')
#define DBUS_TYPE_UINT32 ((int)'u')
#define DBUS_TYPE_INT64 ((int)'x')
#define DBUS_TYPE_UINT64 ((int)'t')
#define DBUS_TYPE_DOUBLE ((int)'d')
#define DBUS_TYPE_STRING ((int)'s')
#define DBUS_TYPE_OBJECT_PATH ((int)'o')
#define DBUS_TYPE_ARRAY ((int)'a')
#define DBUS_TYPE_VARIANT ((int)'v')
#define DBUS_TYPE_STRUCT ((int)'r')
#define DBUS_TYPE_DICT_ENTRY ((int)'e')
#define DBUS_MESSAGE_TYPE_METHOD_CALL 1
#define DBUS_MESSAGE_TYPE_METHOD_RETURN 2
#define DBUS_MESSAGE_TYPE_ERROR 3
#define DBUS_MESSAGE_TYPE_SIGNAL 4

/* The soname loaded: Debian's libdbus-1-3. */
#define CDBUS_LIBRARY "libdbus-1.so.3"

/* The functions used, resolved from CDBUS_LIBRARY: each is libdbus's dbus_<field>. */
struct CDBus_api {
    const char *(*_Nonnull bus_get_unique_name)(DBusConnection *connection);
    dbus_bool_t (*_Nonnull bus_register)(DBusConnection *connection, DBusError *error);
    void (*_Nonnull connection_close)(DBusConnection *connection);
    dbus_bool_t (*_Nonnull connection_get_is_connected)(DBusConnection *connection);
    dbus_bool_t (*_Nonnull connection_get_unix_fd)(DBusConnection *connection, int *fd);
    dbus_bool_t (*_Nonnull connection_has_messages_to_send)(DBusConnection *connection);
    DBusConnection *(*_Nonnull connection_open_private)(const char *address, DBusError *error);
    DBusMessage *(*_Nonnull connection_pop_message)(DBusConnection *connection);
    dbus_bool_t (*_Nonnull connection_read_write)(DBusConnection *connection, int timeout_milliseconds);
    dbus_bool_t (*_Nonnull connection_send)(DBusConnection *connection, DBusMessage *message,
                                            dbus_uint32_t *client_serial);
    void (*_Nonnull connection_set_exit_on_disconnect)(DBusConnection *connection, dbus_bool_t exit_on_disconnect);
    void (*_Nonnull connection_unref)(DBusConnection *connection);
    void (*_Nonnull free)(void *memory);
    void (*_Nonnull error_init)(DBusError *error);
    void (*_Nonnull error_free)(DBusError *error);
    const char *(*_Nonnull message_get_error_name)(DBusMessage *message);
    const char *(*_Nonnull message_get_interface)(DBusMessage *message);
    const char *(*_Nonnull message_get_member)(DBusMessage *message);
    dbus_bool_t (*_Nonnull message_get_no_reply)(DBusMessage *message);
    const char *(*_Nonnull message_get_path)(DBusMessage *message);
    dbus_uint32_t (*_Nonnull message_get_reply_serial)(DBusMessage *message);
    const char *(*_Nonnull message_get_sender)(DBusMessage *message);
    int (*_Nonnull message_get_type)(DBusMessage *message);
    void (*_Nonnull message_iter_abandon_container)(DBusMessageIter *iter, DBusMessageIter *sub);
    dbus_bool_t (*_Nonnull message_iter_append_basic)(DBusMessageIter *iter, int type, const void *value);
    dbus_bool_t (*_Nonnull message_iter_close_container)(DBusMessageIter *iter, DBusMessageIter *sub);
    int (*_Nonnull message_iter_get_arg_type)(DBusMessageIter *iter);
    void (*_Nonnull message_iter_get_basic)(DBusMessageIter *iter, void *value);
    char *(*_Nonnull message_iter_get_signature)(DBusMessageIter *iter);
    dbus_bool_t (*_Nonnull message_iter_init)(DBusMessage *message, DBusMessageIter *iter);
    void (*_Nonnull message_iter_init_append)(DBusMessage *message, DBusMessageIter *iter);
    dbus_bool_t (*_Nonnull message_iter_next)(DBusMessageIter *iter);
    dbus_bool_t (*_Nonnull message_iter_open_container)(DBusMessageIter *iter, int type,
                                                        const char *contained_signature, DBusMessageIter *sub);
    void (*_Nonnull message_iter_recurse)(DBusMessageIter *iter, DBusMessageIter *sub);
    DBusMessage *(*_Nonnull message_new_error)(DBusMessage *reply_to, const char *error_name,
                                               const char *error_message);
    DBusMessage *(*_Nonnull message_new_method_call)(const char *bus_name, const char *path, const char *iface,
                                                     const char *method);
    DBusMessage *(*_Nonnull message_new_method_return)(DBusMessage *method_call);
    DBusMessage *(*_Nonnull message_new_signal)(const char *path, const char *iface, const char *name);
    void (*_Nonnull message_unref)(DBusMessage *message);
    dbus_bool_t (*_Nonnull threads_init_default)(void);
    dbus_bool_t (*_Nonnull validate_bus_name)(const char *name, DBusError *error);
    dbus_bool_t (*_Nonnull validate_interface)(const char *name, DBusError *error);
    dbus_bool_t (*_Nonnull validate_member)(const char *name, DBusError *error);
    dbus_bool_t (*_Nonnull validate_path)(const char *path, DBusError *error);
};

/* A table filled from CDBUS_LIBRARY, or NULL with `failure` set to dlerror's message (or to "out of memory") when
 * the library or a symbol is missing. The library and the table stay for the life of the process. */
static inline const struct CDBus_api *CDBus_load(const char **failure) {
    *failure = NULL;
    void *library = CLoader_open(CDBUS_LIBRARY, failure);
    if (library == NULL) return NULL;
    struct CDBus_api *api = (struct CDBus_api *)calloc(1, sizeof(struct CDBus_api));
    if (api == NULL) {
        *failure = "out of memory";
        return NULL;
    }
    CLoader_resolve(library, (void **)&api->bus_get_unique_name, "dbus_bus_get_unique_name", failure);
    CLoader_resolve(library, (void **)&api->bus_register, "dbus_bus_register", failure);
    CLoader_resolve(library, (void **)&api->connection_close, "dbus_connection_close", failure);
    CLoader_resolve(library, (void **)&api->connection_get_is_connected, "dbus_connection_get_is_connected", failure);
    CLoader_resolve(library, (void **)&api->connection_get_unix_fd, "dbus_connection_get_unix_fd", failure);
    CLoader_resolve(library, (void **)&api->connection_has_messages_to_send, "dbus_connection_has_messages_to_send", failure);
    CLoader_resolve(library, (void **)&api->connection_open_private, "dbus_connection_open_private", failure);
    CLoader_resolve(library, (void **)&api->connection_pop_message, "dbus_connection_pop_message", failure);
    CLoader_resolve(library, (void **)&api->connection_read_write, "dbus_connection_read_write", failure);
    CLoader_resolve(library, (void **)&api->connection_send, "dbus_connection_send", failure);
    CLoader_resolve(library, (void **)&api->connection_set_exit_on_disconnect, "dbus_connection_set_exit_on_disconnect", failure);
    CLoader_resolve(library, (void **)&api->connection_unref, "dbus_connection_unref", failure);
    CLoader_resolve(library, (void **)&api->free, "dbus_free", failure);
    CLoader_resolve(library, (void **)&api->error_init, "dbus_error_init", failure);
    CLoader_resolve(library, (void **)&api->error_free, "dbus_error_free", failure);
    CLoader_resolve(library, (void **)&api->message_get_error_name, "dbus_message_get_error_name", failure);
    CLoader_resolve(library, (void **)&api->message_get_interface, "dbus_message_get_interface", failure);
    CLoader_resolve(library, (void **)&api->message_get_member, "dbus_message_get_member", failure);
    CLoader_resolve(library, (void **)&api->message_get_no_reply, "dbus_message_get_no_reply", failure);
    CLoader_resolve(library, (void **)&api->message_get_path, "dbus_message_get_path", failure);
    CLoader_resolve(library, (void **)&api->message_get_reply_serial, "dbus_message_get_reply_serial", failure);
    CLoader_resolve(library, (void **)&api->message_get_sender, "dbus_message_get_sender", failure);
    CLoader_resolve(library, (void **)&api->message_get_type, "dbus_message_get_type", failure);
    CLoader_resolve(library, (void **)&api->message_iter_abandon_container, "dbus_message_iter_abandon_container", failure);
    CLoader_resolve(library, (void **)&api->message_iter_append_basic, "dbus_message_iter_append_basic", failure);
    CLoader_resolve(library, (void **)&api->message_iter_close_container, "dbus_message_iter_close_container", failure);
    CLoader_resolve(library, (void **)&api->message_iter_get_arg_type, "dbus_message_iter_get_arg_type", failure);
    CLoader_resolve(library, (void **)&api->message_iter_get_basic, "dbus_message_iter_get_basic", failure);
    CLoader_resolve(library, (void **)&api->message_iter_get_signature, "dbus_message_iter_get_signature", failure);
    CLoader_resolve(library, (void **)&api->message_iter_init, "dbus_message_iter_init", failure);
    CLoader_resolve(library, (void **)&api->message_iter_init_append, "dbus_message_iter_init_append", failure);
    CLoader_resolve(library, (void **)&api->message_iter_next, "dbus_message_iter_next", failure);
    CLoader_resolve(library, (void **)&api->message_iter_open_container, "dbus_message_iter_open_container", failure);
    CLoader_resolve(library, (void **)&api->message_iter_recurse, "dbus_message_iter_recurse", failure);
    CLoader_resolve(library, (void **)&api->message_new_error, "dbus_message_new_error", failure);
    CLoader_resolve(library, (void **)&api->message_new_method_call, "dbus_message_new_method_call", failure);
    CLoader_resolve(library, (void **)&api->message_new_method_return, "dbus_message_new_method_return", failure);
    CLoader_resolve(library, (void **)&api->message_new_signal, "dbus_message_new_signal", failure);
    CLoader_resolve(library, (void **)&api->message_unref, "dbus_message_unref", failure);
    CLoader_resolve(library, (void **)&api->threads_init_default, "dbus_threads_init_default", failure);
    CLoader_resolve(library, (void **)&api->validate_bus_name, "dbus_validate_bus_name", failure);
    CLoader_resolve(library, (void **)&api->validate_interface, "dbus_validate_interface", failure);
    CLoader_resolve(library, (void **)&api->validate_member, "dbus_validate_member", failure);
    CLoader_resolve(library, (void **)&api->validate_path, "dbus_validate_path", failure);
    if (*failure != NULL) {
        free(api);
        return NULL;
    }
    return api;
}

/* The soname, for messages. */
static inline const char *CDBus_library_name(void) {
    return CDBUS_LIBRARY;
}

/* What Swift cannot import (casted constants, `const void *` arguments), as real functions. */

static inline int CDBus_TYPE_INVALID(void) { return DBUS_TYPE_INVALID; }
static inline int CDBus_TYPE_BYTE(void) { return DBUS_TYPE_BYTE; }
static inline int CDBus_TYPE_BOOLEAN(void) { return DBUS_TYPE_BOOLEAN; }
static inline int CDBus_TYPE_INT32(void) { return DBUS_TYPE_INT32; }
static inline int CDBus_TYPE_UINT32(void) { return DBUS_TYPE_UINT32; }
static inline int CDBus_TYPE_INT64(void) { return DBUS_TYPE_INT64; }
static inline int CDBus_TYPE_UINT64(void) { return DBUS_TYPE_UINT64; }
static inline int CDBus_TYPE_DOUBLE(void) { return DBUS_TYPE_DOUBLE; }
static inline int CDBus_TYPE_STRING(void) { return DBUS_TYPE_STRING; }
static inline int CDBus_TYPE_OBJECT_PATH(void) { return DBUS_TYPE_OBJECT_PATH; }
static inline int CDBus_TYPE_VARIANT(void) { return DBUS_TYPE_VARIANT; }
static inline int CDBus_TYPE_ARRAY(void) { return DBUS_TYPE_ARRAY; }
static inline int CDBus_TYPE_STRUCT(void) { return DBUS_TYPE_STRUCT; }
static inline int CDBus_TYPE_DICT_ENTRY(void) { return DBUS_TYPE_DICT_ENTRY; }

static inline int CDBus_MESSAGE_TYPE_METHOD_CALL(void) { return DBUS_MESSAGE_TYPE_METHOD_CALL; }
static inline int CDBus_MESSAGE_TYPE_METHOD_RETURN(void) { return DBUS_MESSAGE_TYPE_METHOD_RETURN; }
static inline int CDBus_MESSAGE_TYPE_ERROR(void) { return DBUS_MESSAGE_TYPE_ERROR; }
static inline int CDBus_MESSAGE_TYPE_SIGNAL(void) { return DBUS_MESSAGE_TYPE_SIGNAL; }

/* Appends a basic value; returns FALSE when out of memory. */
static inline dbus_bool_t CDBus_append_string(const struct CDBus_api *api, DBusMessageIter *iter, int type,
                                               const char *value) {
    return api->message_iter_append_basic(iter, type, &value);
}
static inline dbus_bool_t CDBus_append_uint32(const struct CDBus_api *api, DBusMessageIter *iter, uint32_t value) {
    return api->message_iter_append_basic(iter, DBUS_TYPE_UINT32, &value);
}
static inline dbus_bool_t CDBus_append_int32(const struct CDBus_api *api, DBusMessageIter *iter, int32_t value) {
    return api->message_iter_append_basic(iter, DBUS_TYPE_INT32, &value);
}
static inline dbus_bool_t CDBus_append_uint64(const struct CDBus_api *api, DBusMessageIter *iter, uint64_t value) {
    return api->message_iter_append_basic(iter, DBUS_TYPE_UINT64, &value);
}
static inline dbus_bool_t CDBus_append_int64(const struct CDBus_api *api, DBusMessageIter *iter, int64_t value) {
    return api->message_iter_append_basic(iter, DBUS_TYPE_INT64, &value);
}
static inline dbus_bool_t CDBus_append_double(const struct CDBus_api *api, DBusMessageIter *iter, double value) {
    return api->message_iter_append_basic(iter, DBUS_TYPE_DOUBLE, &value);
}
static inline dbus_bool_t CDBus_append_bool(const struct CDBus_api *api, DBusMessageIter *iter, int value) {
    dbus_bool_t flag = value ? 1 : 0;
    return api->message_iter_append_basic(iter, DBUS_TYPE_BOOLEAN, &flag);
}
static inline dbus_bool_t CDBus_append_byte(const struct CDBus_api *api, DBusMessageIter *iter, uint8_t value) {
    return api->message_iter_append_basic(iter, DBUS_TYPE_BYTE, &value);
}

/* Reads the basic value at the iterator; the caller has checked its type. */
static inline const char *CDBus_get_string(const struct CDBus_api *api, DBusMessageIter *iter) {
    const char *value = 0;
    api->message_iter_get_basic(iter, &value);
    return value;
}
static inline uint64_t CDBus_get_uint64(const struct CDBus_api *api, DBusMessageIter *iter) {
    uint64_t value = 0;
    api->message_iter_get_basic(iter, &value);
    return value;
}
static inline int64_t CDBus_get_int64(const struct CDBus_api *api, DBusMessageIter *iter) {
    int64_t value = 0;
    api->message_iter_get_basic(iter, &value);
    return value;
}
static inline uint32_t CDBus_get_uint32(const struct CDBus_api *api, DBusMessageIter *iter) {
    uint32_t value = 0;
    api->message_iter_get_basic(iter, &value);
    return value;
}
static inline int32_t CDBus_get_int32(const struct CDBus_api *api, DBusMessageIter *iter) {
    int32_t value = 0;
    api->message_iter_get_basic(iter, &value);
    return value;
}
static inline double CDBus_get_double(const struct CDBus_api *api, DBusMessageIter *iter) {
    double value = 0;
    api->message_iter_get_basic(iter, &value);
    return value;
}
static inline uint8_t CDBus_get_byte(const struct CDBus_api *api, DBusMessageIter *iter) {
    uint8_t value = 0;
    api->message_iter_get_basic(iter, &value);
    return value;
}

/* A DBusError on the heap, so that Swift holds a stable pointer. */
static inline DBusError *CDBus_error_new(const struct CDBus_api *api) {
    DBusError *error = (DBusError *)calloc(1, sizeof(DBusError));
    if (error) api->error_init(error);
    return error;
}
static inline void CDBus_error_free(const struct CDBus_api *api, DBusError *error) {
    if (!error) return;
    api->error_free(error);
    free(error);
}

#endif
