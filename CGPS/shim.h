#ifndef BREEZE_CGPS_SHIM_H
#define BREEZE_CGPS_SHIM_H

#include <gps.h>

#endif
