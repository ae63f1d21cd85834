#ifndef BREEZE_CDBUS_SHIM_H
#define BREEZE_CDBUS_SHIM_H

#include <dbus/dbus.h>

#endif
