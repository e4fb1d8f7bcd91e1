#!/bin/bash
# kafka_idle_retry_test.sh - omkafka with confirmDelivery="async" (the
# default with memory queues) when the broker is down and then no more
# messages come: the delivery reports of a worker between transactions are
# served by the housekeeping thread (kafka_tick). Messages produced while
# the broker is down time out inside librdkafka (message.timeout.ms=3000
# here), come back as failed reports, are kept in the worker's retry list
# and produced again, also with no new traffic; once the broker is back
# every one of them must arrive, exactly once.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/kafka.sh"

N=${KAFKA_N:-2000}
require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
[ "$DUT_NAME" = sluiced ] || skip "sluiced only (rsyslogd's omkafka drops timed-out messages)"
kafka_require_dut

kafka_start
kafka_create_topic idle 3

cat >"$TESTDIR/test.conf" <<CONF
module(load="imtcp")
module(load="omkafka")
module(load="impstats" interval="1" log.file="$TESTDIR/stats.log" log.syslog="off")
template(name="kvalue" type="string" string="%msg%")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omkafka" broker=["$KAFKA_BROKER"] topic="idle" template="kvalue"
       partitions.auto="on" confParam=["message.timeout.ms=3000"]
       errorFile="$TESTDIR/errors.json"
       action.resumeRetryCount="-1" action.resumeInterval="1")
CONF

start_sluiced "$TESTDIR/test.conf"
kafka_stop
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m "$N" -q ||
	fail "expected tcpflood to send $N messages while the broker is down, got exit status $?"
# long enough for every message to time out inside librdkafka at least
# twice: only the housekeeping thread can produce them again now
sleep 8
kafka_restart
kafka_wait_count idle "$N" 60 ||
	fail "expected $N messages in topic idle after the broker came back (no new traffic), got $KAFKA_GOT"
stop_daemon
# the path under test was taken: messages came back failed and were resent
held=$(grep -o 'omkafka[^ ]*: origin=omkafka .*' "$TESTDIR/stats.log" | tail -n 1)
log "last omkafka statistics: $held"
resent=$(sed -n 's/.*resent=\([0-9]*\).*/\1/p' <<<"$held")
[ "${resent:-0}" -ge "$N" ] || fail "expected at least $N messages resent after timing out, got '${resent:-none}' ($held)"

OUT="$TESTDIR/consumed.txt"
kafka_consume idle "$OUT" "" 120
python3 "$CHECK_SEQ" "$OUT" --expect "$N" ||
	fail "expected msgnum 0..$((N - 1)) each exactly once (check_seq above)"
[ ! -s "$TESTDIR/errors.json" ] || fail "expected no errorFile (timeouts are retried), got $(head -c 300 "$TESTDIR/errors.json")"
log "ok: $N messages that timed out while the broker was down arrived once it was back, with no new traffic"
exit 0
