#!/bin/bash
# tls_flood.sh - TLS into imtcp (gtls): 100 TLS connections x 1,000
# octet-counted messages into an anon listener and 100 x 1,000 LF-framed
# messages into an x509/name listener (client certificate matched against
# permittedPeer "*.example.net"; two epoll threads). Every message must arrive exactly once
# with its exact content, and no TLS session may be refused.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/integration/tls_lib.sh"

NCONN=${NCONN:-100}
PERCONN=${PERCONN:-1000}
N=$((NCONN * PERCONN))
require_tool tcpflood "$TCPFLOOD"
"$TCPFLOOD" -T tls -p 1 -m 1 2>&1 | grep -q "without gnutls" && skip "tcpflood built without gnutls"
tls_make_pki

PORT2=$(get_free_port)
cat >"$TESTDIR/test.conf" <<EOF
global(defaultNetstreamDriverCAFile="$PKI/ca.pem"
       defaultNetstreamDriverCertFile="$PKI/server.pem"
       defaultNetstreamDriverKeyFile="$PKI/server-key.pem")
module(load="imtcp" maxSessions="300" streamDriver.name="gtls" streamDriver.mode="1"
       streamDriver.authMode="anon")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="anon")
input(type="imtcp" port="$PORT2" address="127.0.0.1" ruleset="name" name="tlsname"
      streamDriver.authMode="x509/name" permittedPeer=["nomatch.example.org", "*.example.net"]
      workerThreads="2")
ruleset(name="anon") { action(type="omfile" file="$TESTDIR/anon.log" template="msgonly") }
ruleset(name="name") { action(type="omfile" file="$TESTDIR/name.log" template="msgonly") }
EOF

start_dut "$TESTDIR/test.conf"
port_open "$PORT2" || fail "expected the x509/name listener on port $PORT2, got none"
"$TCPFLOOD" -T tls -p "$PORT" -c "$NCONN" -m "$N" -F oc -q ||
	fail "expected tcpflood to send $N messages over $NCONN anon TLS connections, got exit status $?"
"$TCPFLOOD" -T tls -p "$PORT2" -c "$NCONN" -m "$N" -x "$PKI/ca.pem" -Z "$PKI/client.pem" \
	-z "$PKI/client-key.pem" -q ||
	fail "expected tcpflood to send $N messages over $NCONN x509/name TLS connections, got exit status $?"
for f in anon name; do
	if ! try_wait_lines "$TESTDIR/$f.log" "$N" 120; then
		python3 "$CHECK_SEQ" "$TESTDIR/$f.log" --expect "$N" >&2
		fail "expected $N lines in $f.log, got $WAIT_GOT ($WAIT_WHY)"
	fi
done
stop_daemon

for f in anon name; do
	out=$TESTDIR/$f.log
	got=$(count_lines "$out")
	[ "$got" = "$N" ] || fail "expected $N lines in $f.log, got $got"
	python3 "$CHECK_SEQ" "$out" --expect "$N" ||
		fail "expected msgnum 0..$((N - 1)) each exactly once in $f.log (check_seq above)"
	bad=$(grep -cvE '^ msgnum:[0-9]{8}:$' "$out")
	[ "$bad" = 0 ] || fail "expected every line of $f.log to be ' msgnum:NNNNNNNN:', got $bad other lines, e.g. '$(grep -vE '^ msgnum:[0-9]{8}:$' "$out" | head -n1)'"
done
if grep -q "refused" "$TESTDIR"/sluiced.*.log 2>/dev/null; then
	fail "expected no refused TLS session, got: $(grep refused "$TESTDIR"/sluiced.*.log | head -n2)"
fi
log "ok: $N messages over $NCONN anon TLS and $N over $NCONN x509/name TLS connections via $DUT_NAME"
exit 0
