#!/bin/bash
# kafka_params_test.sh - omkafka's parameters against a real Kafka broker,
# each checked on what kcat reads back: partitions.number (round-robin,
# exactly a third per partition), a constant key, kafkaHeader, dynaTopic
# (one topic per sending host), errorFile (messages larger than
# confParam message.max.bytes: one JSON line each), statsFile (librdkafka
# statistics), and failedMsgFile files left from an earlier run, in
# rsyslog's format and in sluice's, sent at start and then removed; and
# asyncWindow: with 100, librdkafka never holds more than 100 messages of
# the worker (its statistics' msg_cnt, sampled every 10 ms while 20,000
# messages pass), and every message arrives once.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/kafka.sh"

require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "sluiced only"
kafka_require_dut

kafka_start
kafka_create_topic rr 3
kafka_create_topic dyn-hosta 1
kafka_create_topic dyn-hostb 1
kafka_create_topic big 1
kafka_create_topic win 3

PORT2=$(get_free_port)
PORT3=$(get_free_port)
PORT4=$(get_free_port)
# undelivered messages of an earlier run: rsyslog's format (TOPIC TAB
# PAYLOAD) and sluice's (escaped fields, key and partition kept)
printf 'rr\tbacklog-rsyslog-1\nrr\tbacklog-rsyslog-2\n' >"$TESTDIR/failed-rr.txt"
printf '#sluice-omkafka-failed v1\ndyn-hosta\t0\t1700000000000\t=bk\\tkey\tbacklog-sluice\\n1\n' \
	>"$TESTDIR/failed-dyn.txt"

cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
module(load="omkafka")
template(name="kvalue" type="string" string="%hostname% %msg%")
template(name="dyntopic" type="string" string="dyn-%hostname%")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="rr")
input(type="imtcp" port="$PORT2" address="127.0.0.1" ruleset="dyn")
input(type="imtcp" port="$PORT3" address="127.0.0.1" ruleset="big")
input(type="imtcp" port="$PORT4" address="127.0.0.1" ruleset="win")
ruleset(name="rr") {
	action(type="omkafka" broker="$KAFKA_BROKER" topic="rr" template="kvalue"
	       partitions.number="3" key="const-key" kafkaHeader=["h1=v1", "h2=v=2"]
	       statsFile="$TESTDIR/stats.json" confParam=["statistics.interval.ms=200"]
	       keepFailedMessages="on" failedMsgFile="$TESTDIR/failed-rr.txt"
	       action.resumeRetryCount="-1" action.resumeInterval="1")
}
ruleset(name="dyn") {
	action(type="omkafka" broker="$KAFKA_BROKER" topic="dyntopic" dynaTopic="on"
	       dynaTopic.cacheSize="1" template="kvalue"
	       keepFailedMessages="on" failedMsgFile="$TESTDIR/failed-dyn.txt"
	       action.resumeRetryCount="-1" action.resumeInterval="1")
}
ruleset(name="big") {
	action(type="omkafka" broker="$KAFKA_BROKER" topic="big" template="kvalue"
	       confParam=["message.max.bytes=1000"] errorFile="$TESTDIR/errors.json")
}
ruleset(name="win") {
	action(type="omkafka" broker="$KAFKA_BROKER" topic="win" template="kvalue"
	       partitions.auto="on" confirmDelivery="async" asyncWindow="100"
	       statsFile="$TESTDIR/win-stats.json" confParam=["statistics.interval.ms=10"])
}
EOF

start_sluiced "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -m 999 -q || fail "expected tcpflood to send 999 messages"
"$TCPFLOOD" -p "$PORT2" -m 10 -H hosta -q || fail "expected tcpflood to send 10 messages"
"$TCPFLOOD" -p "$PORT2" -m 10 -s 10 -H hostb -q || fail "expected tcpflood to send 10 messages"
"$TCPFLOOD" -p "$PORT2" -m 10 -s 20 -H hosta -q || fail "expected tcpflood to send 10 messages"
"$TCPFLOOD" -p "$PORT3" -m 5 -d 2000 -q || fail "expected tcpflood to send 5 messages"
"$TCPFLOOD" -p "$PORT3" -m 3 -s 5 -q || fail "expected tcpflood to send 3 messages"
"$TCPFLOOD" -p "$PORT4" -m 20000 -q || fail "expected tcpflood to send 20000 messages"
kafka_wait_count rr 1001 30 || fail "expected 999 + 2 backlog messages in topic rr, got $KAFKA_GOT"
kafka_wait_count dyn-hosta 21 30 || fail "expected 20 + 1 backlog messages in dyn-hosta, got $KAFKA_GOT"
kafka_wait_count dyn-hostb 10 30 || fail "expected 10 messages in dyn-hostb, got $KAFKA_GOT"
kafka_wait_count big 3 30 || fail "expected the 3 small messages in topic big, got $KAFKA_GOT"
kafka_wait_count win 20000 60 || fail "expected 20000 messages in topic win, got $KAFKA_GOT"
wait_lines "$TESTDIR/errors.json" 5 30
sleep 1.5 # at least one tick: backlog done, files removed; stats written
stop_daemon

