#!/usr/bin/env python3
"""A loopback server for the HTTP client's redirect and TLS tests.

Binds 127.0.0.1 on any free port and prints the port on the first line of standard output. With a certificate and
its key (PEM files) as arguments it serves HTTPS, else HTTP.

  GET /final         200, a small JSON body
  GET /302           302 to /final
  GET /301           301 to /302
  GET /loop/N        302 to /loop/N+1, without end
  GET /file          302 to file:///etc/passwd
  GET /_loops        how many /loop requests were served, as a JSON number
  GET /headers/N     200 after N filler headers of about 70 bytes each
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler

from loopback_server import serve

LOCK = threading.Lock()
LOOPS = [0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", location=None):
        self.send_response(status)
        if location is not None:
            self.send_header("Location", location)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/final":
            self.send(200, b'{"final": true}')
        elif path == "/302":
            self.send(302, location="/final")
        elif path == "/301":
            self.send(301, location="/302")
        elif path.startswith("/loop/"):
            with LOCK:
                LOOPS[0] += 1
            step = int(path[len("/loop/"):])
            self.send(302, location="/loop/%d" % (step + 1))
        elif path == "/file":
            self.send(302, location="file:///etc/passwd")
        elif path.startswith("/headers/"):
            self.send_response(200)
            for index in range(int(path[len("/headers/"):])):
                self.send_header("X-Filler", "%06d %s" % (index, "f" * 56))
            body = b'{"final": true}'
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/_loops":
            with LOCK:
                count = LOOPS[0]
            self.send(200, json.dumps(count).encode())
        else:
            self.send(404, b'{"error": "not found"}')


def main():
    serve(Handler, 0, *sys.argv[1:3])


if __name__ == "__main__":
    main()
