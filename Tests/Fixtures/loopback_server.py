"""Serving a fixture on 127.0.0.1: HTTP, or HTTPS with a certificate and its key; the port printed first."""
import ssl
from http.server import ThreadingHTTPServer


def serve(handler, port=0, certificate=None, key=None):
    """Serves `handler` on 127.0.0.1:`port` (0 for any free port) until killed, after printing the port."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    if certificate and key:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        # The handshake in the request's thread, not in accept: a client that refuses the certificate fails its
        # own connection only.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(server.server_address[1], flush=True)
    server.serve_forever()
