#!/bin/bash
# es_errors_test.sh - omelasticsearch tells per item what Elasticsearch 8.19
# said (ES_FLAVOR=opensearch runs the same against OpenSearch 2.19):
#  - batches mixing good documents with mapping conflicts (field "n" is an
#    integer in the index; some documents have n="abc"): every good one is
#    indexed exactly once (_version 1), every bad one is in errorfile once,
#    with its request, the reply and the reason; the counters say how many;
#  - writeoperation="create" with a bulkid that already exists: a 409
#    conflict in errorfile, counted as such, the others created;
#  - retryfailures="on": exactly the refused documents (not the good ones)
#    come back through retryruleset with $.omes, once each.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/elasticsearch.sh"
. "$srcdir/tests/services/es_lib.sh"

FLAVOR=${ES_FLAVOR:-elasticsearch}
N=1000
require_tool tcpflood "$TCPFLOOD"
require_tool sluiced "$SLUICED"
[ -e "$top_builddir/plugins/omelasticsearch/.libs/omelasticsearch.so" ] ||
	skip "omelasticsearch was not built (libcurl missing?)"

es_start "$FLAVOR"
es_zero_replicas
for idx in mix create; do
	r=$(es_curl PUT "/$idx" '{"settings":{"number_of_replicas":0},"mappings":{"properties":{"n":{"type":"integer"},"id":{"type":"keyword"}}}}')
	case $r in *'"acknowledged":true'*) ;; *) fail "expected index $idx to be created, got $r" ;; esac
done
# a document the create action will collide with
es_curl PUT "/create/_doc/c-7?refresh=true" '{"id":"c-7","n":7}' >/dev/null

# input: message i has id m-i; every 10th (i % 10 == 3) has n="abc"
python3 - "$TESTDIR/in.txt" "$N" <<-'EOF'
import sys
out, n = sys.argv[1], int(sys.argv[2])
with open(out, "w") as f:
    for i in range(n):
        v = "abc" if i % 10 == 3 else str(i)
        f.write("<134>Mar  1 10:00:00 web1 app: id=m-%d n=%s\n" % (i, v))
    for i in range(20):
        f.write("<134>Mar  1 10:00:00 web1 app: create id=c-%d n=%d\n" % (i, i))
EOF
NBAD=$((N / 10))
NGOOD=$((N - NBAD))

cat >"$TESTDIR/err.conf" <<EOF
module(load="imtcp")
template(name="doc" type="string"
	 string="{\"id\":\"%msg:R,ERE,1,FIELD:id=([^ ]+)--end%\",\"n\":\"%msg:R,ERE,1,FIELD:n=([^ ]+)--end%\"}")
template(name="docid" type="string" string="%msg:R,ERE,1,FIELD:id=([^ ]+)--end%")
template(name="retried" type="string" string="%\$.omes!status% %\$.omes!error!type% %\$!id% %\$!n%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1")
ruleset(name="retry") {
	action(type="omfile" file="$TESTDIR/retried.txt" template="retried")
}
if \$msg contains " create " then {
	action(type="omelasticsearch" name="es-create" server="127.0.0.1:$ES_PORT" template="doc"
	       searchIndex="create" writeoperation="create" bulkid="docid" dynbulkid="on"
	       bulkmode="on" errorfile="$TESTDIR/err-create.json")
	stop
}
action(type="omelasticsearch" name="es-mix" server="127.0.0.1:$ES_PORT" template="doc"
       searchIndex="mix" bulkid="docid" dynbulkid="on" bulkmode="on"
       errorfile="$TESTDIR/err.json" retryfailures="on" retryruleset="retry"
       queue.type="LinkedList" queue.dequeueBatchSize="128")
EOF
start_sluiced "$TESTDIR/err.conf"
"$TCPFLOOD" -p "$PORT" -I "$TESTDIR/in.txt" -m "$((N + 20))" -q ||
	fail "expected tcpflood to send $((N + 20)) messages, got exit status $?"
es_wait_count mix "$NGOOD" 120
wait_lines "$TESTDIR/err.json" "$NBAD" 60
wait_lines "$TESTDIR/retried.txt" "$NBAD" 60
es_wait_count create 20 60
sleep 1
stop_daemon
slog="$TESTDIR/sluiced.$PORT.log"

