#!/bin/bash
# es_bench.sh - benchmark for doc/benchmarks.md ("Elasticsearch"): the same
# ES_BENCH_NMSGS (default 1,000,000) messages from tcpflood, through sluiced
# and then through rsyslogd (Debian's rsyslog-elasticsearch), into the same
# Elasticsearch 8.19 in one run, with the same templates (es_lib.sh), bulk
# mode and an action queue. The input is bound to its own ruleset, so the
# daemons' internal messages stay out of the index.
#
# Two rates per daemon, both from t0 = the start of tcpflood:
#  - documents/s until _count == N (the old figure): unfair when a daemon
#    re-sends bulks, as rsyslogd 8.2302 does (its _count reaches N with
#    half of them duplicates);
#  - distinct documents/s: the distinct messages (seq values 0..N-1) over
#    the time when the last of them first reached Elasticsearch. The test
#    distribution has no ingest processors, so no arrival stamp can be put
#    into the documents; instead each document's _seq_no (the order in
#    which its index's one shard took operations in) says when it came: a
#    sampler (es_bench_sampler.py, every ES_BENCH_SAMPLE s, default 0.2)
#    records the time, the daemon's CPU and each index's max_seq_no from
#    _stats (no refresh); after the run a composite aggregation over seq
#    and _index with min(_seq_no) gives each seq's first operation, and
#    the first sample that shows it is its arrival time (so the times are
#    late by up to one sample interval, the rates low by as much). The
#    documents and index settings are those of the other ES tests.
# The script polls _count once a second until the index stops growing:
# _count == N and the seq check passes, or no new document for
# ES_BENCH_QUIET s (default 10; 30 while fewer than N are there). The
# daemon's CPU (user + system from /proc) is taken at t0 and at the
# sample of the last operation (a daemon is not charged the wait), and
# given per distinct and per indexed document. Also says whether each run
# indexed every message exactly once (es_check_seq) and, when not, the
# duplicates and missing ones (exact), the most repeated seqs and the
# daemon's errorfile statuses.
# Not part of the test suite (it takes a few minutes); run it by hand:
#   tests/services/es_bench.sh          (from the top build dir)
# ES_BENCH_NMSGS, ES_BENCH_WORKERS, ES_BENCH_BATCH, ES_BENCH_DAEMONS,
# ES_BENCH_QUIET, ES_BENCH_SAMPLE vary it. Prints one RESULT line per daemon.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/elasticsearch.sh"
. "$srcdir/tests/services/es_lib.sh"

N=${ES_BENCH_NMSGS:-1000000}
WORKERS=${ES_BENCH_WORKERS:-2}
BATCH=${ES_BENCH_BATCH:-2000}
DAEMONS=${ES_BENCH_DAEMONS:-"sluiced rsyslogd"}
QUIET=${ES_BENCH_QUIET:-10}
SAMPLE=${ES_BENCH_SAMPLE:-0.2}
require_tool tcpflood "$TCPFLOOD"

# cpu_ticks PID: utime + stime in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)

es_start elasticsearch
es_zero_replicas
es_gen_input "$TESTDIR/in.txt" "$N" 3

