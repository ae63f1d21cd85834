#!/usr/bin/env python3
"""A hostile gpsd for tests: speaks enough of gpsd's JSON protocol to be watched, then floods TPV reports.

usage: gpsd-flood.py SECONDS     binds 127.0.0.1 on a free port, prints the port, serves one client at a time.

Each client gets VERSION; after its ?WATCH, TPVs as fast as it reads them for SECONDS (then the connection stays
open, silent), jumping between Sydney and London so that every report is a new place, with times 0.1 s apart.
"""
import socket
import sys
import time

seconds = float(sys.argv[1])
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(4)
print(listener.getsockname()[1], flush=True)

PLACES = [(-33.8688, 151.2093), (51.5072, -0.1276)]


def tpv(index):
    lat, lon = PLACES[index % 2]
    tenths = index
    stamp = "2024-05-01T%02d:%02d:%02d.%dZ" % (tenths // 36000 % 24, tenths // 600 % 60, tenths // 10 % 60, tenths % 10)
    return '{"class":"TPV","device":"/dev/flood","mode":3,"time":"%s","lat":%.4f,"lon":%.4f,"eph":5.0}\n' % (
        stamp, lat, lon)


while True:
    connection, _ = listener.accept()
    try:
        connection.sendall(b'{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}\n')
        connection.recv(4096)  # ?WATCH={...}
        end = time.monotonic() + seconds
        index = 0
        while time.monotonic() < end:
            connection.sendall("".join(tpv(index + k) for k in range(200)).encode())
            index += 200
        while connection.recv(4096):
            pass
    except OSError:
        pass
    finally:
        connection.close()
