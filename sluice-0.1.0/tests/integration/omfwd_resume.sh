#!/bin/bash
# omfwd_resume.sh - connection loss and fail-over of omfwd over TCP.
# Phase 1: sluiced forwards a paced flood to a real rsyslogd; the receiver is
# stopped in the middle, stays down for a few seconds and is started again.
# The action suspends (action.resumeRetryCount="-1", resumeInterval 1 s) while
# its disk-assisted action queue (small in memory, so it spills to disk)
# holds what arrives meanwhile. Every message must reach the receiver at least once
# (at-least-once: the resend window may repeat a few around the loss).
# Phase 2: target=["127.0.0.1","127.0.0.2"]: the primary receiver is stopped
# during the flood; the rest must arrive at the secondary, nothing lost.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool tcpflood "$TCPFLOOD"
require_tool rsyslogd "$RSYSLOGD"
N=${N:-40000}

P_B=$(get_free_port)
OUT="$TESTDIR/b.log"
cat >"$TESTDIR/b.conf" <<EOF
module(load="imtcp")
template(name="raw" type="string" string="%rawmsg%\n")
input(type="imtcp" port="$P_B" address="127.0.0.1" ruleset="r")
ruleset(name="r") { action(type="omfile" file="$OUT" template="raw") }
EOF
mkdir -p "$TESTDIR/spool"
cat >"$TESTDIR/s.conf" <<EOF
global(workDirectory="$TESTDIR/spool")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="fwd")
ruleset(name="fwd") {
	action(type="omfwd" target="127.0.0.1" port="$P_B" protocol="tcp" resendWindow="${WINDOW:-256k}"
	       queue.type="LinkedList" queue.filename="fwdq" queue.size="5000"
	       queue.highWatermark="4000" queue.lowWatermark="1000" queue.saveOnShutdown="on"
	       action.resumeRetryCount="-1" action.resumeInterval="1")
}
EOF

start_rsyslogd "$TESTDIR/b.conf" "$P_B"
PID_B=$DAEMON_PID
start_sluiced "$TESTDIR/s.conf" "$PORT"
PID_S=$DAEMON_PID

"$TCPFLOOD" -p "$PORT" -m "$N" -r 10000 -q &
flood=$!
DAEMON_PID=$PID_B
wait_lines "$OUT" $((N / 5)) 60
stop_daemon "$PID_B"
before=$(count_lines "$OUT")
sleep 3
start_rsyslogd "$TESTDIR/b.conf" "$P_B"
PID_B=$DAEMON_PID
wait "$flood" || fail "expected tcpflood to send $N messages, got exit status $?"
DAEMON_PID=$PID_B
STALL_TIMEOUT=20 wait_lines "$OUT" "$N" 90
wait_stable 10 "$OUT"
stop_daemon "$PID_S"
stop_daemon "$PID_B"
got=$(count_lines "$OUT")
python3 "$CHECK_SEQ" "$OUT" --expect "$N" --allow-dups ||
	fail "expected every msgnum 0..$((N - 1)) at least once after the receiver restart (check_seq above)"
[ "$before" -lt "$N" ] || fail "expected the receiver to be stopped mid-flood, but it had all $before lines"
log "phase 1 ok: $got lines for $N messages ($((got - N)) repeated), receiver down after $before"

# --- phase 2: fail-over to the second target
P_F=$(get_free_port)
OUT1="$TESTDIR/f1.log" OUT2="$TESTDIR/f2.log"
for i in 1 2; do
	cat >"$TESTDIR/f$i.conf" <<-EOF
	module(load="imtcp")
	template(name="raw" type="string" string="%rawmsg%\n")
	input(type="imtcp" port="$P_F" address="127.0.0.$i" ruleset="r")
	ruleset(name="r") { action(type="omfile" file="$TESTDIR/f$i.log" template="raw") }
	EOF
done
# start_rsyslogd waits on 127.0.0.1:PORT, so the secondary is waited for here
start_rsyslogd "$TESTDIR/f1.conf" "$P_F"
PID_F1=$DAEMON_PID
start_rsyslogd "$TESTDIR/f2.conf" ""
PID_F2=$DAEMON_PID
for ((i = 0; i < 100; i++)); do
	(exec 3<>"/dev/tcp/127.0.0.2/$P_F") 2>/dev/null && break
	sleep 0.1
done
PORT2=$(get_free_port)
cat >"$TESTDIR/s2.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT2" address="127.0.0.1" ruleset="fwd")
ruleset(name="fwd") {
	action(type="omfwd" target=["127.0.0.1", "127.0.0.2"] port="$P_F" protocol="tcp"
	       tcp_framing="octet-counted" action.resumeRetryCount="-1" action.resumeInterval="1")
}
EOF
start_sluiced "$TESTDIR/s2.conf" "$PORT2"
PID_S=$DAEMON_PID
N2=$((N / 2))
"$TCPFLOOD" -p "$PORT2" -m "$N2" -r 10000 -q &
flood=$!
DAEMON_PID=$PID_F1
wait_lines "$OUT1" $((N2 / 5)) 60
stop_daemon "$PID_F1"
wait "$flood" || fail "expected tcpflood to send $N2 messages, got exit status $?"
DAEMON_PID=$PID_S
deadline=$((SECONDS + 60))
while [ $(($(count_lines "$OUT1") + $(count_lines "$OUT2"))) -lt "$N2" ] && [ "$SECONDS" -lt "$deadline" ]; do
	sleep 0.2
done
wait_stable 10 "$OUT2"
stop_daemon "$PID_S"
stop_daemon "$PID_F2"
g1=$(count_lines "$OUT1") g2=$(count_lines "$OUT2")
[ "$g2" -gt 0 ] || fail "expected the secondary target to get the messages after the primary stopped, got none"
python3 "$CHECK_SEQ" "$OUT1" "$OUT2" --expect "$N2" --allow-dups ||
	fail "expected every msgnum 0..$((N2 - 1)) at least once across primary and secondary"
# --- configuration errors name FILE:LINE
printf '%s\n' 'module(load="imtcp")' \
	'action(type="omfwd" target="127.0.0.1" protocol="sctp")' \
	'action(type="omfwd" target="127.0.0.1" protocol="tcp" TCP_Framing="netstring")' \
	'action(type="omfwd" target="127.0.0.1" protocol="tcp" StreamDriver="tls9")' \
	'action(type="omfwd" port="514")' >"$TESTDIR/bad.conf"
out=$(check_config "$TESTDIR/bad.conf") && fail "expected the bad omfwd config to be refused, got exit 0"
for want in "bad.conf:2: .*protocol 'sctp' is invalid" "bad.conf:3: .*TCP_Framing 'netstring' is invalid" \
	"bad.conf:4: .*StreamDriver 'tls9' is not known" "bad.conf:5: .*'target'"; do
	grep -q "$want" <<<"$out" || fail "expected an error matching '$want', got: $out"
done
log "ok: resume after receiver restart, and fail-over ($g1 lines on the primary, $g2 on the secondary)"
exit 0
