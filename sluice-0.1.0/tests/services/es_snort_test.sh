#!/bin/bash
# es_snort_test.sh - issue #10 end to end: Snort alarms and sshd login
# failures, normalized by mmnormalize with the shipped rulebases
# (contrib/rulebases/), indexed into a real Elasticsearch 8.19 as typed
# JSON: ports, priority, sid and rev are numbers in the documents and in
# the index mapping Elasticsearch derived from them.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/elasticsearch.sh"
. "$srcdir/tests/services/es_lib.sh"

require_tool sluiced "$SLUICED"
[ -e "$top_builddir/plugins/omelasticsearch/.libs/omelasticsearch.so" ] ||
	skip "omelasticsearch was not built (libcurl missing?)"
[ -e "$top_builddir/plugins/mmnormalize/.libs/mmnormalize.so" ] ||
	skip "mmnormalize was not built (liblognorm missing?)"

es_start elasticsearch
es_zero_replicas

NS=300 # snort alarms
NH=200 # sshd failures
python3 - "$TESTDIR/in.txt" "$NS" "$NH" <<-'EOF'
import sys
out, ns, nh = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(out, "w") as f:
    for i in range(ns):
        f.write("<33>Nov 25 17:37:12 ids4 snort[776]: [1:%d:13] WEB-MISC apache directory "
                "disclosure attempt [Classification: Attempted Denial of Service] [Priority: %d]: "
                "{TCP} 10.2.1.%d:%d -> 192.168.1.1:80\n" % (1000 + i, 1 + i % 3, i % 250, 40000 + i))
    for i in range(nh):
        f.write("<38>Nov 25 17:37:13 srv sshd[12]: Failed password for invalid user u%d "
                "from 203.0.113.%d port %d ssh2\n" % (i, i % 250, 50000 + i))
EOF

cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
module(load="mmnormalize")
module(load="omelasticsearch")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="snort" type="list" option.jsonf="on") {
	property(outname="@timestamp" name="timereported" dateFormat="rfc3339" format="jsonf")
	property(outname="host" name="hostname" format="jsonf")
	property(outname="sid" name="\$!sid" format="jsonf" datatype="number")
	property(outname="rev" name="\$!rev" format="jsonf" datatype="number")
	property(outname="alarm" name="\$!alarm" format="jsonf")
	property(outname="classification" name="\$!classification" format="jsonf")
	property(outname="priority" name="\$!priority" format="jsonf" datatype="number")
	property(outname="transport" name="\$!transport" format="jsonf")
	property(outname="src_ip" name="\$!src_ip" format="jsonf")
	property(outname="src_port" name="\$!src_port" format="jsonf" datatype="number")
	property(outname="dst_ip" name="\$!dst_ip" format="jsonf")
	property(outname="dst_port" name="\$!dst_port" format="jsonf" datatype="number")
}
template(name="sshd" type="list" option.jsonf="on") {
	property(outname="@timestamp" name="timereported" dateFormat="rfc3339" format="jsonf")
	property(outname="host" name="hostname" format="jsonf")
	property(outname="user" name="\$!user" format="jsonf")
	property(outname="src_ip" name="\$!src_ip" format="jsonf")
	property(outname="src_port" name="\$!src_port" format="jsonf" datatype="number")
	property(outname="method" name="\$!method" format="jsonf")
}
if \$programname == "snort" then {
	action(type="mmnormalize" ruleBase="$srcdir/contrib/rulebases/snort.rb")
	if \$parsesuccess == "OK" then
		action(type="omelasticsearch" server="127.0.0.1:$ES_PORT" searchIndex="snort"
		       template="snort" bulkmode="on")
} else if \$programname == "sshd" then {
	action(type="mmnormalize" ruleBase="$srcdir/contrib/rulebases/sshd.rb")
	if \$parsesuccess == "OK" then
		action(type="omelasticsearch" server="127.0.0.1:$ES_PORT" searchIndex="sshd"
		       template="sshd" bulkmode="on")
}
EOF
start_dut "$TESTDIR/test.conf"
send_file "$TESTDIR/in.txt"
es_wait_count snort "$NS" 120
es_wait_count sshd "$NH" 120
stop_daemon

es_curl POST "/snort,sshd/_refresh" >/dev/null
es_curl GET "/snort/_mapping" >"$TESTDIR/snort-mapping.json"
es_curl GET "/snort/_search?size=1&q=sid:1156" >"$TESTDIR/snort-doc.json"
es_curl GET "/sshd/_search?size=1&q=src_port:50007" >"$TESTDIR/sshd-doc.json"
python3 - "$TESTDIR" <<-'EOF' || fail "expected typed Snort and sshd documents, see the assertion above"
import json, sys
d = sys.argv[1]
m = json.load(open(d + "/snort-mapping.json"))["snort"]["mappings"]["properties"]
for f in ("sid", "rev", "priority", "src_port", "dst_port"):
    assert m[f]["type"] == "long", (f, m[f])
assert m["@timestamp"]["type"] == "date", m["@timestamp"]
hits = json.load(open(d + "/snort-doc.json"))["hits"]["hits"]
assert len(hits) == 1, hits
doc = hits[0]["_source"]
want = {"host": "ids4", "sid": 1156, "rev": 13,
        "alarm": "WEB-MISC apache directory disclosure attempt",
        "classification": "Attempted Denial of Service", "priority": 1, "transport": "TCP",
        "src_ip": "10.2.1.156", "src_port": 40156, "dst_ip": "192.168.1.1", "dst_port": 80}
for k, v in want.items():
    assert doc[k] == v, (k, doc[k], v)
assert len(doc) == 12, sorted(doc)
hits = json.load(open(d + "/sshd-doc.json"))["hits"]["hits"]
doc = hits[0]["_source"]
assert doc["user"] == "u7" and doc["src_ip"] == "203.0.113.7" and doc["src_port"] == 50007, doc
assert doc["method"] == "password", doc
print("snort: 12 typed fields, sshd: typed fields")
EOF
log "ok: $NS Snort alarms and $NH sshd failures normalized and indexed as typed JSON"
exit 0