# es_arrivals PATTERN N T0MS SAMPLES: from a composite aggregation over seq
# and _index with min(_seq_no) (paged, exact) and the sampler's lines, one
# line "distinct total dups missing ops tlast tp99 tops cops": distinct
# seqs in 0..N-1, documents, duplicates, missing seqs, operations in the
# last sample; in ms after T0MS the first arrival of the last distinct
# seq, the time by which 99 % of the distinct ones had arrived, the first
# sample that showed the last operation; the daemon's CPU ticks in that
# sample. Then one line with the most repeated seqs (seq:count) and the
# first missing ones.
es_arrivals() {
	python3 - "$ES_URL" "$@" <<-'EOF'
	import bisect, json, sys, urllib.request
	url, pat, n, t0, samples = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
	def search(body):
	    req = urllib.request.Request("%s/%s/_search?size=0" % (url, pat), json.dumps(body).encode(),
	                                 {"Content-Type": "application/json"})
	    with urllib.request.urlopen(req, timeout=300) as f:
	        return json.load(f)
	comp = {"size": 10000, "sources": [{"s": {"terms": {"field": "seq"}}}, {"i": {"terms": {"field": "_index"}}}]}
	body = {"track_total_hits": True, "aggs": {"c": {"composite": comp, "aggs": {"m": {"min": {"field": "_seq_no"}}}}}}
	first = {}   # seq -> [(index, its first _seq_no there)]
	count = {}
	total = None
	while True:
	    r = search(body)
	    if total is None:
	        total = r["hits"]["total"]["value"]
	    c = r["aggregations"]["c"]
	    for b in c["buckets"]:
	        s, i = b["key"]["s"], b["key"]["i"]
	        first.setdefault(s, []).append((i, int(b["m"]["value"])))
	        count[s] = count.get(s, 0) + b["doc_count"]
	    if "after_key" not in c or not c["buckets"]:
	        break
	    comp["after"] = c["after_key"]
	# per index: the times of the samples and the max_seq_no each showed
	rows = [json.loads(l) for l in open(samples)]
	seen = {}
	for x in rows:
	    for i, m in x["s"].items():
	        seen.setdefault(i, ([], []))
	        seen[i][0].append(m)
	        seen[i][1].append(x["t"])
	def when(i, sn):
	    ms, ts = seen.get(i, ([], []))
	    k = bisect.bisect_left(ms, sn)
	    if k == len(ms):
	        sys.exit("es_arrivals: %s _seq_no %d not in any sample" % (i, sn))
	    return ts[k]
	arr = sorted(min(when(i, sn) for i, sn in v) for s, v in first.items() if 0 <= s < n)
	d = len(arr)
	ops = sum(m + 1 for m in rows[-1]["s"].values())
	lastrow = next(x for x in rows if sum(m + 1 for m in x["s"].values()) == ops)
	print(d, total, total - len(first), n - d, ops,
	      arr[-1] - t0 if d else 0, arr[-(d // 100) - 1] - t0 if d else 0,
	      lastrow["t"] - t0, lastrow["c"])
	reps = sorted(((k, s) for s, k in count.items() if k > 1), reverse=True)[:3]
	miss = [s for s in range(n) if s not in first][:5]
	print((" ".join("%d:%d" % (s, k) for k, s in reps) or "none") + "; missing seqs (first 5): " +
	      (" ".join(map(str, miss)) or "none"))
	EOF
}

for d in $DAEMONS; do
	# the previous daemon's indices, by name (Elasticsearch 8 refuses
	# wildcards in DELETE: action.destructive_requires_name)
	old=$(es_curl GET '/_cat/indices/sluice-*?h=index' | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
	if [ -n "$old" ]; then
		r=$(es_curl DELETE "/$old")
		case $r in *'"acknowledged":true'*) ;; *) fail "expected $old to be deleted, got: $r" ;; esac
	fi
	got=$(es_count 'sluice-*')
	[ "$got" = 0 ] || fail "expected no documents in sluice-* before $d, got $got"
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
	python3 "$srcdir/tests/services/es_bench_sampler.py" "$ES_URL" 'sluice-*' "$pid" "$SAMPLE" \
		"$TESTDIR/samples-$d.jsonl" 2>>"$TESTDIR/sampler-$d.log" &
	spid=$!
	c0=$(cpu_ticks "$pid")
	t0=$(date +%s%3N)
	"$TCPFLOOD" -p "$p" -I "$TESTDIR/in.txt" -m "$N" -q || fail "tcpflood failed ($d)"
	# poll without forcing refreshes more than once a second, until the
	# index stops growing; tN/cN when _count first reaches N
	last=-1
	since=$SECONDS
	tN= cN=
	while :; do
		got=$(es_count 'sluice-*')
		kill -0 "$pid" 2>/dev/null || fail "$d died"
		if [ "$got" != "$last" ]; then
			last=$got
			since=$SECONDS
			if [ -z "$tN" ] && [ "$got" -ge "$N" ]; then
				tN=$(date +%s%3N) cN=$(cpu_ticks "$pid")
			fi
			[ "$got" = "$N" ] && (es_check_seq 'sluice-*' "$N") 2>/dev/null && break
		else
			q=$QUIET
			[ "$got" -lt "$N" ] && [ "$q" -lt 30 ] && q=30
			if [ $((SECONDS - since)) -ge "$q" ]; then
				log "$d: no new document for $q s, at $got documents"
				break
			fi
		fi
		sleep 1
	done
	# one more sample after the last poll, then the sampler stops
	sleep 1
	kill -TERM "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	[ -s "$TESTDIR/sampler-$d.log" ] && log "$d: sampler says: $(tail -n 3 "$TESTDIR/sampler-$d.log" | tr '\n' ' ')"
	sleep 2
	stop_daemon "$pid"
	total=$(es_count 'sluice-*')
	[ "$total" = "$last" ] || log "$d: $total documents after the stop, $last at the last poll"
	if (es_check_seq 'sluice-*' "$N") 2>/dev/null; then
		exact="each message exactly once"
	else
		exact="NOT exact"
		log "$d: last lines of its log: $(grep -v '^tcpflood' "$TESTDIR/$d.$p.log" 2>/dev/null | tail -n 5)"
	fi
	{ read -r distinct atotal dups missing ops tlast tp99 tops c1 && read -r reps; } \
		< <(es_arrivals 'sluice-*' "$N" "$t0" "$TESTDIR/samples-$d.jsonl") ||
		fail "$d: could not work out the arrivals"
	log "$d: $atotal documents ($ops operations in the last sample), $distinct distinct, $dups duplicates, $missing missing; most repeated seq:count $reps"
	log "$d: ms after t0: 99 % of the distinct seqs first arrived by $tp99, the last distinct one $tlast; the last operation $tops"
	# what the daemon's errorfile says (rsyslogd: whole requests and replies)
	if [ -s "$TESTDIR/err-$d.json" ]; then
		log "$d errorfile: $(wc -l <"$TESTDIR/err-$d.json") lines; item statuses: $(grep -o '\\\?"status\\\?": *[0-9]*' "$TESTDIR/err-$d.json" | grep -o '[0-9]*$' | sort | uniq -c | tr '\n' ' ')"
		cp "$TESTDIR/err-$d.json" "${ES_BENCH_KEEP:-/tmp}/es_bench-err-$d.json"
	fi
	awk -v d="$d" -v n="$N" -v tn="${tN:+$((tN - t0))}" -v cn="${cN:+$((cN - c0))}" \
		-v total="$atotal" -v dist="$distinct" -v dups="$dups" -v miss="$missing" \
		-v tl="$tlast" -v t1="$tops" -v c="$((c1 - c0))" -v hz="$HZ" -v x="$exact" 'BEGIN {
		if (tn != "")
			old = sprintf("_count==N after %.1f s: %.0f docs/s, %.1f us CPU/doc", tn / 1e3, n / (tn / 1e3), cn / hz / n * 1e6)
		else
			old = "_count never reached N"
		printf "RESULT %s %d msgs: %d distinct (%d docs, %d duplicates, %d missing; %s); last distinct first arrival %.2f s: %.0f distinct docs/s; last operation %.2f s, CPU %.2f s: %.2f us/distinct doc, %.2f us/indexed doc | %s\n",
			d, n, dist, total, dups, miss, x, tl / 1e3, dist / (tl / 1e3), t1 / 1e3, c / hz,
			c / hz / dist * 1e6, c / hz / total * 1e6, old }' | tee -a "$TESTDIR/results"
done
cat "$TESTDIR/results" >&2
exit 0
