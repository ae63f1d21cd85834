#ifndef BREEZE_CMOSQUITTO_SHIM_H
#define BREEZE_CMOSQUITTO_SHIM_H

#include <mosquitto.h>

/* The callbacks libmosquitto calls from inside mosquitto_loop_read/loop_write, on the thread that drives it. */
typedef void (*CMosquitto_connect_callback)(struct mosquitto *mosq, void *context, int code);
typedef void (*CMosquitto_message_callback)(struct mosquitto *mosq, void *context,
                                            const struct mosquitto_message *message);

/* The protocol version option takes a pointer to an int: one real function for MQTT 3.1.1. */
static inline int CMosquitto_use_mqtt311(struct mosquitto *mosq) {
    return mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
}

#endif
