#!/bin/bash
# imtcp_hostile.sh - imtcp under hostile traffic. While 1,000 concurrent
# plain TCP connections send 100 messages each (all must arrive exactly
# once) the same listener also gets: 20 idle connections, a slow sender
# (one byte every 20 ms), a huge octet count ("99999999999999999999 " +
# 50,000 bytes), an octet count just over maxFrameSize, and 200 KB of
# random garbage — after each of which the same connection sends a good
# message that must arrive. A second listener with maxSessions=4 gets 30
# concurrent connections: exactly 26 must be refused and counted (both
# listeners run several epoll threads: workerThreads). A TLS
# listener gets a client that stalls mid-handshake; meanwhile 10 TLS
# clients send 10,000 messages that must all arrive, and the stalled
# client must be dropped after the handshake timeout, logged with its IP.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

NCONN=${NCONN:-1000}
PERCONN=${PERCONN:-100}
N=$((NCONN * PERCONN))
NTLS=10000
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "this test reads sluiced's statistics"
[ "$(ulimit -n)" -ge $((2 * NCONN + 200)) ] || ulimit -n $((2 * NCONN + 200)) 2>/dev/null ||
	skip "needs $((2 * NCONN + 200)) file descriptors, ulimit -n is $(ulimit -n)"
TLS=1
"$TCPFLOOD" -T tls -p 1 -m 1 2>&1 | grep -q "without gnutls" && TLS=0
if [ "$TLS" = 1 ]; then
	. "$srcdir/tests/integration/tls_lib.sh"
	tls_make_pki
fi

PORT2=$(get_free_port)
PORT3=$(get_free_port)
cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" name="main" maxSessions="$((NCONN + 100))" ruleset="main"
      workerThreads="2")
input(type="imtcp" port="$PORT2" address="127.0.0.1" name="small" maxSessions="4" ruleset="main"
      workerThreads="3")
ruleset(name="main") {
	if \$msg contains "msgnum:" then
		action(type="omfile" file="$TESTDIR/flood.log" template="msgonly")
	else
		action(type="omfile" file="$TESTDIR/hostile.log" template="msgonly")
}
EOF
if [ "$TLS" = 1 ]; then
	cat >>"$TESTDIR/test.conf" <<EOF
input(type="imtcp" port="$PORT3" address="127.0.0.1" name="tls" ruleset="tls"
      streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon"
      streamDriver.certfile="$PKI/server.pem" streamDriver.keyfile="$PKI/server-key.pem")
ruleset(name="tls") { action(type="omfile" file="$TESTDIR/tls.log" template="msgonly") }
EOF
fi
start_dut "$TESTDIR/test.conf"
SLOG=$TESTDIR/sluiced.$PORT.log

# the hostile clients, in the background
python3 - "$PORT" "$PORT2" "$PORT3" "$TLS" "$TESTDIR/ready" >"$TESTDIR/hostile.out" 2>&1 <<'EOF' &
import random, socket, sys, threading, time
port, port2, port3, tls, ready = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
def conn(p):
    return socket.create_connection(("127.0.0.1", p), timeout=30)
def good(tag):
    return b"<13>Mar  1 01:00:00 hostile x: " + tag + b"\n"
idle = [conn(port) for _ in range(20)]
stall = None
if tls:
    stall = conn(port3)
    stall.sendall(b"\x16\x03\x01")          # a TLS record header, then nothing
flood = [conn(port2) for _ in range(30)]    # maxSessions=4 on this listener
time.sleep(0.5)
open(ready, "w").write("ready\n")
def slow():
    s = conn(port)
    for b in good(b"slow-sender-line"):
        s.send(bytes([b])); time.sleep(0.02)
    s.close()
t = threading.Thread(target=slow); t.start()
s = conn(port)                              # huge octet count
s.sendall(b"99999999999999999999 " + b"A" * 50000 + b"\n" + good(b"after-huge-count")); s.close()
s = conn(port)                              # just over maxFrameSize
s.sendall(b"200001 xyz\n" + good(b"after-large-count")); s.close()
s = conn(port)                              # garbage
rnd = random.Random(5)
s.sendall(bytes(rnd.getrandbits(8) for _ in range(200000)) + b"\n" + good(b"after-garbage")); s.close()
t.join()
time.sleep(2)
for c in flood: c.close()
time.sleep(12)                              # past the 10 s handshake timeout
for c in idle: c.close()
if stall:
    stall.settimeout(1)
    try:
        print("stalled client got", repr(stall.recv(100)))
    except OSError as e:
        print("stalled client:", e)
