#!/bin/bash
# kafka_flood_test.sh - tcpflood -> sluiced (imtcp) -> omkafka -> a real
# Kafka 3.9 broker (KRaft, one node, 127.0.0.1), topic with 3 partitions,
# read back with kcat. Every message must arrive exactly once, its value
# exactly the template's output and its key the per-message key template
# (the sequence number), spread by librdkafka's partitioner over all three
# partitions.
#
# KAFKA_NMSGS sets the count (default 200,000 for CI; the 1,000,000 run is
# `KAFKA_NMSGS=1000000 tests/services/kafka_flood_test.sh`, see
# doc/benchmarks.md). SLUICE_DUT=rsyslogd runs the same test against
# rsyslogd's omkafka (Debian package rsyslog-kafka). sluiced runs it twice,
# with confirmDelivery="async" (what "auto" means here) and "transaction".
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/kafka.sh"

NMSGS=${KAFKA_NMSGS:-200000}
require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
kafka_require_dut

kafka_start

run_flood() { # TOPIC [CONFIRM-PARAMETER]
local topic=$1 confirm=${2:-}
kafka_create_topic "$topic" 3

cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
module(load="omkafka")
template(name="kvalue" type="string" string="v1|%hostname%|%syslogtag%|%msg%|%pri%")
template(name="kkey" type="string" string="%msg:F,58:2%")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="flood")
ruleset(name="flood") {
	action(type="omkafka" broker=["$KAFKA_BROKER"] topic="$topic" template="kvalue"
	       key="kkey" dynaKey="on" partitions.auto="on"
	       errorFile="$TESTDIR/errors-$topic.json"
	       action.resumeRetryCount="-1" action.resumeInterval="1" $confirm)
}
EOF

start_dut "$TESTDIR/test.conf"
t0=$SECONDS
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c 1 -m "$NMSGS" -F lf -q ||
	fail "expected tcpflood to send $NMSGS messages, got exit status $?"
kafka_wait_count "$topic" "$NMSGS" 300 ||
	fail "expected $NMSGS messages in topic $topic, got $KAFKA_GOT"
log "$topic: $NMSGS messages acknowledged by the broker after $((SECONDS - t0)) s"
stop_daemon

OUT="$TESTDIR/consumed-$topic.txt"
kafka_consume "$topic" "$OUT" "" 120
got=$(count_lines "$OUT")
[ "$got" = "$NMSGS" ] || fail "expected kcat to read $NMSGS messages, got $got"
python3 "$CHECK_SEQ" "$OUT" --expect "$NMSGS" ||
	fail "expected msgnum 0..$((NMSGS - 1)) each exactly once (check_seq above)"

# every message: key = its sequence number, value = the template's bytes
bad=$(awk -F'\t' '$3 != "v1|tcpflood|tag| msgnum:" $1 ":|167" || $1 !~ /^[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/' "$OUT" | wc -l)
[ "$bad" = 0 ] || fail "expected KEY<TAB>PART<TAB>v1|tcpflood|tag| msgnum:KEY:|167 on every line, got $bad other lines, e.g. '$(awk -F'\t' '$3 != "v1|tcpflood|tag| msgnum:" $1 ":|167"' "$OUT" | head -n 1)'"
for n in 0 1 $((NMSGS / 2)) $((NMSGS - 1)); do
	k=$(printf '%08d' "$n")
	c=$(grep -cF -- "v1|tcpflood|tag| msgnum:$k:|167" "$OUT")
	[ "$c" = 1 ] || fail "expected one message with msgnum $k, got $c"
done
# the partitioner spread the keys over the three partitions
for p in 0 1 2; do
	c=$(awk -F'\t' -v p="$p" '$2 == p' "$OUT" | wc -l)
	[ "$c" -gt $((NMSGS / 5)) ] ||
		fail "expected about a third of $NMSGS messages in partition $p, got $c"
done
[ ! -s "$TESTDIR/errors-$topic.json" ] || fail "expected no errorFile, got $(head -c 300 "$TESTDIR/errors-$topic.json")"
}

if [ "$DUT_NAME" = sluiced ]; then
	run_flood flood-async 'confirmDelivery="async"'
	run_flood flood-tx 'confirmDelivery="transaction"'
else
	run_flood flood
fi
log "ok: $NMSGS messages via $DUT_NAME's omkafka, exactly once, keys and values as configured"
exit 0
