#!/bin/bash
# es_bench.sh - benchmark for doc/benchmarks.md ("Elasticsearch"): the same
# ES_BENCH_NMSGS (default 1,000,000) messages from tcpflood, through sluiced
# and then through rsyslogd (Debian's rsyslog-elasticsearch), into the same
# Elasticsearch 8.19 in one run, with the same templates (es_lib.sh), bulk
# mode and an action queue. For each daemon: documents/s (first byte sent
# to _count == N) and the daemon's CPU (user + system) per document. Also
# says whether each run indexed every message exactly once (seq check) and,
# when not, the distinct documents, duplicates and missing ones (exact),
# the most repeated seqs and the daemon's errorfile statuses.
# The input is bound to its own ruleset, so the daemons' internal messages
# stay out of the index.
# Not part of the test suite (it takes a few minutes); run it by hand:
#   tests/services/es_bench.sh          (from the top build dir)
# Prints one result line per daemon: "RESULT daemon docs docs/s cpu-µs/doc".
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/elasticsearch.sh"
. "$srcdir/tests/services/es_lib.sh"

N=${ES_BENCH_NMSGS:-1000000}
WORKERS=${ES_BENCH_WORKERS:-2}
BATCH=${ES_BENCH_BATCH:-2000}
DAEMONS=${ES_BENCH_DAEMONS:-"sluiced rsyslogd"}
require_tool tcpflood "$TCPFLOOD"

es_start elasticsearch
es_zero_replicas
es_gen_input "$TESTDIR/in.txt" "$N" 3

for d in $DAEMONS; do
	es_curl DELETE '/sluice-*' >/dev/null
	p=$(get_free_port)
	{
		es_templates
		[ "$d" = rsyslogd ] && echo 'module(load="omelasticsearch")'
		cat <<-EOF
		module(load="imtcp")
		input(type="imtcp" port="$p" address="127.0.0.1" ruleset="flood")
		ruleset(name="flood") {
		action(type="omelasticsearch" name="es" server="127.0.0.1" serverport="$ES_PORT"
		       esVersion.major="8" template="es_doc" searchIndex="es_index" dynSearchIndex="on"
		       bulkmode="on" errorfile="$TESTDIR/err-$d.json"
		       action.resumeRetryCount="-1" action.resumeInterval="1"
		       queue.type="LinkedList" queue.size="200000" queue.dequeueBatchSize="$BATCH"
		       queue.workerThreads="$WORKERS")
		}
		EOF
	} >"$TESTDIR/$d.conf"
	if [ "$d" = rsyslogd ]; then
		start_rsyslogd "$TESTDIR/$d.conf" "$p"
	else
		start_sluiced "$TESTDIR/$d.conf" "$p"
	fi
	pid=$DAEMON_PID
	c0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	t0=$(date +%s.%N)
	"$TCPFLOOD" -p "$p" -I "$TESTDIR/in.txt" -m "$N" -q || fail "tcpflood failed ($d)"
	# poll without forcing refreshes more than once a second
	last=-1
	since=$SECONDS
	while :; do
		got=$(es_count 'sluice-*')
		[ "$got" -ge "$N" ] && break
		kill -0 "$pid" 2>/dev/null || fail "$d died"
		if [ "$got" != "$last" ]; then
			last=$got
			since=$SECONDS
		elif [ $((SECONDS - since)) -ge 60 ]; then
			log "$d: stuck at $got documents for 60 s"
			break
		fi
		sleep 1
	done
	t1=$(date +%s.%N)
	c1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	sleep 3
	stop_daemon "$pid"
	total=$(es_count 'sluice-*')
	if (es_check_seq 'sluice-*' "$N") 2>/dev/null; then
		exact="each message exactly once"
	else
		# distinct seq values, exact: 1,000-wide histogram buckets, each
		# with a cardinality far below its precision threshold
		r=$(es_curl POST "/sluice-*/_search?size=0" \
			'{"aggs":{"h":{"histogram":{"field":"seq","interval":1000},"aggs":{"d":{"cardinality":{"field":"seq","precision_threshold":3000}}}}}}')
		distinct=$(python3 -c 'import json,sys; b=json.loads(sys.argv[1])["aggregations"]["h"]["buckets"]; print(sum(x["d"]["value"] for x in b))' "$r")
		exact="NOT exact: $total documents for $N messages, $distinct distinct: $((total - distinct)) duplicates, $((N - distinct)) missing"
		# how the duplicates look: the most repeated seqs, and the daemon's own words
		r=$(es_curl POST "/sluice-*/_search?size=0" \
			'{"aggs":{"t":{"terms":{"field":"seq","size":3,"min_doc_count":2}}}}')
		log "$d: most repeated seqs: $(python3 -c 'import json,sys; print([(x["key"], x["doc_count"]) for x in json.loads(sys.argv[1])["aggregations"]["t"]["buckets"]])' "$r")"
		log "$d: last lines of its log: $(grep -v '^tcpflood' "$TESTDIR/$d.$p.log" 2>/dev/null | tail -n 5)"
	fi
	# what the daemon's errorfile says (rsyslogd: whole requests and replies)
	if [ -s "$TESTDIR/err-$d.json" ]; then
		log "$d errorfile: $(wc -l <"$TESTDIR/err-$d.json") lines; item statuses: $(grep -o '\\\?"status\\\?": *[0-9]*' "$TESTDIR/err-$d.json" | grep -o '[0-9]*$' | sort | uniq -c | tr '\n' ' ')"
		cp "$TESTDIR/err-$d.json" "${ES_BENCH_KEEP:-/tmp}/es_bench-err-$d.json"
	fi
	hz=$(getconf CLK_TCK)
	awk -v d="$d" -v n="$N" -v t="$(awk "BEGIN{print $t1 - $t0}")" -v c="$((c1 - c0))" -v hz="$hz" \
		-v x="$exact" 'BEGIN { printf "RESULT %s %d docs in %.1f s: %.0f docs/s, %.2f s CPU, %.1f us CPU/doc (%s)\n",
			 d, n, t, n / t, c / hz, c / hz / n * 1e6, x }' | tee -a "$TESTDIR/results"
done
cat "$TESTDIR/results" >&2
exit 0
