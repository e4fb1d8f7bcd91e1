#!/usr/bin/env python3
"""es_auth_proxy.py - a small HTTP reverse proxy for the omelasticsearch
service tests, in front of a real Elasticsearch on 127.0.0.1.

  es_auth_proxy.py --port P --upstream 127.0.0.1:ESPORT --log FILE
                   [--auth USER:PASSWORD] [--delay-first N:MS]

- With --auth, every request must carry "Authorization: Basic ..." with
  exactly these credentials; otherwise it gets 401 with a body shaped like
  Elasticsearch's security_exception and is not forwarded.
- Requests are forwarded with http.client; the request body is streamed
  (read and sent in 64 KiB pieces), the answer is relayed with its status,
  Content-Type and Content-Length. Connections are kept alive (HTTP/1.1).
- --delay-first N:MS holds each of the first N POSTs to _bulk for MS
  milliseconds before forwarding it (to make a client time out).
- Every request appends one line to --log: "conn=C method=M path=P
  status=S auth=ok|bad|none", C numbering the accepted TCP connections, so
  a test counts requests per endpoint and new connections.

Threading model: ThreadingHTTPServer, one thread per client connection,
each with its own upstream connection; the log file and the counters are
shared under one lock.
"""
import argparse
import base64
import http.client
import http.server
import sys
import threading
import time

LOCK = threading.Lock()
STATE = {"conns": 0, "delayed": 0}
CHUNK = 65536


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--upstream", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--auth")
    p.add_argument("--delay-first", default="0:0")
    return p.parse_args()


ARGS = parse_args()
UP_HOST, UP_PORT = ARGS.upstream.rsplit(":", 1)
WANT_AUTH = ("Basic " + base64.b64encode(ARGS.auth.encode()).decode()) if ARGS.auth else None
DELAY_N, DELAY_MS = (int(x) for x in ARGS.delay_first.split(":"))
LOGF = open(ARGS.log, "a", buffering=1)


def log_line(text):
    with LOCK:
        LOGF.write(text + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        with LOCK:
            STATE["conns"] += 1
            self.conn_no = STATE["conns"]
        self.upstream = None

    def finish(self):
        super().finish()
        if self.upstream:
            self.upstream.close()

    def log_message(self, fmt, *args):  # quiet: our own log only
        pass

    def reply(self, status, ctype, body):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="security", charset="UTF-8"')
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        got = self.headers.get("Authorization")
        auth = "none" if got is None else ("ok" if got == WANT_AUTH else "bad")
        if WANT_AUTH and auth != "ok":
            # drain the body so the connection stays usable
            left = length
            while left > 0:
                left -= len(self.rfile.read(min(CHUNK, left)))
            body = (b'{"error":{"root_cause":[{"type":"security_exception","reason":'
                    b'"unable to authenticate user"}],"type":"security_exception",'
                    b'"reason":"unable to authenticate user"},"status":401}')
            self.reply(401, "application/json", body)
            log_line("conn=%d method=%s path=%s status=401 auth=%s"
                     % (self.conn_no, self.command, self.path, auth))
            return
        if self.command == "POST" and "_bulk" in self.path and DELAY_N:
            with LOCK:
                hold = STATE["delayed"] < DELAY_N
                if hold:
                    STATE["delayed"] += 1
            if hold:
                time.sleep(DELAY_MS / 1000.0)
        if self.upstream is None:
            self.upstream = http.client.HTTPConnection(UP_HOST, int(UP_PORT), timeout=120)
        up = self.upstream
        up.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
        for k, v in self.headers.items():
            if k.lower() not in ("authorization", "connection", "expect"):
                up.putheader(k, v)
        up.endheaders()
        left = length
        while left > 0:
            piece = self.rfile.read(min(CHUNK, left))
            if not piece:
                break
            up.send(piece)
            left -= len(piece)
        r = up.getresponse()
        body = r.read()
        self.reply(r.status, r.getheader("Content-Type", "application/json"), body)
        log_line("conn=%d method=%s path=%s status=%d auth=%s"
                 % (self.conn_no, self.command, self.path, r.status, auth))

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = handle_any


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(("127.0.0.1", ARGS.port), Handler)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