print("hostile done")
EOF
HPID=$!
_SL_PIDS="$_SL_PIDS $HPID"
for ((i = 0; i < 100; i++)); do [ -f "$TESTDIR/ready" ] && break; sleep 0.1; done
[ -f "$TESTDIR/ready" ] || fail "expected the hostile clients to connect, got: $(cat "$TESTDIR/hostile.out")"

"$TCPFLOOD" -p "$PORT" -c "$NCONN" -m "$N" -q ||
	fail "expected tcpflood to send $N messages over $NCONN connections, got exit status $?"
if [ "$TLS" = 1 ]; then
	"$TCPFLOOD" -T tls -p "$PORT3" -c 10 -m "$NTLS" -F oc -q ||
		fail "expected tcpflood to send $NTLS TLS messages while a client stalls mid-handshake, got exit status $?"
	wait_lines "$TESTDIR/tls.log" "$NTLS" 60
	grep -q "handshake not complete" "$SLOG" &&
		fail "expected the stalled handshake still pending while the TLS flood ran, got it dropped already"
fi
wait_lines "$TESTDIR/flood.log" "$N" 120
wait_lines "$TESTDIR/hostile.log" 4 30
for ((i = 0; i < 300; i++)); do kill -0 "$HPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$HPID" 2>/dev/null && fail "expected the hostile clients to finish within 30 s, got a hang"
wait "$HPID" || fail "expected the hostile clients to run cleanly, got: $(cat "$TESTDIR/hostile.out")"
stop_daemon

got=$(count_lines "$TESTDIR/flood.log")
[ "$got" = "$N" ] || fail "expected $N lines in flood.log, got $got"
python3 "$CHECK_SEQ" "$TESTDIR/flood.log" --expect "$N" ||
	fail "expected msgnum 0..$((N - 1)) each exactly once (check_seq above)"
for tag in slow-sender-line after-huge-count after-large-count after-garbage; do
	grep -qxF " $tag" "$TESTDIR/hostile.log" ||
		fail "expected a line ' $tag' in hostile.log, got none"
done
grep -q "imtcp small port $PORT2: statistics: .* sessions.refused=26 " "$SLOG" ||
	fail "expected exactly 26 refused sessions counted on the maxSessions=4 listener, got: $(grep "small port" "$SLOG" | tail -n2)"
grep -q "too many tcp sessions (maxSessions=4) - dropping incoming request from 127.0.0.1" "$SLOG" ||
	fail "expected the maxSessions refusal to be logged with the peer, got none"
stats=$(grep "imtcp main port $PORT: statistics:" "$SLOG")
[[ "$stats" =~ framing.errors=([1-9][0-9]*) ]] ||
	fail "expected framing errors counted on the main listener, got: '$stats'"
[[ "$stats" =~ truncated=([1-9][0-9]*) ]] ||
	fail "expected truncated frames counted on the main listener, got: '$stats'"
if [ "$TLS" = 1 ]; then
	got=$(count_lines "$TESTDIR/tls.log")
	[ "$got" = "$NTLS" ] || fail "expected $NTLS lines in tls.log, got $got"
	python3 "$CHECK_SEQ" "$TESTDIR/tls.log" --expect "$NTLS" ||
		fail "expected TLS msgnum 0..$((NTLS - 1)) each exactly once (check_seq above)"
	grep -q "TLS session from peer 127.0.0.1 refused: handshake not complete after 10 s" "$SLOG" ||
		fail "expected the stalled TLS handshake to be dropped and logged with the peer, got: $(grep -i tls "$SLOG" | tail -n3)"
	grep -q "imtcp tls port $PORT3: statistics: .* tls.established=10 tls.failed=0 tls.timeout=1 " "$SLOG" ||
		fail "expected 10 TLS sessions and 1 handshake timeout counted, got: $(grep "tls port" "$SLOG" | tail -n1)"
fi
log "ok: $N messages over $NCONN connections plus hostile clients via $DUT_NAME (TLS part: $TLS)"
exit 0
