#!/usr/bin/env python3
# Prints the place each time breezed names a different one. Usage: subscribe.py [SOCKET]
import json, socket, sys

path = sys.argv[1] if len(sys.argv) > 1 else "/run/breezed/breezed.sock"
conn = socket.socket(socket.AF_UNIX)
conn.connect(path)
conn.sendall(b'{"command":"watch","classes":["LOCATION"]}\n')
last = "none yet"
for line in conn.makefile(encoding="utf-8"):
    message = json.loads(line)
    if message["class"] == "LOCATION" and message["geoname_id"] != last:
        last = message["geoname_id"]
        print(message["name"] or "(no place)", flush=True)
