#!/bin/bash
# kafka_outage_test.sh - the Kafka broker is stopped for 30 s in the middle
# of a flood through sluiced's omkafka, then started again (same port, same
# data). Every message must arrive; duplicates (a message the broker wrote
# but whose acknowledgement was lost with the connection) are counted and
# must stay below one dequeue batch (1024).
#
# Takes about a minute (KAFKA_OUTAGE sets the outage, default 30 s).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/kafka.sh"

NMSGS=${KAFKA_NMSGS:-60000}
RATE=${KAFKA_RATE:-1500}
OUTAGE=${KAFKA_OUTAGE:-30}
MAX_DUPS=${KAFKA_MAX_DUPS:-1024}
require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
kafka_require_dut

kafka_start
kafka_create_topic outage 3

cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
module(load="omkafka")
template(name="kvalue" type="string" string="%msg%")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="flood")
ruleset(name="flood") {
	action(type="omkafka" broker=["$KAFKA_BROKER"] topic="outage" template="kvalue"
	       partitions.number="3" errorFile="$TESTDIR/errors.json"
	       action.resumeRetryCount="-1" action.resumeInterval="1")
}
EOF

start_dut "$TESTDIR/test.conf"
# about NMSGS/RATE seconds of traffic (40 s by default) around the outage
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c 1 -m "$NMSGS" -r "$RATE" -q &
FLOOD_PID=$!
_SL_PIDS="$_SL_PIDS $FLOOD_PID"
sleep 5
before=$(kafka_count outage)
[ "$before" -gt 0 ] || fail "expected messages in topic outage before the outage, got none"
kafka_stop
log "broker stopped after $before messages; down for $OUTAGE s"
sleep "$OUTAGE"
kafka_restart
wait "$FLOOD_PID" || fail "expected tcpflood to send $NMSGS messages, got exit status $?"
_SL_PIDS=$(echo "$_SL_PIDS" | tr ' ' '\n' | grep -vx "$FLOOD_PID" | tr '\n' ' ')
kafka_wait_count outage "$NMSGS" 120 ||
	fail "expected $NMSGS messages in topic outage after the broker came back, got $KAFKA_GOT"
stop_daemon

OUT="$TESTDIR/consumed.txt"
kafka_consume outage "$OUT" "" 120
got=$(count_lines "$OUT")
python3 "$CHECK_SEQ" "$OUT" --expect "$NMSGS" --allow-dups ||
	fail "expected every msgnum 0..$((NMSGS - 1)) after a $OUTAGE s broker outage (check_seq above)"
dups=$((got - NMSGS))
log "$got messages read back: $NMSGS distinct, $dups duplicates"
[ "$dups" -le "$MAX_DUPS" ] || fail "expected at most $MAX_DUPS duplicates, got $dups"
bad=$(grep -cvE $'^[^\t]*\t[0-2]\t msgnum:[0-9]{8}:$' "$OUT")
[ "$bad" = 0 ] || fail "expected every value ' msgnum:NNNNNNNN:', got $bad other lines, e.g. '$(grep -vE $'^[^\t]*\t[0-2]\t msgnum:[0-9]{8}:$' "$OUT" | head -n 1)'"
[ ! -s "$TESTDIR/errors.json" ] || fail "expected no errorFile, got $(head -c 300 "$TESTDIR/errors.json")"
log "ok: broker down for $OUTAGE s, every one of $NMSGS messages arrived ($dups duplicates)"
exit 0
