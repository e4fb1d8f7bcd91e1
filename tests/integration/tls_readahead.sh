#!/bin/bash
# tls_readahead.sh - imtcp's TLS sessions read the socket ahead, up to
# 256 KiB at a time, and serve gnutls from that buffer; at most 1 MiB is
# read per wake-up. Bytes read ahead are invisible to epoll, so every
# message must still arrive while its sender keeps the connection open
# and sends nothing more (a session that yielded with bytes in its
# buffer would hold them until the peer sends again or closes):
#   1. one connection sends 40,000 octet-counted messages (~6 MB) in one
#      burst and then waits, connection open, until all are in the file;
#   2. the same connection then sends one more message and waits for it;
#   3. 20 connections at once send 3,000 messages each in bursts of
#      random size with pauses between them, all kept open until every
#      message has arrived.
# Each line's content is compared with what was sent, in order per
# connection.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/integration/tls_lib.sh"

command -v python3 >/dev/null || skip "python3 not found"
tls_make_pki

cat >"$TESTDIR/test.conf" <<EOF
global(defaultNetstreamDriverCAFile="$PKI/ca.pem"
       defaultNetstreamDriverCertFile="$PKI/server.pem"
       defaultNetstreamDriverKeyFile="$PKI/server-key.pem")
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="r")
ruleset(name="r") { action(type="omfile" file="$TESTDIR/out.log" template="msgonly") }
EOF
start_sluiced "$TESTDIR/test.conf"

cat >"$TESTDIR/client.py" <<'EOF'
import os, random, socket, ssl, sys, threading, time

port, out = int(sys.argv[1]), sys.argv[2]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE

def connect():
    s = socket.create_connection(("127.0.0.1", port))
    return ctx.wrap_socket(s)

def body(tag, i):
    pad = "x" * (i * 7919 % 150)
    return "%s:%06d:%s" % (tag, i, pad)

def frame(text):
    m = ("<13>Nov 22 10:00:00 host app: " + text).encode()
    return b"%d %s" % (len(m), m)

def lines():
    try:
        with open(out, "rb") as f:  # %msg% keeps the space after "app:"
            return [l[1:] if l.startswith(" ") else l for l in f.read().decode().splitlines()]
    except FileNotFoundError:
        return []

def wait_for(n, what):
    deadline = time.time() + 30
    while time.time() < deadline:
        got = len(lines())
        if got >= n:
            return
        time.sleep(0.1)
    sys.exit("%s: only %d of %d lines arrived while the connections stayed open"
             % (what, len(lines()), n))

expected = []
# 1 + 2: one big burst, then silence; then one more message
c = connect()
burst = [body("big", i) for i in range(40000)]
c.sendall(b"".join(frame(t) for t in burst))
expected += burst
wait_for(len(expected), "one burst of 40,000")
c.sendall(frame(body("one", 0)))
expected.append(body("one", 0))
wait_for(len(expected), "one more message")

# 3: 20 connections, bursts of random size with pauses
conns = [connect() for _ in range(20)]
def sender(k, s):
    rnd = random.Random(k)
    i = 0
    while i < 3000:
        n = min(rnd.randint(1, 600), 3000 - i)
        s.sendall(b"".join(frame(body("c%02d" % k, j)) for j in range(i, i + n)))
        i += n
        time.sleep(rnd.random() * 0.02)
threads = [threading.Thread(target=sender, args=(k, s)) for k, s in enumerate(conns)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for k in range(20):
    expected += [body("c%02d" % k, j) for j in range(3000)]
wait_for(len(expected), "20 connections")

got = lines()
# per connection in order; connections interleave in the file
def by_tag(ls):
    d = {}
    for l in ls:
        d.setdefault(l.split(":")[0], []).append(l)
    return d
if by_tag(got) != by_tag(expected) or len(got) != len(expected):
    g, e = by_tag(got), by_tag(expected)
    for tag in sorted(set(g) | set(e)):
        if g.get(tag) != e.get(tag):
            gl, el = g.get(tag, []), e.get(tag, [])
            bad = next((i for i in range(min(len(gl), len(el))) if gl[i] != el[i]), min(len(gl), len(el)))
            sys.exit("connection %s: %d lines, expected %d; first difference at %d: %r vs %r"
                     % (tag, len(gl), len(el), bad, gl[bad] if bad < len(gl) else None,
                        el[bad] if bad < len(el) else None))
for s in [c] + conns:
    s.close()
print("ok %d" % len(got))
EOF
python3 "$TESTDIR/client.py" "$PORT" "$TESTDIR/out.log" ||
	fail "expected every message while the TLS connections stayed open, see above"
stop_daemon
log "ok"
