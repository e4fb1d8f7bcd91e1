#!/bin/bash
# kafka_restart_test.sh - sluiced is stopped (SIGTERM) while the Kafka
# broker is down and messages are pending; then the broker and sluiced are
# started again. Every message must arrive. Two cases, one topic each:
# - "disk": a disk-assisted main queue (queue.filename), so omkafka's
#   confirmDelivery="auto" means per transaction: the batch omkafka holds
#   inside librdkafka is saved in failedMsgFile (keepFailedMessages="on")
#   and what still waits in the main queue by the queue
#   (queue.saveOnShutdown). Duplicates are counted and must stay below one
#   dequeue batch per place that kept it (2 x 1024).
# - "memory": the default main queue, so "auto" means async: every
#   message sent while the broker was down is inside librdkafka at the
#   stop, so all N2 of them must be in failedMsgFile, and none may arrive
#   twice.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/kafka.sh"

N1=${KAFKA_N1:-5000}      # delivered before the outage
N2=${KAFKA_N2:-20000}     # sent while the broker is down
MAX_DUPS=${KAFKA_MAX_DUPS:-2048}
require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
[ "$DUT_NAME" = sluiced ] || skip "sluiced only (rsyslogd loses these messages, see doc/benchmarks.md)"
kafka_require_dut

kafka_start

run_case() { # disk|memory
local mode=$1 topic=keep-$1
kafka_create_topic "$topic" 3
FAILED="$TESTDIR/failed-$mode.txt"
mkdir -p "$TESTDIR/work-$mode"
local mq=
[ "$mode" = disk ] && mq='main_queue(queue.type="LinkedList" queue.filename="mainq" queue.saveOnShutdown="on" queue.timeoutShutdown="2000")'
cat >"$TESTDIR/test.conf" <<EOF
global(workDirectory="$TESTDIR/work-$mode")
$mq
module(load="imtcp")
module(load="omkafka")
template(name="kvalue" type="string" string="%msg%")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omkafka" broker=["$KAFKA_BROKER"] topic="$topic" template="kvalue"
       partitions.auto="on" keepFailedMessages="on" failedMsgFile="$FAILED"
       closeTimeout="1000" errorFile="$TESTDIR/errors-$mode.json"
       action.resumeRetryCount="-1" action.resumeInterval="1")
EOF

start_sluiced "$TESTDIR/test.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m "$N1" -q ||
	fail "expected tcpflood to send $N1 messages, got exit status $?"
kafka_wait_count "$topic" "$N1" 60 || fail "expected $N1 messages in topic $topic, got $KAFKA_GOT"

kafka_stop
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m "$N2" -s "$N1" -q ||
	fail "expected tcpflood to send $N2 messages while the broker is down, got exit status $?"
sleep 3
stop_daemon
[ -s "$FAILED" ] || fail "expected omkafka to save its undelivered messages in $FAILED, got no file"
saved=$(($(count_lines "$FAILED") - 1))
log "sluiced stopped with the broker down: $saved messages in failedMsgFile"
[ "$saved" -gt 0 ] || fail "expected messages in $FAILED, got $saved"
if [ "$mode" = memory ]; then
	[ "$saved" = "$N2" ] || fail "expected all $N2 messages sent during the outage in $FAILED (async: librdkafka held them), got $saved"
else
	[ "$saved" -le 1024 ] || fail "expected at most one batch (1024) in $FAILED (per transaction: the rest waits in the queue), got $saved"
fi

kafka_restart
start_sluiced "$TESTDIR/test.conf"
TOTAL=$((N1 + N2))
kafka_wait_count "$topic" "$TOTAL" 120 ||
	fail "expected $TOTAL messages in topic $topic after both restarted, got $KAFKA_GOT"
# the backlog is done when the file is gone (checked about once a second)
for ((i = 0; i < 100; i++)); do
	[ -e "$FAILED" ] || break
	sleep 0.1
done
[ ! -e "$FAILED" ] || fail "expected $FAILED to be removed once its messages were delivered, got it still there"
stop_daemon

OUT="$TESTDIR/consumed-$mode.txt"
kafka_consume "$topic" "$OUT" "" 120
got=$(count_lines "$OUT")
python3 "$CHECK_SEQ" "$OUT" --expect "$TOTAL" --allow-dups ||
	fail "expected every msgnum 0..$((TOTAL - 1)) after the restarts (check_seq above)"
dups=$((got - TOTAL))
log "$mode: $got messages read back: $TOTAL distinct, $dups duplicates"
[ "$mode" = disk ] || MAX_DUPS=0
[ "$dups" -le "$MAX_DUPS" ] || fail "expected at most $MAX_DUPS duplicates, got $dups"
bad=$(grep -cvE $'^\t[0-2]\t msgnum:[0-9]{8}:$' "$OUT")
[ "$bad" = 0 ] || fail "expected every value ' msgnum:NNNNNNNN:' without key, got $bad other lines, e.g. '$(grep -vE $'^\t[0-2]\t msgnum:[0-9]{8}:$' "$OUT" | head -n 1)'"
}

run_case disk
run_case memory
log "ok: sluiced stopped while the broker was down; all $TOTAL messages arrived after both restarted, with a disk and a memory main queue"
exit 0
