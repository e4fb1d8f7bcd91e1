#!/bin/bash
# imtcp_handshake_timeout.sh - imtcp's handshakeTimeout (a sluice
# parameter; rsyslog has none): a client that connects to a TLS input and
# never sends a ClientHello is dropped after handshakeTimeout seconds,
# counted and logged with its address; on an input with the default (10 s)
# the same client is still connected at that time. A real TLS client
# (tcpflood -T tls) is served meanwhile on the short-timeout input.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/integration/tls_lib.sh"

require_tool tcpflood "$TCPFLOOD"
"$TCPFLOOD" -T tls -p 1 -m 1 2>&1 | grep -q "without gnutls" && skip "tcpflood built without gnutls"
[ "$DUT_NAME" = sluiced ] || skip "handshakeTimeout is a sluice parameter"
tls_make_pki

PORT2=$(get_free_port)
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<EOF
global(defaultNetstreamDriverCAFile="$PKI/ca.pem")
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon"
       streamDriver.certfile="$PKI/server.pem" streamDriver.keyfile="$PKI/server-key.pem")
input(type="imtcp" port="$PORT" address="127.0.0.1" handshakeTimeout="1")
input(type="imtcp" port="$PORT2" address="127.0.0.1")
template(name="t" type="string" string="%msg%\n")
action(type="omfile" file="$OUT" template="t")
EOF
start_sluiced "$TESTDIR/test.conf"
SLOG=$TESTDIR/sluiced.$PORT.log
res=$(python3 - "$PORT" "$PORT2" "$TCPFLOOD" "$PKI/ca.pem" <<'PY'
import socket, subprocess, sys, time
short, dflt, tcpflood, ca = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
a = socket.create_connection(("127.0.0.1", short), timeout=10)
b = socket.create_connection(("127.0.0.1", dflt), timeout=10)
t0 = time.time()
# a real client is served while the stalled one waits
rc = subprocess.call([tcpflood, "-t", "127.0.0.1", "-p", str(short), "-m", "100", "-T", "tls",
                      "-x", ca, "-q"], stdout=sys.stderr)
a.settimeout(8)
try:
    closed_a = a.recv(1) == b""
except OSError:
    closed_a = True
ta = time.time() - t0
b.settimeout(0.2)
try:
    b_open = b.recv(1) != b""
except socket.timeout:
    b_open = True
except OSError:
    b_open = False
print("rc=%d closed=%s after=%.1f dflt_open=%s" % (rc, closed_a, ta, b_open))
PY
)
log "stalled clients: $res"
case "$res" in
rc=0\ closed=True\ after=*\ dflt_open=True) ;;
*) fail "expected tcpflood rc=0, the stalled client closed and the one on the default input still open, got '$res'" ;;
esac
after=${res#*after=}
after=${after%% *}
awk -v t="$after" 'BEGIN { exit !(t >= 0.5 && t <= 4.0) }' ||
	fail "expected the stalled client dropped about 1 s after connecting, got after $after s"
wait_lines "$OUT" 100 20
stop_daemon
grep -q "TLS session from peer 127.0.0.1 refused: handshake not complete after 1 s" "$SLOG" ||
	fail "expected the handshake timeout logged with the peer, got none in $SLOG"
log "ok: a stalled TLS handshake is dropped after handshakeTimeout=1 s (kept on the 10 s input), a real client served meanwhile"
exit 0
