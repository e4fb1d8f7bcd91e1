#!/bin/bash
# udp_rsyslog_fwd.sh - Debian's rsyslogd forwarding over UDP (omfwd
# protocol="udp", its default RSYSLOG_TraditionalForwardFormat) to sluice's
# imudp: 10,000 messages sent to rsyslogd at 10,000/s must all arrive in
# sluice, each exactly once, with the forwarded hostname and tag.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

NMSGS=${NMSGS:-10000}
require_tool tcpflood "$TCPFLOOD"
require_tool rsyslogd "$RSYSLOGD"
require_tool sluiced "$SLUICED"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"

UDPP=$(get_free_port)
RSP=$(get_free_port)
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/sluice.conf" <<EOF
module(load="imudp")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
input(type="imudp" port="$UDPP" address="127.0.0.1" rcvBufSize="4m")
template(name="t" type="string" string="%fromhost-ip% %hostname% %syslogtag%%msg%\n")
action(type="omfile" file="$OUT" template="t")
EOF
cat >"$TESTDIR/rsyslog.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$RSP" address="127.0.0.1")
action(type="omfwd" target="127.0.0.1" port="$UDPP" protocol="udp")
EOF
start_sluiced "$TESTDIR/sluice.conf"
SLUICE_PID=$DAEMON_PID
start_rsyslogd "$TESTDIR/rsyslog.conf" "$RSP"
RS_PID=$DAEMON_PID
"$TCPFLOOD" -t 127.0.0.1 -p "$RSP" -m "$NMSGS" -r 10000 -q ||
	fail "expected tcpflood to send $NMSGS messages to rsyslogd, got exit status $?"
DAEMON_PID=$SLUICE_PID
if ! try_wait_lines "$OUT" "$NMSGS" 60; then
	grep -c msgnum "$OUT" >&2
	python3 "$CHECK_SEQ" "$OUT" --expect "$NMSGS" >&2
	fail "expected $NMSGS lines in $OUT, got $WAIT_GOT ($WAIT_WHY)"
fi
stop_daemon "$RS_PID"
sleep 0.5
stop_daemon "$SLUICE_PID"
# rsyslogd's own start message may come too: count only the flood
got=$(grep -c ' msgnum:' "$OUT")
[ "$got" = "$NMSGS" ] || fail "expected $NMSGS forwarded messages, got $got"
grep ' msgnum:' "$OUT" >"$TESTDIR/flood.log"
python3 "$CHECK_SEQ" "$TESTDIR/flood.log" --expect "$NMSGS" ||
	fail "expected msgnum 0..$((NMSGS - 1)) each exactly once (check_seq above)"
bad=$(grep -cvE '^127\.0\.0\.1 tcpflood tag msgnum:[0-9]{8}:$' "$TESTDIR/flood.log")
[ "$bad" = 0 ] || fail "expected '127.0.0.1 tcpflood tag msgnum:NNNNNNNN:' lines, got $bad others, e.g. '$(grep -vE '^127\.0\.0\.1 tcpflood tag msgnum:' "$TESTDIR/flood.log" | head -n1)'"
log "ok: $NMSGS messages forwarded by rsyslogd over UDP, all received by sluice's imudp"
exit 0
