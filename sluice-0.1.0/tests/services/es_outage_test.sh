#!/bin/bash
# es_outage_test.sh - Elasticsearch 8.19 is stopped for 30 s in the middle
# of a flood and started again (same port, same data): with a bulkid built
# from the message's sequence number, every message is indexed and none
# twice (count, and seq 0..N-1 each once), nothing is in errorfile, and the
# module's counters show the outage (connection errors, retries) and no
# failure. The action has a queue of its own and resumeRetryCount -1, as
# rsyslog's documentation recommends for omelasticsearch.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/elasticsearch.sh"
. "$srcdir/tests/services/es_lib.sh"

N=${ES_OUTAGE_NMSGS:-60000}
RATE=${ES_OUTAGE_RATE:-2000}
DOWN=${ES_OUTAGE_SECONDS:-30}
require_tool tcpflood "$TCPFLOOD"
require_tool sluiced "$SLUICED"
[ -e "$top_builddir/plugins/omelasticsearch/.libs/omelasticsearch.so" ] ||
	skip "omelasticsearch was not built (libcurl missing?)"

es_start elasticsearch
es_zero_replicas
es_gen_input "$TESTDIR/in.txt" "$N" 1

{
	es_templates
	cat <<-EOF
	module(load="imtcp")
	input(type="imtcp" port="$PORT" address="127.0.0.1")
	action(type="omelasticsearch" name="es" server="127.0.0.1" serverport="$ES_PORT"
	       template="es_doc" searchIndex="outage" bulkmode="on" bulkid="es_id" dynbulkid="on"
	       errorfile="$TESTDIR/err.json" action.errorFile="$TESTDIR/given-up.json"
	       action.resumeRetryCount="-1" action.resumeInterval="1" action.resumeIntervalMax="2"
	       queue.type="LinkedList" queue.size="$((N * 2))" queue.dequeueBatchSize="1000")
	EOF
} >"$TESTDIR/outage.conf"
start_sluiced "$TESTDIR/outage.conf"
SL_PID=$DAEMON_PID

"$TCPFLOOD" -p "$PORT" -I "$TESTDIR/in.txt" -m "$N" -r "$RATE" -q &
FLOOD_PID=$!
_SL_PIDS="$_SL_PIDS $FLOOD_PID"
sleep 5
before=$(es_count outage)
log "stopping elasticsearch with $before documents indexed"
es_stop
t_down=$SECONDS
sleep "$DOWN"
log "starting elasticsearch again after $((SECONDS - t_down)) s"
es_restart
wait "$FLOOD_PID" || fail "expected tcpflood to send $N messages, got exit status $?"
es_wait_count outage "$N" 300
sleep 2
got=$(es_count outage)
[ "$got" = "$N" ] || fail "expected $N documents after the flood, got $got"
es_check_seq outage "$N"
stop_daemon "$SL_PID"

[ "$before" -gt 0 ] && [ "$before" -lt "$N" ] ||
	fail "expected the outage to hit in the middle of the flood, got $before of $N indexed before it"
[ -s "$TESTDIR/err.json" ] && fail "expected an empty errorfile, got $(head -n 2 "$TESTDIR/err.json")"
[ -s "$TESTDIR/given-up.json" ] && fail "expected no message given up, got $(head -n 2 "$TESTDIR/given-up.json")"
slog="$TESTDIR/sluiced.$PORT.log"
v=$(es_stats_field "$slog" failed)
[ "$v" = 0 ] || fail "expected counter failed=0, got '$v'"
v=$(es_stats_field "$slog" connection_errors)
[ "${v:-0}" -gt 0 ] || fail "expected connection errors during the outage, got '$v'"
v=$(es_stats_field "$slog" indexed)
[ "${v:-0}" -ge "$N" ] || fail "expected counter indexed >= $N, got '$v'"
log "ok: $N indexed exactly once across a ${DOWN} s outage ($before before it); $(grep -o 'retried=[0-9]*' "$slog" | tail -n 1)"
exit 0
