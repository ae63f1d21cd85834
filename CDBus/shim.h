#ifndef BREEZE_CDBUS_SHIM_H
#define BREEZE_CDBUS_SHIM_H

#include <dbus/dbus.h>
#include <stdint.h>
#include <stdlib.h>

/* What Swift cannot import from libdbus-1 (casted constants, `const void *` arguments), as real functions. */

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
static inline dbus_bool_t CDBus_append_string(DBusMessageIter *iter, int type, const char *value) {
    return dbus_message_iter_append_basic(iter, type, &value);
}
static inline dbus_bool_t CDBus_append_uint32(DBusMessageIter *iter, uint32_t value) {
    return dbus_message_iter_append_basic(iter, DBUS_TYPE_UINT32, &value);
}
static inline dbus_bool_t CDBus_append_int32(DBusMessageIter *iter, int32_t value) {
    return dbus_message_iter_append_basic(iter, DBUS_TYPE_INT32, &value);
}
static inline dbus_bool_t CDBus_append_uint64(DBusMessageIter *iter, uint64_t value) {
    return dbus_message_iter_append_basic(iter, DBUS_TYPE_UINT64, &value);
}
static inline dbus_bool_t CDBus_append_int64(DBusMessageIter *iter, int64_t value) {
    return dbus_message_iter_append_basic(iter, DBUS_TYPE_INT64, &value);
}
static inline dbus_bool_t CDBus_append_double(DBusMessageIter *iter, double value) {
    return dbus_message_iter_append_basic(iter, DBUS_TYPE_DOUBLE, &value);
}
static inline dbus_bool_t CDBus_append_bool(DBusMessageIter *iter, int value) {
    dbus_bool_t flag = value ? TRUE : FALSE;
    return dbus_message_iter_append_basic(iter, DBUS_TYPE_BOOLEAN, &flag);
}
static inline dbus_bool_t CDBus_append_byte(DBusMessageIter *iter, uint8_t value) {
    return dbus_message_iter_append_basic(iter, DBUS_TYPE_BYTE, &value);
}

/* Reads the basic value at the iterator; the caller has checked its type. */
static inline const char *CDBus_get_string(DBusMessageIter *iter) {
    const char *value = 0;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}
static inline uint64_t CDBus_get_uint64(DBusMessageIter *iter) {
    uint64_t value = 0;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}
static inline int64_t CDBus_get_int64(DBusMessageIter *iter) {
    int64_t value = 0;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}
static inline uint32_t CDBus_get_uint32(DBusMessageIter *iter) {
    uint32_t value = 0;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}
static inline int32_t CDBus_get_int32(DBusMessageIter *iter) {
    int32_t value = 0;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}
static inline double CDBus_get_double(DBusMessageIter *iter) {
    double value = 0;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}
static inline uint8_t CDBus_get_byte(DBusMessageIter *iter) {
    uint8_t value = 0;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}

/* A DBusError on the heap, so that Swift holds a stable pointer. */
static inline DBusError *CDBus_error_new(void) {
    DBusError *error = (DBusError *)calloc(1, sizeof(DBusError));
    if (error) dbus_error_init(error);
    return error;
}
static inline void CDBus_error_free(DBusError *error) {
    if (!error) return;
    dbus_error_free(error);
    free(error);
}

#endif
