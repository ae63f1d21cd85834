#!/usr/bin/env python3
"""Serves NMEA sentences on a Unix socket for GeoClue's network-nmea source (tests).

usage: nmea-socket.py PATH     then commands on standard input, one per line:
  fix LAT LON     send a fix at LAT, LON (decimal degrees) from now on, twice a second
  nofix           send sentences without a fix from now on
Prints "ready" once the socket listens.
"""
import os
import socket
import sys
import threading
import time

path = sys.argv[1]
state = {"fix": None}
lock = threading.Lock()


def sentence(body):
    checksum = 0
    for char in body.encode():
        checksum ^= char
    return "$%s*%02X\r\n" % (body, checksum)


def angle(value, width, positive, negative):
    magnitude = abs(value)
    degrees = int(magnitude)
    return "%0*d%07.4f,%s" % (width, degrees, (magnitude - degrees) * 60, positive if value >= 0 else negative)


def serve(connection):
    try:
        while True:
            with lock:
                fix = state["fix"]
            now = time.strftime("%H%M%S.00", time.gmtime())
            if fix:
                body = "GPGGA,%s,%s,%s,1,08,0.9,545.4,M,46.9,M,," % (now, angle(fix[0], 2, "N", "S"), angle(fix[1], 3, "E", "W"))
            else:
                body = "GPGGA,%s,,,,,0,00,,,M,,M,," % now
            connection.sendall(sentence(body).encode())
            time.sleep(0.5)
    except OSError:
        pass


def accept(listener):
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


if os.path.exists(path):
    os.unlink(path)
listener = socket.socket(socket.AF_UNIX)
listener.bind(path)
os.chmod(path, 0o777)
listener.listen(8)
threading.Thread(target=accept, args=(listener,), daemon=True).start()
print("ready", flush=True)
for line in sys.stdin:
    words = line.split()
    with lock:
        if words[:1] == ["fix"] and len(words) == 3:
            state["fix"] = (float(words[1]), float(words[2]))
        elif words[:1] == ["nofix"]:
            state["fix"] = None
