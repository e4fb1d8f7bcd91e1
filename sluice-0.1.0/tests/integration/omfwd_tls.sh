#!/bin/bash
# omfwd_tls.sh - omfwd over TLS (StreamDriver="gtls") against a real rsyslogd
# TLS receiver (B, imtcp gtls). The same sender configuration runs in
# rsyslogd (A) and sluiced (S); for each auth mode the messages B received
# (%rawmsg%) from A and from S must be identical and complete:
#   x509/name        (server name checked, client certificate sent), LF framing
#   x509/fingerprint (server's SHA256 fingerprint), octet-counted framing
#   x509/certvalid   (chain only)
#   anon             (no authentication)
# Then sluiced with a permitted peer that does not match the server's
# certificate must deliver nothing and say why.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/integration/tls_lib.sh"

require_tool tcpflood "$TCPFLOOD"
require_tool rsyslogd "$RSYSLOGD"
[ -n "$(find /usr/lib -name lmnsd_gtls.so 2>/dev/null | head -n1)" ] ||
	skip "rsyslog's gtls driver (package rsyslog-gnutls) is not installed"
tls_make_pki
N=${N:-5000}
FP=$(tls_fingerprint "$PKI/server.pem" sha256)

MODES="name fp cert anon"
P_B=$(get_free_port)
declare -A BP
for w in a s; do for m in $MODES; do BP[${w}_$m]=$(get_free_port); done; done
{
	cat <<-EOF
	global(defaultNetstreamDriver="gtls" defaultNetstreamDriverCAFile="$PKI/ca.pem"
	       defaultNetstreamDriverCertFile="$PKI/server.pem"
	       defaultNetstreamDriverKeyFile="$PKI/server-key.pem")
	module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
	template(name="raw" type="string" string="%rawmsg%\n")
	input(type="imtcp" port="$P_B" address="127.0.0.1" ruleset="none")
	ruleset(name="none") { }
	EOF
	for k in "${!BP[@]}"; do
		echo "input(type=\"imtcp\" port=\"${BP[$k]}\" address=\"127.0.0.1\" ruleset=\"r_$k\")"
		echo "ruleset(name=\"r_$k\") { action(type=\"omfile\" file=\"$TESTDIR/b_$k.log\" template=\"raw\") }"
	done
} >"$TESTDIR/b.conf"

sender_conf() { # $1 = a|s, $2 = listen port
	cat <<-EOF
	global(defaultNetstreamDriverCAFile="$PKI/ca.pem"
	       defaultNetstreamDriverCertFile="$PKI/client.pem"
	       defaultNetstreamDriverKeyFile="$PKI/client-key.pem")
	module(load="imtcp")
	input(type="imtcp" port="$2" address="127.0.0.1" ruleset="fwd")
	ruleset(name="fwd") {
		action(type="omfwd" target="127.0.0.1" port="${BP[${1}_name]}" protocol="tcp"
		       StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="x509/name"
		       StreamDriverPermittedPeers="server.example.net")
		action(type="omfwd" target="127.0.0.1" port="${BP[${1}_fp]}" protocol="tcp"
		       StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="x509/fingerprint"
		       StreamDriverPermittedPeers="$FP" TCP_Framing="octet-counted")
		action(type="omfwd" target="127.0.0.1" port="${BP[${1}_cert]}" protocol="tcp"
		       StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="x509/certvalid")
		action(type="omfwd" target="127.0.0.1" port="${BP[${1}_anon]}" protocol="tcp"
		       StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="anon")
	}
	EOF
}
P_A=$(get_free_port)
sender_conf a "$P_A" >"$TESTDIR/a.conf"
sender_conf s "$PORT" >"$TESTDIR/s.conf"

start_rsyslogd "$TESTDIR/b.conf" "$P_B"
PID_B=$DAEMON_PID
start_rsyslogd "$TESTDIR/a.conf" "$P_A"
PID_A=$DAEMON_PID
start_sluiced "$TESTDIR/s.conf" "$PORT"
PID_S=$DAEMON_PID

for w in a s; do
	p=$P_A
	[ $w = s ] && p=$PORT
	"$TCPFLOOD" -p "$p" -m "$N" -q || fail "expected tcpflood to send $N messages"
	DAEMON_PID=$PID_B
	for m in $MODES; do
		wait_lines "$TESTDIR/b_${w}_$m.log" "$N" 60
	done
done
stop_daemon "$PID_S"
stop_daemon "$PID_A"

for m in $MODES; do
	a=$TESTDIR/b_a_$m.log s=$TESTDIR/b_s_$m.log
	na=$(count_lines "$a") ns=$(count_lines "$s")
	[ "$na" = "$N" ] || fail "expected $N messages from rsyslogd's omfwd over TLS ($m), got $na"
	[ "$ns" = "$N" ] || fail "expected $N messages from sluiced's omfwd over TLS ($m), got $ns"
	cmp -s "$a" "$s" ||
		fail "expected sluiced's omfwd over TLS ($m) to deliver the same bytes as rsyslogd's ($(diff "$a" "$s" | head -n 4))"
	python3 "$CHECK_SEQ" "$s" --expect "$N" >/dev/null || fail "expected msgnum 0..$((N - 1)) once each ($m)"
done

# wrong permitted peer: nothing may be delivered
PORT2=$(get_free_port)
cat >"$TESTDIR/neg.conf" <<EOF
global(defaultNetstreamDriverCAFile="$PKI/ca.pem")
module(load="imtcp")
input(type="imtcp" port="$PORT2" address="127.0.0.1" ruleset="fwd")
ruleset(name="fwd") {
	action(type="omfwd" target="127.0.0.1" port="${BP[s_anon]}" protocol="tcp"
	       StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="x509/name"
	       StreamDriverPermittedPeers="other.example.net" action.resumeInterval="1")
}
EOF
before=$(count_lines "$TESTDIR/b_s_anon.log")
start_sluiced "$TESTDIR/neg.conf" "$PORT2"
PID_S=$DAEMON_PID
"$TCPFLOOD" -p "$PORT2" -m 10 -q || fail "expected tcpflood to send 10 messages"
sleep 3
stop_daemon "$PID_S"
stop_daemon "$PID_B"
after=$(count_lines "$TESTDIR/b_s_anon.log")
[ "$after" = "$before" ] ||
	fail "expected no message through a server certificate that is not permitted, got $((after - before))"
grep -q "TLS connection to 127.0.0.1:${BP[s_anon]} failed" "$TESTDIR/sluiced.$PORT2.log" ||
	fail "expected sluiced to log why the TLS connection failed, got: $(tail -n 3 "$TESTDIR/sluiced.$PORT2.log")"
log "ok: omfwd over TLS (x509/name, x509/fingerprint, x509/certvalid, anon) byte-identical to rsyslogd's; wrong peer refused"
exit 0
