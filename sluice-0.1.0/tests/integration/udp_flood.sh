#!/bin/bash
# udp_flood.sh - imudp: 200,000 RFC3164 datagrams from tcpflood -T udp at a
# moderate rate (50,000/s) into a 4 MB receive buffer: every message must
# arrive exactly once with its content, fromhost-ip and inputname; then
# logger(1) over UDP in RFC3164 and RFC5424 mode, to a second port of the
# same input (name.appendPort), and over IPv6 when the host has ::1.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

NMSGS=${NMSGS:-200000}
RATE=${RATE:-50000}
require_tool tcpflood "$TCPFLOOD"
command -v logger >/dev/null || skip "logger (util-linux) not installed"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (imudp threads per input)"

P1=$PORT
P2=$(get_free_port)
P6=$(get_free_port)
TCPP=$(get_free_port)   # a TCP port only so that start_dut sees the daemon is up
OUT="$TESTDIR/out.log"
LOG="$TESTDIR/logger.log"
HAVE6=0
python3 -c 'import socket; s=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(("::1", 0))' 2>/dev/null && HAVE6=1
cat >"$TESTDIR/test.conf" <<EOF
module(load="imudp" threads="2" batchSize="64")
module(load="imtcp")
input(type="imtcp" port="$TCPP" address="127.0.0.1")
template(name="msgonly" type="string" string="%fromhost-ip% %inputname%%msg%\n")
template(name="props" type="string" string="%fromhost-ip%|%inputname%|%hostname%|%programname%|%procid%|%syslogfacility-text%.%syslogseverity-text%|%msg%\n")
input(type="imudp" port=["$P1", "$P2"] address="127.0.0.1" name="udp" name.appendPort="on"
      rcvBufSize="4m")
input(type="imudp" port="$P6" address="::1" name="udp6")
if \$msg startswith " msgnum:" then {
	action(type="omfile" file="$OUT" template="msgonly")
	stop
}
action(type="omfile" file="$LOG" template="props")
EOF
if [ "$HAVE6" = 0 ]; then
	sed -i '/address="::1"/d' "$TESTDIR/test.conf"
fi

start_dut "$TESTDIR/test.conf" "$TCPP"
"$TCPFLOOD" -T udp -t 127.0.0.1 -p "$P1" -m "$NMSGS" -r "$RATE" -q ||
	fail "expected tcpflood to send $NMSGS datagrams, got exit status $?"
if ! try_wait_lines "$OUT" "$NMSGS" 120; then
	python3 "$CHECK_SEQ" "$OUT" --expect "$NMSGS" >&2
	fail "expected $NMSGS lines in $OUT, got $WAIT_GOT ($WAIT_WHY)"
fi

H=$(hostname)
logger -d -n 127.0.0.1 -P "$P2" --rfc3164 -t app1 -i "hello three-one-six-four" ||
	fail "expected logger to send over UDP, got $?"
logger -d -n 127.0.0.1 -P "$P2" --rfc5424 -t app2 --id=4242 -p local3.err "hello five-four-two-four" ||
	fail "expected logger --rfc5424 to send over UDP, got $?"
nlog=2
if [ "$HAVE6" = 1 ]; then
	logger -d -n ::1 -P "$P6" --rfc5424 -t app6 --id=66 "hello six" ||
		fail "expected logger to send over UDP/IPv6, got $?"
	nlog=3
fi
wait_lines "$LOG" "$nlog" 20
stop_daemon

got=$(count_lines "$OUT")
[ "$got" = "$NMSGS" ] || fail "expected $NMSGS lines in $OUT, got $got"
python3 "$CHECK_SEQ" "$OUT" --expect "$NMSGS" ||
	fail "expected msgnum 0..$((NMSGS - 1)) each exactly once (check_seq above)"
bad=$(grep -cvE "^127\.0\.0\.1 udp$P1 msgnum:[0-9]{8}:\$" "$OUT")
[ "$bad" = 0 ] || fail "expected every line to be '127.0.0.1 udp$P1 msgnum:NNNNNNNN:', got $bad others, e.g. '$(grep -vE "^127\.0\.0\.1 udp$P1 msgnum:" "$OUT" | head -n1)'"

# logger --rfc3164 sends "<13>Mmm dd hh:mm:ss HOST app1[PID]: msg"
l1=$(grep '|app1|' "$LOG")
pid=$(echo "$l1" | cut -d'|' -f5)
[[ "$pid" =~ ^[0-9]+$ ]] || fail "expected a numeric procid from logger -i, got '$pid' in '$l1'"
want="127.0.0.1|udp$P2|$H|app1|$pid|user.notice| hello three-one-six-four"
[ "$l1" = "$want" ] || fail "expected '$want', got '$l1'"
l2=$(grep '|app2|' "$LOG")
want="127.0.0.1|udp$P2|$H|app2|4242|local3.err|hello five-four-two-four"
[ "$l2" = "$want" ] || fail "expected '$want', got '$l2'"
if [ "$HAVE6" = 1 ]; then
	l6=$(grep '|app6|' "$LOG")
	want="::1|udp6|$H|app6|66|user.notice|hello six"
	[ "$l6" = "$want" ] || fail "expected '$want', got '$l6'"
fi
n=$(count_lines "$LOG")
[ "$n" = "$nlog" ] || fail "expected exactly $nlog logger lines, got $n: $(cat "$LOG")"
log "ok: $NMSGS UDP datagrams at $RATE/s exactly once; logger RFC3164/RFC5424 (IPv6: $HAVE6) with the right properties"
exit 0