# good documents: each once, never re-indexed
r=$(es_curl POST "/mix/_search?size=$N&version=true" '{"query":{"match_all":{}},"_source":["id","n"]}')
python3 - "$r" "$N" <<-'EOF' || fail "expected the $NGOOD good documents, each with _version 1, got something else (see above)"
import json, sys
hits = json.loads(sys.argv[1])["hits"]["hits"]; n = int(sys.argv[2])
want = {"m-%d" % i for i in range(n) if i % 10 != 3}
got = [h["_id"] for h in hits]
assert len(got) == len(want) and set(got) == want, (len(got), sorted(set(got) ^ want)[:5])
bad = [h for h in hits if h["_version"] != 1 or h["_source"]["id"] != h["_id"]]
assert not bad, bad[:3]
EOF

# bad ones: errorfile, once each, with request, reply and reason
got=$(count_lines "$TESTDIR/err.json")
[ "$got" = "$NBAD" ] || fail "expected $NBAD lines in errorfile, got $got"
python3 - "$TESTDIR/err.json" "$N" "$FLAVOR" <<-'EOF' || fail "expected errorfile lines for ids m-3, m-13, ... with status 400 and a parsing reason, got $(head -n 1 "$TESTDIR/err.json")"
import json, sys
n, flavor = int(sys.argv[2]), sys.argv[3]
exc = "mapper_parsing_exception" if flavor == "opensearch" else "document_parsing_exception"
ids = []
for line in open(sys.argv[1]):
    j = json.loads(line)
    assert j["status"] == 400, j
    assert j["reason"].startswith(exc) and "[n]" in j["reason"], j["reason"]
    assert j["request"]["document"]["n"] == "abc", j
    assert j["request"]["action"]["index"]["_index"] == "mix", j
    assert j["request"]["action"]["index"]["_id"] == j["request"]["document"]["id"], j
    assert j["reply"]["status"] == 400 and j["reply"]["error"]["type"] == exc, j
    assert j["action"] == "es-mix" and "/_bulk" in j["url"], j
    ids.append(j["request"]["document"]["id"])
want = ["m-%d" % i for i in range(n) if i % 10 == 3]
assert sorted(ids) == sorted(want), (len(ids), sorted(set(ids) ^ set(want))[:5])
EOF

# retryfailures: exactly the refused ones, with $.omes
python3 - "$TESTDIR/retried.txt" "$N" <<-'EOF' || fail "expected retried.txt to hold '400 <exception> m-i abc' for each refused id, got $(head -n 2 "$TESTDIR/retried.txt")"
import sys
n = int(sys.argv[2])
lines = open(sys.argv[1]).read().split("\n")[:-1]
ids = []
for l in lines:
    st, typ, i, v = l.split(" ")
    assert st == "400" and typ.endswith("parsing_exception") and v == "abc", l
    ids.append(i)
assert sorted(ids) == sorted("m-%d" % i for i in range(n) if i % 10 == 3), ids[:5]
EOF

# create with an existing id: one 409, the other 19 created
got=$(count_lines "$TESTDIR/err-create.json")
[ "$got" = 1 ] || fail "expected 1 line in err-create.json, got $got"
python3 - "$TESTDIR/err-create.json" <<-'EOF' || fail "expected a 409 version conflict for c-7, got $(cat "$TESTDIR/err-create.json")"
import json, sys
j = json.loads(open(sys.argv[1]).readline())
assert j["status"] == 409 and j["reason"].startswith("version_conflict_engine_exception"), j
assert j["request"]["action"]["create"]["_id"] == "c-7", j
EOF

# counters of both actions (the module's closing line)
line=$(grep "omelasticsearch es-mix:" "$slog" | tail -n 1)
for kv in "submitted=$N" "indexed=$NGOOD" "failed=$NBAD" "bad_request=$NBAD" "conflict=0" "resubmitted=$NBAD"; do
	case " $line " in *[\ \(]$kv[\ \)]*) ;; *) fail "expected $kv in the es-mix counters, got: $line" ;; esac
done
line=$(grep "omelasticsearch es-create:" "$slog" | tail -n 1)
for kv in submitted=20 indexed=19 failed=1 conflict=1 bad_request=0; do
	case " $line " in *[\ \(]$kv[\ \)]*) ;; *) fail "expected $kv in the es-create counters, got: $line" ;; esac
done
log "ok ($FLAVOR): $NGOOD indexed once, $NBAD refused into errorfile and retryruleset, 1 create conflict"
exit 0
