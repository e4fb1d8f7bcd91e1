#!/bin/bash
# kafka_restart_test.sh - sluiced is stopped (SIGTERM) while the Kafka
# broker is down and messages are pending; then the broker and sluiced are
# started again. Every message must arrive: the batch omkafka holds inside
# librdkafka is saved in failedMsgFile (keepFailedMessages="on") and sent
# first after the restart, what still waits in the main queue is saved by
# the disk-assisted queue (queue.saveOnShutdown). Duplicates are counted
# and must stay below one dequeue batch per place that kept it (2 x 1024).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/kafka.sh"

N1=${KAFKA_N1:-5000}      # delivered before the outage
N2=${KAFKA_N2:-20000}     # sent while the broker is down
MAX_DUPS=${KAFKA_MAX_DUPS:-2048}
require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
[ "$DUT_NAME" = sluiced ] || skip "sluiced only (rsyslogd loses these messages, see doc/benchmarks.md)"
[ -e "$top_builddir/plugins/omkafka/omkafka.la" ] ||
	skip "omkafka not built (librdkafka-dev missing at configure time)"

kafka_start
kafka_create_topic keep 3

FAILED="$TESTDIR/failed.txt"
mkdir -p "$TESTDIR/work"
cat >"$TESTDIR/test.conf" <<EOF
global(workDirectory="$TESTDIR/work")
main_queue(queue.type="LinkedList" queue.filename="mainq" queue.saveOnShutdown="on"
	   queue.timeoutShutdown="2000")
module(load="imtcp")
module(load="omkafka")
template(name="kvalue" type="string" string="%msg%")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omkafka" broker=["$KAFKA_BROKER"] topic="keep" template="kvalue"
       partitions.auto="on" keepFailedMessages="on" failedMsgFile="$FAILED"
       closeTimeout="1000" errorFile="$TESTDIR/errors.json"
       action.resumeRetryCount="-1" action.resumeInterval="1")
EOF

start_sluiced "$TESTDIR/test.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m "$N1" -q ||
	fail "expected tcpflood to send $N1 messages, got exit status $?"
kafka_wait_count keep "$N1" 60 || fail "expected $N1 messages in topic keep, got $KAFKA_GOT"

kafka_stop
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m "$N2" -s "$N1" -q ||
	fail "expected tcpflood to send $N2 messages while the broker is down, got exit status $?"
sleep 3
stop_daemon
[ -s "$FAILED" ] || fail "expected omkafka to save its undelivered messages in $FAILED, got no file"
saved=$(($(count_lines "$FAILED") - 1))
log "sluiced stopped with the broker down: $saved messages in failedMsgFile"
[ "$saved" -gt 0 ] || fail "expected messages in $FAILED, got $saved"

kafka_restart
start_sluiced "$TESTDIR/test.conf"
TOTAL=$((N1 + N2))
kafka_wait_count keep "$TOTAL" 120 ||
	fail "expected $TOTAL messages in topic keep after both restarted, got $KAFKA_GOT"
# the backlog is done when the file is gone (checked about once a second)
for ((i = 0; i < 100; i++)); do
	[ -e "$FAILED" ] || break
	sleep 0.1
done
[ ! -e "$FAILED" ] || fail "expected $FAILED to be removed once its messages were delivered, got it still there"
stop_daemon

OUT="$TESTDIR/consumed.txt"
kafka_consume keep "$OUT" "" 120
got=$(count_lines "$OUT")
python3 "$CHECK_SEQ" "$OUT" --expect "$TOTAL" --allow-dups ||
	fail "expected every msgnum 0..$((TOTAL - 1)) after the restarts (check_seq above)"
dups=$((got - TOTAL))
log "$got messages read back: $TOTAL distinct, $dups duplicates"
[ "$dups" -le "$MAX_DUPS" ] || fail "expected at most $MAX_DUPS duplicates, got $dups"
bad=$(grep -cvE $'^\t[0-2]\t msgnum:[0-9]{8}:$' "$OUT")
[ "$bad" = 0 ] || fail "expected every value ' msgnum:NNNNNNNN:' without key, got $bad other lines, e.g. '$(grep -vE $'^\t[0-2]\t msgnum:[0-9]{8}:$' "$OUT" | head -n 1)'"
log "ok: sluiced stopped while the broker was down; all $TOTAL messages arrived after both restarted"
exit 0
