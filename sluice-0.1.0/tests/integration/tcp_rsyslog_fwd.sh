#!/bin/bash
# tcp_rsyslog_fwd.sh - Debian's rsyslogd forwarding over plain TCP (omfwd
# protocol="tcp") to sluice's imtcp, with both framings: traditional LF
# framing (TCP_Framing="traditional", rsyslog's default) to one input and
# RFC6587 octet counting (TCP_Framing="octet-counted") to another. Every
# one of NMSGS messages sent to rsyslogd must arrive at each input exactly
# once, with the forwarded hostname, tag and message text, plus one message
# whose text starts with digits and holds a '<' (octet-counting matters).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

NMSGS=${NMSGS:-5000}
require_tool tcpflood "$TCPFLOOD"
require_tool rsyslogd "$RSYSLOGD"
require_tool sluiced "$SLUICED"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"

OCTP=$(get_free_port)
RSP=$(get_free_port)
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/sluice.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1" name="trad")
input(type="imtcp" port="$OCTP" address="127.0.0.1" name="octet")
template(name="t" type="string" string="%inputname% %fromhost-ip% %hostname% %syslogtag%%msg%\n")
action(type="omfile" file="$OUT" template="t")
EOF
cat >"$TESTDIR/rsyslog.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$RSP" address="127.0.0.1")
action(type="omfwd" target="127.0.0.1" port="$PORT" protocol="tcp" TCP_Framing="traditional")
action(type="omfwd" target="127.0.0.1" port="$OCTP" protocol="tcp" TCP_Framing="octet-counted")
EOF
start_sluiced "$TESTDIR/sluice.conf"
SLUICE_PID=$DAEMON_PID
start_rsyslogd "$TESTDIR/rsyslog.conf" "$RSP"
RS_PID=$DAEMON_PID
"$TCPFLOOD" -t 127.0.0.1 -p "$RSP" -m "$NMSGS" -q ||
	fail "expected tcpflood to send $NMSGS messages to rsyslogd, got exit status $?"
printf '<13>Mar  1 10:00:00 myhost app: 42 <13>not a frame\n' >"$TESTDIR/special"
send_file "$TESTDIR/special" "$RSP"
DAEMON_PID=$SLUICE_PID
want=$((2 * NMSGS + 2))
if ! try_wait_lines "$OUT" "$want" 60; then
	grep -c ' msgnum:' "$OUT" >&2
	fail "expected at least $want lines in $OUT, got $WAIT_GOT ($WAIT_WHY)"
fi
stop_daemon "$RS_PID"
sleep 0.5
stop_daemon "$SLUICE_PID"
for fr in trad octet; do
	# rsyslogd's own start message may come too: count only the flood
	grep "^$fr .* msgnum:" "$OUT" | cut -d' ' -f2- >"$TESTDIR/$fr.log"
	got=$(count_lines "$TESTDIR/$fr.log")
	[ "$got" = "$NMSGS" ] || fail "expected $NMSGS messages over $fr framing, got $got"
	python3 "$CHECK_SEQ" "$TESTDIR/$fr.log" --expect "$NMSGS" ||
		fail "expected msgnum 0..$((NMSGS - 1)) each exactly once over $fr framing (check_seq above)"
	bad=$(grep -cvE '^127\.0\.0\.1 tcpflood tag msgnum:[0-9]{8}:$' "$TESTDIR/$fr.log")
	[ "$bad" = 0 ] || fail "expected '127.0.0.1 tcpflood tag msgnum:NNNNNNNN:' lines over $fr framing, got $bad others, e.g. '$(grep -vE '^127\.0\.0\.1 tcpflood tag msgnum:' "$TESTDIR/$fr.log" | head -n1)'"
	sp=$(grep -c "^$fr 127.0.0.1 myhost app: 42 <13>not a frame\$" "$OUT")
	[ "$sp" = 1 ] || fail "expected the message '42 <13>not a frame' once, whole, over $fr framing, got $sp; lines: $(grep "^$fr .*myhost" "$OUT")"
done
log "ok: $NMSGS messages (+1) forwarded by rsyslogd over TCP with traditional and with octet-counted framing, each received once and intact"
exit 0
