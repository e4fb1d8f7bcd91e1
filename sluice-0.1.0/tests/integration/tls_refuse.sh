#!/bin/bash
# tls_refuse.sh - TLS peer authentication of imtcp, both ways a client can
# be refused and accepted:
#   x509/name (permittedPeer "*.example.net"): client1.example.net is let
#     in; rogue.other.org (valid chain, name not permitted), a client
#     without a certificate and an expired certificate are refused, and
#     sluiced's log names the peer IP and the reason for each;
#   x509/fingerprint: the SHA1 form of client1's fingerprint is let in,
#     rogue's is refused;
#   x509/certvalid with permitExpiredCerts="warn": the expired certificate
#     is let in with a warning.
# No message of a refused client may arrive, and every refusal is counted.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/integration/tls_lib.sh"

require_tool tcpflood "$TCPFLOOD"
"$TCPFLOOD" -T tls -p 1 -m 1 2>&1 | grep -q "without gnutls" && skip "tcpflood built without gnutls"
[ "$DUT_NAME" = sluiced ] || skip "this test reads sluiced's log lines"
tls_make_pki
FP=$(tls_fingerprint "$PKI/client.pem" sha1)

PORT2=$(get_free_port)
PORT3=$(get_free_port)
cat >"$TESTDIR/test.conf" <<EOF
global(defaultNetstreamDriverCAFile="$PKI/ca.pem")
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1"
       streamDriver.certfile="$PKI/server.pem" streamDriver.keyfile="$PKI/server-key.pem")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" name="byname" ruleset="name"
      streamDriver.authMode="x509/name" permittedPeer="*.example.net")
input(type="imtcp" port="$PORT2" address="127.0.0.1" name="byfp" ruleset="fp"
      streamDriver.authMode="x509/fingerprint" permittedPeer=["SHA1:00:11", "$FP"])
input(type="imtcp" port="$PORT3" address="127.0.0.1" name="valid" ruleset="valid"
      streamDriver.authMode="x509/certvalid" streamDriver.permitExpiredCerts="warn")
ruleset(name="name") { action(type="omfile" file="$TESTDIR/name.log" template="msgonly") }
ruleset(name="fp") { action(type="omfile" file="$TESTDIR/fp.log" template="msgonly") }
ruleset(name="valid") { action(type="omfile" file="$TESTDIR/valid.log" template="msgonly") }
EOF
start_dut "$TESTDIR/test.conf"
SLOG=$TESTDIR/sluiced.$PORT.log

# send PORT START CERT|- : 100 messages numbered from START
send() {
	local port=$1 start=$2 cert=$3
	if [ "$cert" = - ]; then
		"$TCPFLOOD" -T tls -p "$port" -m 100 -s "$start" -x "$PKI/ca.pem" -q
	else
		"$TCPFLOOD" -T tls -p "$port" -m 100 -s "$start" -x "$PKI/ca.pem" \
			-Z "$PKI/$cert.pem" -z "$PKI/$cert-key.pem" -q
	fi
}
send "$PORT" 0 client || fail "expected client1 to send over x509/name, got exit status $?"
send "$PORT" 5000 rogue 2>/dev/null
send "$PORT" 6000 - 2>/dev/null
send "$PORT" 7000 expired 2>/dev/null
send "$PORT2" 0 client || fail "expected client1 to send over x509/fingerprint, got exit status $?"
send "$PORT2" 5000 rogue 2>/dev/null
send "$PORT3" 0 expired || fail "expected the expired certificate to be let in with permitExpiredCerts=warn, got exit status $?"
for f in name fp valid; do
	wait_lines "$TESTDIR/$f.log" 100 30
done
# the refused ones get time to show up if they were (wrongly) let in
sleep 1
stop_daemon

for f in name fp valid; do
	python3 "$CHECK_SEQ" "$TESTDIR/$f.log" --expect 100 ||
		fail "expected exactly msgnum 0..99 in $f.log (the permitted client only), got other numbers (check_seq above)"
done
expect_log() {
	grep -qF -- "$1" "$SLOG" || fail "expected sluiced to log '$1', got: $(grep -E 'refused|warning' "$SLOG" | head -n6)"
}
expect_log "imtcp byname port $PORT: TLS session from peer 127.0.0.1 refused: peer name not authorized - not permitted to talk to it. Names: DNSname: rogue.other.org; CN: rogue.other.org"
expect_log "imtcp byname port $PORT: TLS session from peer 127.0.0.1 refused: TLS handshake failed: Certificate is required."
expect_log "imtcp byname port $PORT: TLS session from peer 127.0.0.1 refused: certificate validation failed: The certificate is NOT trusted. The certificate chain uses expired certificate."
expect_log "imtcp byfp port $PORT2: TLS session from peer 127.0.0.1 refused: peer fingerprint not permitted"
expect_log "imtcp valid port $PORT3: peer 127.0.0.1: the certificate of the peer has expired; accepted because permitExpiredCerts is \"warn\""
grep -q "imtcp byname port $PORT: statistics: .* tls.established=1 tls.failed=3 " "$SLOG" ||
	fail "expected 1 accepted and 3 refused TLS sessions counted on x509/name, got: $(grep "byname port $PORT: statistics" "$SLOG")"
grep -q "imtcp byfp port $PORT2: statistics: .* tls.established=1 tls.failed=1 " "$SLOG" ||
	fail "expected 1 accepted and 1 refused TLS session counted on x509/fingerprint, got: $(grep "byfp port $PORT2: statistics" "$SLOG")"
# configuration errors name FILE:LINE and what is wrong (sluiced -N1)
cfg_err() {
	local body=$1 want=$2 out
	printf 'module(load="imtcp")\ninput(type="imtcp" port="1514"\n %s)\n' "$body" >"$TESTDIR/bad.conf"
	out=$("$SLUICED" -N1 -f "$TESTDIR/bad.conf" 2>&1) &&
		fail "expected sluiced -N1 to reject '$body', got success"
	grep -qF -- "$TESTDIR/bad.conf:3: imtcp: $want" <<<"$out" ||
		fail "expected '$TESTDIR/bad.conf:3: imtcp: $want' for '$body', got '$out'"
}
cfg_err 'streamDriver.mode="1"' 'stream driver: streamDriver.mode 1 (TLS) is not supported by the ptcp driver'
cfg_err 'streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="x509/foo"' "invalid streamDriver.authMode 'x509/foo'"
cfg_err 'streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="x509/name"' 'stream driver: authMode x509/name needs at least one permittedPeer'
cfg_err "streamDriver.name=\"gtls\" streamDriver.mode=\"1\" streamDriver.certfile=\"$TESTDIR/none.pem\" streamDriver.keyfile=\"$PKI/server-key.pem\"" "stream driver: cannot read certificate file '$TESTDIR/none.pem'"
cfg_err 'streamDriver.name="gtls" streamDriver.mode="1" streamDriver.permitExpiredCerts="maybe"' "invalid streamDriver.permitExpiredCerts 'maybe'"
log "ok: permitted peers let in, unpermitted ones refused, logged with peer and reason, counted"
exit 0
