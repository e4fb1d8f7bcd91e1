#!/bin/bash
# omfwd_rsyslog.sh - sluiced's omfwd against rsyslogd's own omfwd: the same
# configuration (three omfwd actions: UDP, TCP with traditional framing, TCP
# with octet-counted framing, default template RSYSLOG_TraditionalForwardFormat)
# runs once in rsyslogd (A) and once in sluiced (S), both fed the same
# messages; a real rsyslogd (B) receives from both on separate ports and
# writes %rawmsg% of every message it gets. The files B wrote for A and for
# S must be identical (sorted, so the check does not depend on interleaving
# of the UDP and TCP paths), and hold every message sent.
# Two more actions in the same run cover compression.mode="single" (rsyslog's
# 'z' frames, which B decompresses) over octet-counted TCP and the legacy
# selector action `*.* @@(o,z5)host:port` (octet-counted, zlib).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool tcpflood "$TCPFLOOD"
require_tool rsyslogd "$RSYSLOGD"
N=${N:-3000}

# the input: real-world lines with timestamps, then generated ones
INPUT="$TESTDIR/input.txt"
grep -ah '^<[0-9]*>[A-Z][a-z][a-z] [ 0-9][0-9] ' "$srcdir/tests/diff/input/rfc3164.txt" \
	"$srcdir/tests/diff/input/special.txt" >"$INPUT" || true
grep -h '^<[0-9]*>1 [0-9]' "$srcdir/tests/diff/input/rfc5424.txt" >>"$INPUT" || true
NFIX=$(count_lines "$INPUT")
[ "$NFIX" -gt 50 ] || fail "expected over 50 fixed input lines, got $NFIX"

# receiver B: one port per (sender, transport)
P_B=$(get_free_port)
declare -A BP
for k in a_udp a_tcp a_oc a_z a_lg s_udp s_tcp s_oc s_z s_lg; do BP[$k]=$(get_free_port); done
{
	echo 'module(load="imtcp") module(load="imudp")'
	echo 'template(name="raw" type="string" string="%rawmsg%\n")'
	echo "input(type=\"imtcp\" port=\"$P_B\" address=\"127.0.0.1\" ruleset=\"none\")"
	echo 'ruleset(name="none") { }'
	for k in "${!BP[@]}"; do
		case $k in
		*_udp) echo "input(type=\"imudp\" port=\"${BP[$k]}\" address=\"127.0.0.1\" ruleset=\"r_$k\" rcvBufSize=\"8m\")" ;;
		*) echo "input(type=\"imtcp\" port=\"${BP[$k]}\" address=\"127.0.0.1\" ruleset=\"r_$k\")" ;;
		esac
		echo "ruleset(name=\"r_$k\") { action(type=\"omfile\" file=\"$TESTDIR/b_$k.log\" template=\"raw\") }"
	done
} >"$TESTDIR/b.conf"

# sender config, the same for rsyslogd and sluiced (only ports differ)
sender_conf() { # $1 = a|s, $2 = listen port
	# no DNS: messages without a HOSTNAME then carry the same fromhost
	cat <<-EOF
	global(net.enableDNS="off")
	module(load="imtcp")
	input(type="imtcp" port="$2" address="127.0.0.1" ruleset="fwd")
	ruleset(name="fwd") {
		action(type="omfwd" target="127.0.0.1" port="${BP[${1}_udp]}" protocol="udp")
		action(type="omfwd" target="127.0.0.1" port="${BP[${1}_tcp]}" protocol="tcp")
		action(type="omfwd" target="127.0.0.1" port="${BP[${1}_oc]}" protocol="tcp"
		       tcp_framing="octet-counted")
		action(type="omfwd" target="127.0.0.1" port="${BP[${1}_z]}" protocol="tcp"
		       tcp_framing="octet-counted" compression.mode="single" ziplevel="6")
		*.* @@(o,z5)127.0.0.1:${BP[${1}_lg]}
	}
	EOF
}
P_A=$(get_free_port)
P_S=$PORT
sender_conf a "$P_A" >"$TESTDIR/a.conf"
sender_conf s "$P_S" >"$TESTDIR/s.conf"

start_rsyslogd "$TESTDIR/b.conf" "$P_B"
PID_B=$DAEMON_PID
start_rsyslogd "$TESTDIR/a.conf" "$P_A"
PID_A=$DAEMON_PID
start_sluiced "$TESTDIR/s.conf" "$P_S"
PID_S=$DAEMON_PID

# same input to both: the fixed lines, then N generated ones (paced so
# that UDP on loopback does not drop)
TOTAL=$((NFIX + N))
for who in a s; do
	p=$P_A
	[ $who = s ] && p=$P_S
	"$TCPFLOOD" -p "$p" -I "$INPUT" -m "$NFIX" -q || fail "expected tcpflood to send the fixed lines"
	"$TCPFLOOD" -p "$p" -m "$N" -r 5000 -q || fail "expected tcpflood to send $N messages"
	for t in udp tcp oc z lg; do
		wait_lines "$TESTDIR/b_${who}_$t.log" "$TOTAL" 60
	done
done
stop_daemon "$PID_S"
stop_daemon "$PID_A"
sleep 0.5
stop_daemon "$PID_B"

for t in udp tcp oc z lg; do
	a=$TESTDIR/b_a_$t.log s=$TESTDIR/b_s_$t.log
	na=$(count_lines "$a") ns=$(count_lines "$s")
	[ "$na" = "$TOTAL" ] || fail "expected $TOTAL messages from rsyslogd's omfwd ($t), got $na"
	[ "$ns" = "$TOTAL" ] || fail "expected $TOTAL messages from sluiced's omfwd ($t), got $ns"
	if ! cmp -s <(LC_ALL=C sort "$a") <(LC_ALL=C sort "$s"); then
		diff <(LC_ALL=C sort "$a") <(LC_ALL=C sort "$s") | head -n 10 >&2
		fail "expected sluiced's omfwd ($t) to deliver the same bytes as rsyslogd's, got the differences above"
	fi
	grep -a ' tag msgnum:' "$s" | python3 "$CHECK_SEQ" - --expect "$N" >/dev/null ||
		fail "expected msgnum 0..$((N - 1)) once each over $t"
done
log "ok: $TOTAL messages byte-identical to rsyslogd's omfwd over udp, tcp, octet-counted tcp, zlib single, legacy @@(o,z5)"
exit 0
