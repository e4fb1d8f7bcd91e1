#!/bin/bash
# tls_rsyslog_fwd.sh - Debian's rsyslogd forwards to sluice over TLS:
# tcpflood -> rsyslogd (imtcp, plain) -> omfwd StreamDriver="gtls" with
# x509/name auth (client certificate client1.example.net, server checked
# against "server.example.net") and octet-counted framing -> sluiced
# (imtcp gtls, x509/name, permittedPeer "client1.example.net"). Every
# message must arrive exactly once with its exact content, and the
# RFC5424 header rsyslogd forwards must come through intact.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/integration/tls_lib.sh"

N=${NMSGS:-20000}
require_tool tcpflood "$TCPFLOOD"
require_tool rsyslogd "$RSYSLOGD"
[ -f /usr/lib/x86_64-linux-gnu/rsyslog/lmnsd_gtls.so ] || [ -n "$(find /usr/lib -name lmnsd_gtls.so 2>/dev/null | head -n1)" ] ||
	skip "rsyslog's gtls driver (package rsyslog-gnutls) is not installed"
[ "$DUT_NAME" = sluiced ] || skip "this test checks sluiced as the TLS server"
tls_make_pki

# sluice: the TLS server
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/sluice.conf" <<EOF
global(defaultNetstreamDriver="gtls"
       defaultNetstreamDriverCAFile="$PKI/ca.pem"
       defaultNetstreamDriverCertFile="$PKI/server.pem"
       defaultNetstreamDriverKeyFile="$PKI/server-key.pem")
module(load="imtcp")
template(name="fields" type="string" string="%timereported:::date-rfc3339% %hostname% %app-name% %procid% %msgid% %structured-data% %msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="in"
      streamDriver.mode="1" streamDriver.authMode="x509/name" permittedPeer="client1.example.net")
ruleset(name="in") { action(type="omfile" file="$OUT" template="fields") }
EOF
start_sluiced "$TESTDIR/sluice.conf"
SLUICE_PID=$DAEMON_PID

# rsyslogd: the TLS client
RPORT=$(get_free_port)
cat >"$TESTDIR/rsyslog.conf" <<EOF
global(defaultNetstreamDriverCAFile="$PKI/ca.pem"
       defaultNetstreamDriverCertFile="$PKI/client.pem"
       defaultNetstreamDriverKeyFile="$PKI/client-key.pem")
module(load="imtcp")
input(type="imtcp" port="$RPORT" address="127.0.0.1" ruleset="fwd")
ruleset(name="fwd" queue.type="LinkedList") {
	action(type="omfwd" target="127.0.0.1" port="$PORT" protocol="tcp"
	       StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="x509/name"
	       StreamDriverPermittedPeers="server.example.net" TCP_Framing="octet-counted"
	       template="RSYSLOG_SyslogProtocol23Format"
	       action.resumeRetryCount="-1" action.resumeInterval="1")
}
EOF
start_rsyslogd "$TESTDIR/rsyslog.conf" "$RPORT"
RSYSLOG_PID=$DAEMON_PID

"$TCPFLOOD" -p "$RPORT" -c 4 -m "$N" -5 -H fwdhost -q ||
	fail "expected tcpflood to send $N messages to rsyslogd, got exit status $?"
DAEMON_PID=$SLUICE_PID
if ! try_wait_lines "$OUT" "$N" 120; then
	python3 "$CHECK_SEQ" "$OUT" --expect "$N" >&2
	fail "expected $N lines forwarded by rsyslogd over TLS in $OUT, got $WAIT_GOT ($WAIT_WHY)"
fi
stop_daemon "$RSYSLOG_PID"
stop_daemon "$SLUICE_PID"

got=$(count_lines "$OUT")
[ "$got" = "$N" ] || fail "expected $N lines in $OUT, got $got"
python3 "$CHECK_SEQ" "$OUT" --expect "$N" ||
	fail "expected msgnum 0..$((N - 1)) each exactly once (check_seq above)"
# every line is exactly what tcpflood -5 generated, field by field
want_re='^2003-03-01T01:00:00\.000\+01:00 fwdhost tcpflood - tag \[tcpflood@32473 MSGNUM="([0-9]{8})"\] msgnum:\1:$'
bad=$(grep -cvE "$want_re" "$OUT")
[ "$bad" = 0 ] || fail "expected every line to match '$want_re', got $bad other lines, e.g. '$(grep -vE "$want_re" "$OUT" | head -n1)' (rsyslogd sent e.g. '$(head -c 200 "$OUT")')"
grep -q "refused" "$TESTDIR"/sluiced.*.log &&
	fail "expected rsyslogd's TLS session to be accepted, got: $(grep refused "$TESTDIR"/sluiced.*.log | head -n1)"
log "ok: $N messages from rsyslogd over TLS (x509/name, octet-counted) into sluiced"
exit 0
