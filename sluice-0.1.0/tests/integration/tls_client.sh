#!/bin/bash
# tls_client.sh - the client side of the stream-driver layer
# (runtime/netstrm.h, what omfwd uses for TLS), driven by
# tests/integration/tls_netstrm_client: it authenticates the server
# (x509/name against "server.example.net" and "*.example.net",
# x509/fingerprint with the SHA256 form, anon) when sending to sluiced,
# refuses a server whose name or fingerprint is not permitted, and
# interoperates with Debian's rsyslogd as the TLS server (x509/name both
# ways). Every message sent must arrive exactly once.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/integration/tls_lib.sh"

CLIENT=${TLS_CLIENT:-$top_builddir/tests/integration/tls_netstrm_client}
require_tool tls_netstrm_client "$CLIENT"
[ "$DUT_NAME" = sluiced ] || skip "this test runs sluiced and rsyslogd itself"
tls_make_pki
SFP=$(tls_fingerprint "$PKI/server.pem" sha256)

PORT2=$(get_free_port)
cat >"$TESTDIR/sluice.conf" <<EOF
global(defaultNetstreamDriver="gtls" defaultNetstreamDriverCAFile="$PKI/ca.pem"
       defaultNetstreamDriverCertFile="$PKI/server.pem"
       defaultNetstreamDriverKeyFile="$PKI/server-key.pem")
module(load="imtcp" streamDriver.mode="1")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="x509"
      streamDriver.authMode="x509/name" permittedPeer="client1.example.net")
input(type="imtcp" port="$PORT2" address="127.0.0.1" ruleset="anon" streamDriver.authMode="anon")
ruleset(name="x509") { action(type="omfile" file="$TESTDIR/x509.log" template="msgonly") }
ruleset(name="anon") { action(type="omfile" file="$TESTDIR/anon.log" template="msgonly") }
EOF
start_sluiced "$TESTDIR/sluice.conf"
SLUICE_PID=$DAEMON_PID

C="$PKI/client.pem"
K="$PKI/client-key.pem"
A="$PKI/ca.pem"
"$CLIENT" 127.0.0.1 "$PORT" 1 x509/name "$A" "$C" "$K" server.example.net 1000 0 ||
	fail "expected the x509/name client to send to sluiced (permitted server.example.net), got exit status $?"
"$CLIENT" 127.0.0.1 "$PORT" 1 x509/name "$A" "$C" "$K" "nomatch.org,*.example.net" 1000 1000 ||
	fail "expected the x509/name client to send to sluiced (permitted *.example.net), got exit status $?"
"$CLIENT" 127.0.0.1 "$PORT" 1 x509/fingerprint - "$C" "$K" "$SFP" 1000 2000 ||
	fail "expected the x509/fingerprint client to send to sluiced, got exit status $?"
"$CLIENT" 127.0.0.1 "$PORT2" 1 anon - - - - 1000 0 ||
	fail "expected the anon client to send to sluiced, got exit status $?"
out=$("$CLIENT" 127.0.0.1 "$PORT" 1 x509/name "$A" "$C" "$K" other.example.org 10 5000 2>&1) &&
	fail "expected the client to refuse a server named server.example.net when only other.example.org is permitted, got success"
grep -qF "peer name not authorized - not permitted to talk to it. Names: DNSname: server.example.net; CN: server.example.net" <<<"$out" ||
	fail "expected the refusal to name the server's names, got '$out'"
out=$("$CLIENT" 127.0.0.1 "$PORT" 1 x509/fingerprint - "$C" "$K" "SHA256:00:11:22" 10 5000 2>&1) &&
	fail "expected the client to refuse a server with another fingerprint, got success"
grep -qF "peer fingerprint not permitted" <<<"$out" ||
	fail "expected the fingerprint refusal, got '$out'"
wait_lines "$TESTDIR/x509.log" 3000 30
wait_lines "$TESTDIR/anon.log" 1000 30

# rsyslogd as the TLS server, x509/name both ways
if [ -n "$(find /usr/lib -name lmnsd_gtls.so 2>/dev/null | head -n1)" ]; then
	RPORT=$(get_free_port)
	cat >"$TESTDIR/rsyslog.conf" <<EOF
global(defaultNetstreamDriverCAFile="$PKI/ca.pem"
       defaultNetstreamDriverCertFile="$PKI/server.pem"
       defaultNetstreamDriverKeyFile="$PKI/server-key.pem")
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1"
       streamDriver.authMode="x509/name" permittedPeer="client1.example.net")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$RPORT" address="127.0.0.1" ruleset="in")
ruleset(name="in") { action(type="omfile" file="$TESTDIR/rsyslog.log" template="msgonly") }
EOF
	start_rsyslogd "$TESTDIR/rsyslog.conf" "$RPORT"
	"$CLIENT" 127.0.0.1 "$RPORT" 1 x509/name "$A" "$C" "$K" server.example.net 1000 0 ||
		fail "expected the x509/name client to send to rsyslogd, got exit status $?"
	wait_lines "$TESTDIR/rsyslog.log" 1000 30
	stop_daemon "$DAEMON_PID"
	python3 "$CHECK_SEQ" "$TESTDIR/rsyslog.log" --expect 1000 ||
		fail "expected msgnum 0..999 once each at rsyslogd (check_seq above)"
	bad=$(grep -cvE '^ msgnum:[0-9]{8}:$' "$TESTDIR/rsyslog.log")
	[ "$bad" = 0 ] || fail "expected every line at rsyslogd to be ' msgnum:NNNNNNNN:', got $bad others"
else
	log "rsyslog-gnutls not installed: the rsyslogd part is skipped"
fi
stop_daemon "$SLUICE_PID"

python3 "$CHECK_SEQ" "$TESTDIR/x509.log" --expect 3000 ||
	fail "expected msgnum 0..2999 once each in x509.log (check_seq above)"
python3 "$CHECK_SEQ" "$TESTDIR/anon.log" --expect 1000 ||
	fail "expected msgnum 0..999 once each in anon.log (check_seq above)"
for f in x509 anon; do
	bad=$(grep -cvE '^ msgnum:[0-9]{8}:$' "$TESTDIR/$f.log")
	[ "$bad" = 0 ] || fail "expected every line of $f.log to be ' msgnum:NNNNNNNN:', got $bad others"
done
log "ok: netstrm client: x509/name, x509/fingerprint, anon into sluiced, x509/name into rsyslogd; wrong servers refused"
exit 0