# round-robin over 3 partitions, constant key, headers
"$KCAT" -C -b "$KAFKA_BROKER" -t rr -o beginning -e -q -f '%k\t%p\t%h\t%s\n' >"$TESTDIR/rr.txt" ||
	fail "expected kcat to read topic rr"
for p in 0 1 2; do
	c=$(grep -c $'^const-key\t'"$p"$'\th1=v1,h2=v=2\ttcpflood  msgnum:' "$TESTDIR/rr.txt")
	[ "$c" = 333 ] || fail "expected 333 messages with key, headers and value in partition $p, got $c"
done
for b in 1 2; do
	c=$(grep -c $'^\t[0-2]\t\tbacklog-rsyslog-'"$b"'$' "$TESTDIR/rr.txt")
	[ "$c" = 1 ] || fail "expected backlog-rsyslog-$b once (no key, no header) in rr, got $c"
done
[ ! -e "$TESTDIR/failed-rr.txt" ] || fail "expected failed-rr.txt removed after delivery, got it"

# dynaTopic: one topic per host (cache of 1 topic handle: evictions)
kafka_consume dyn-hosta "$TESTDIR/a.txt" "" 30
kafka_consume dyn-hostb "$TESTDIR/b.txt" "" 30
c=$(grep -c $'^\t0\thosta  msgnum:000000[0-2][0-9]:$' "$TESTDIR/a.txt")
[ "$c" = 20 ] || fail "expected 20 messages of hosta in dyn-hosta, got $c"
c=$(grep -c $'^\t0\thostb  msgnum:000000[01][0-9]:$' "$TESTDIR/b.txt")
[ "$c" = 10 ] || fail "expected 10 messages of hostb in dyn-hostb, got $c"
"$KCAT" -C -b "$KAFKA_BROKER" -t dyn-hosta -o beginning -e -q -f '%k|%T|%s\n' >"$TESTDIR/a2.txt"
c=$(grep -c $'^bk\tkey|1700000000000|backlog-sluice$' "$TESTDIR/a2.txt")
[ "$c" = 1 ] || fail "expected the sluice-format backlog message (key 'bk<TAB>key', its timestamp, value with LF) once, got $c: $(grep backlog "$TESTDIR/a2.txt")"
[ ! -e "$TESTDIR/failed-dyn.txt" ] || fail "expected failed-dyn.txt removed after delivery, got it"

# errorFile: the 5 oversize messages, JSON with librdkafka's error
python3 - "$TESTDIR/errors.json" <<-'EOF' || fail "expected 5 JSON lines for the oversize messages in errors.json"
	import json, sys
	lines = open(sys.argv[1]).read().splitlines()
	assert len(lines) == 5, lines
	nums = set()
	for l in lines:
	    o = json.loads(l)
	    assert o["errcode"] == 10 and "too large" in o["errmsg"], o
	    assert o["topic"] == "big" and o["data"].startswith("tcpflood  msgnum:0000000"), o
	    nums.add(o["data"][17:25])
	assert nums == {"%08d" % i for i in range(5)}, nums
	EOF
"$KCAT" -C -b "$KAFKA_BROKER" -t big -o beginning -e -q -f '%s\n' >"$TESTDIR/big.txt"
[ "$(grep -c '^tcpflood  msgnum:0000000[5-7]:$' "$TESTDIR/big.txt")" = 3 ] ||
	fail "expected the 3 small messages in topic big, got $(cat "$TESTDIR/big.txt")"

# statsFile: librdkafka's statistics, one JSON document per line
python3 - "$TESTDIR/stats.json" <<-'EOF' || fail "expected librdkafka statistics JSON lines in stats.json"
	import json, sys
	lines = open(sys.argv[1]).read().splitlines()
	assert lines, "empty"
	for l in lines:
	    o = json.loads(l)
	    assert o["type"] == "producer" and "brokers" in o, o.keys()
	EOF
# asyncWindow: all 20,000 once, never more than 100 inside librdkafka
kafka_consume win "$TESTDIR/win.txt" 20000 60
c=$(sed -n 's/^\t[0-2]\ttcpflood  msgnum:\([0-9]*\):$/\1/p' "$TESTDIR/win.txt" | sort -u | wc -l)
[ "$c" = 20000 ] && [ "$(wc -l <"$TESTDIR/win.txt")" = 20000 ] ||
	fail "expected 20000 distinct messages in topic win, got $c distinct of $(wc -l <"$TESTDIR/win.txt")"
python3 - "$TESTDIR/win-stats.json" <<-'EOF' || fail "expected librdkafka to hold at most 100 messages with asyncWindow=100"
	import json, sys
	cnt = [json.loads(l)["msg_cnt"] for l in open(sys.argv[1]).read().splitlines()]
	assert len(cnt) >= 10, "only %d statistics documents" % len(cnt)
	assert max(cnt) <= 100, "msg_cnt up to %d (%d documents)" % (max(cnt), len(cnt))
	assert max(cnt) > 0, "msg_cnt never above 0 (%d documents)" % len(cnt)
	EOF
log "ok: asyncWindow"
log "ok: partitions.number, key, kafkaHeader, dynaTopic, errorFile, statsFile, failedMsgFile (both formats)"
exit 0
