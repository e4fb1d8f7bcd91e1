# tests/services/es_lib.sh - what the omelasticsearch service tests share:
# the Kibana-style document template, an input file generator, and checks
# on what Elasticsearch holds. Sourced after tests/lib.sh and
# tests/services/elasticsearch.sh.
#
# Threading model: plain sequential shell.

# es_templates: the document and index templates every test uses. The
# document has the fields of a Logstash-style index (@timestamp, host,
# severity, facility, syslogtag, message) plus seq, the number after
# "msgnum:" as an integer; indices are daily by the message's time.
es_templates() {
	cat <<'EOF'
template(name="es_doc" type="list" option.jsonf="on") {
	property(outname="@timestamp" name="timereported" dateFormat="rfc3339" format="jsonf")
	property(outname="host" name="hostname" format="jsonf")
	property(outname="severity" name="syslogseverity" format="jsonf" datatype="number")
	property(outname="facility" name="syslogfacility-text" format="jsonf")
	property(outname="syslogtag" name="syslogtag" format="jsonf")
	property(outname="message" name="msg" format="jsonf")
	property(outname="seq" name="msg" regex.expression="msgnum:0*([0-9]+)" regex.type="ERE"
		 regex.submatch="1" format="jsonf" datatype="number")
}
template(name="es_index" type="string" string="sluice-%timereported:1:10:date-rfc3339%")
template(name="es_id" type="string" string="%msg:R,ERE,1,FIELD:msgnum:([0-9]+)--end%")
EOF
}

# es_gen_input FILE N DAYS: N RFC3164 lines, message i on day (i % DAYS)+1
# of March, severity i % 8, with "msgnum:%08d:" for seq.
es_gen_input() {
	python3 - "$1" "$2" "$3" <<-'EOF'
	import sys
	out, n, days = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
	with open(out, "w") as f:
	    for i in range(n):
	        d = i % days + 1
	        pri = 16 * 8 + i % 8
	        f.write("<%d>Mar %2d 10:%02d:%02d web%d app[%d]: msgnum:%08d: GET /index.html 200\n"
	                % (pri, d, (i // 60) % 60, i % 60, i % 3, 1000 + i % 7, i))
	EOF
}

# es_wait_count PATTERN N TIMEOUT: waits until PATTERN holds N documents;
# fails the test when it holds more, or when the count stalls for 60 s.
es_wait_count() {
	local pat=$1 n=$2 timeout=$3 got=-1 last=-1 since=$SECONDS
	local deadline=$((SECONDS + timeout))
	while [ "$SECONDS" -lt "$deadline" ]; do
		got=$(es_count "$pat")
		[ "$got" = "$n" ] && return 0
		[ "$got" -gt "$n" ] 2>/dev/null && fail "expected $n documents in $pat, got $got (more)"
		if [ "$got" != "$last" ]; then
			last=$got
			since=$SECONDS
		elif [ $((SECONDS - since)) -ge 60 ]; then
			break
		fi
		sleep 2
	done
	fail "expected $n documents in $pat within $timeout s, got $got"
}

# es_check_seq PATTERN N: the seq fields of PATTERN are 0..N-1, each once:
# checked by count, min, max, sum and sum of squares (exact below 2^53).
es_check_seq() {
	local pat=$1 n=$2 r
	r=$(es_curl POST "/$pat/_search?size=0" \
		'{"aggs":{"s":{"extended_stats":{"field":"seq"}}}}')
	python3 - "$n" "$r" <<-'EOF' || fail "expected seq 0..$((n - 1)) each exactly once in $pat, got: $r"
	import json, sys
	n = int(sys.argv[1])
	s = json.loads(sys.argv[2])["aggregations"]["s"]
	want = {"count": n, "min": 0, "max": n - 1, "sum": n * (n - 1) // 2,
	        "sum_of_squares": (n - 1) * n * (2 * n - 1) // 6}
	for k, v in want.items():
	    got = s[k]
	    tol = 0 if abs(v) < 2**52 else abs(v) * 1e-12
	    if abs(got - v) > tol:
	        print("%s: expected %s, got %s" % (k, v, got), file=sys.stderr)
	        sys.exit(1)
	EOF
}

# es_stats_field LOG NAME: the counter NAME of the module's closing stats
# line in LOG.
es_stats_field() {
	grep -o "omelasticsearch [^ ]*: submitted=.*" "$1" | tail -n 1 |
		grep -o "[( ]$2=[0-9]*" | head -n 1 | sed 's/.*=//'
}
