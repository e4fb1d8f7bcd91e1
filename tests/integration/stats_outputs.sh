#!/bin/bash
# stats_outputs.sh - the output modules' own counters in the statistics
# registry, with exact values after a known run of 30 messages over one
# TCP connection (one main-queue worker, so the order is known):
#   - omfile, dynaFile by host (a x10, b x10, a x10) with
#     dynaFileCacheSize 1: rsyslog's "dynafile cache TEMPLATE" object,
#     origin omfile, requests=30 level0=27 missed=3 evicted=2 maxused=1,
#     then sluice's written=30 opened=3 closed=2;
#   - omfile to one file: "omfile(FILE)" written=30 opened=1, bytes = the
#     file's size;
#   - mmjsonparse name="jp": "mmjsonparse(jp)" parsed=20 failed=10;
# in impstats' json to log.file, and the same values on imhttp's /metrics
# (Prometheus text, parsed by prometheus_client when installed).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool sluiced "$SLUICED"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (statistics)"

HPORT=$(get_free_port)
SF="$TESTDIR/stats.json"
ALL="$TESTDIR/all.log"
DYN="$TESTDIR/dyn"
mkdir -p "$DYN"
cat >"$TESTDIR/test.conf" <<EOF
module(load="impstats" interval="1" format="json" log.syslog="off" log.file="$SF")
module(load="imhttp" ports="127.0.0.1:$HPORT")
module(load="imtcp")
module(load="mmjsonparse")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="dynf" type="string" string="$DYN/%hostname%.log")
template(name="line" type="string" string="%hostname% %msg%\n")
action(type="mmjsonparse" name="jp")
action(type="omfile" file="$ALL" template="line")
action(type="omfile" dynaFile="dynf" dynaFileCacheSize="1" template="line")
EOF

IN="$TESTDIR/in.txt"
: >"$IN"
for h in a b a; do
	for ((i = 0; i < 10; i++)); do
		if ((i % 3 == 2)); then
			printf '<13>Mar  1 01:00:00 %s tag: @cee:{bad %d\n' "$h" "$i" >>"$IN"
		else
			printf '<13>Mar  1 01:00:00 %s tag: @cee:{"n":%d}\n' "$h" "$i" >>"$IN"
		fi
	done
done
[ "$(grep -c 'bad' "$IN")" = 9 ] || fail "test setup: expected 9 bad lines"
# the last line (host a) bad too: 20 parsed, 10 failed, 30 lines
sed -i '$d' "$IN"
printf '<13>Mar  1 01:00:00 a tag: @cee:not json\n' >>"$IN"

start_sluiced "$TESTDIR/test.conf"
send_file "$IN"
wait_lines "$ALL" 30 30
for ((i = 0; i < 50; i++)); do
	grep -q '"name": "omfile(.*"written": 30' "$SF" 2>/dev/null &&
		grep -q '"name": "dynafile cache dynf".*"requests": 30' "$SF" && break
	sleep 0.1
done
curl -s "http://127.0.0.1:$HPORT/metrics" >"$TESTDIR/metrics.txt" ||
	fail "expected curl to fetch /metrics, got exit status $?"
stop_daemon

[ "$(count_lines "$DYN/a.log")" = 20 ] || fail "expected 20 lines for host a, got $(count_lines "$DYN/a.log")"
[ "$(count_lines "$DYN/b.log")" = 10 ] || fail "expected 10 lines for host b"
SIZE=$(stat -c %s "$ALL")

python3 - "$SF" "$ALL" "$SIZE" <<'EOF' || fail "expected the exact output-module counters in impstats (see above)"
import json, re, sys
path, size = sys.argv[2], int(sys.argv[3])
last = {}
for line in open(sys.argv[1]):
    m = re.match(r'^.{24}: (\{.*\})$', line.rstrip("\n"))
    if not m:
        print("bad line", repr(line)); sys.exit(1)
    o = json.loads(m.group(1))
    last[o["name"]] = o
want = {
    "dynafile cache dynf": dict(origin="omfile", requests=30, level0=27, missed=3, evicted=2,
                                maxused=1, closetimeouts=0, written=30, opened=3, closed=2),
    "omfile(%s)" % path: dict(origin="omfile", written=30, opened=1, closed=0, bytes=size),
    "mmjsonparse(jp)": dict(origin="mmjsonparse", parsed=20, failed=10),
}
for name, ctrs in want.items():
    o = last.get(name)
    if o is None:
        print("expected an object %r, got %s" % (name, sorted(last))); sys.exit(1)
    for k, v in ctrs.items():
        if o.get(k) != v:
            print("expected %s %s=%r, got %r (%s)" % (name, k, v, o.get(k), o)); sys.exit(1)
keys = list(last["dynafile cache dynf"].keys())
if keys[2:8] != ["requests", "level0", "missed", "evicted", "maxused", "closetimeouts"]:
    print("expected rsyslog's dynafile cache counters first, in its order, got", keys); sys.exit(1)
EOF

grep -qx "sluice_omfile_written_total{name=\"omfile($ALL)\"} 30" "$TESTDIR/metrics.txt" ||
	fail "expected /metrics to show omfile written 30, got: $(grep omfile "$TESTDIR/metrics.txt" | head -5)"
grep -qx 'sluice_omfile_missed_total{name="dynafile cache dynf"} 3' "$TESTDIR/metrics.txt" ||
	fail "expected /metrics to show the dynafile cache missed 3, got: $(grep dynafile "$TESTDIR/metrics.txt" | head -5)"
grep -qx 'sluice_mmjsonparse_failed_total{name="mmjsonparse(jp)"} 10' "$TESTDIR/metrics.txt" ||
	fail "expected /metrics to show mmjsonparse failed 10, got: $(grep mmjsonparse "$TESTDIR/metrics.txt" | head -5)"
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import prometheus_client.parser' 2>/dev/null; then
		"$py" -c 'import sys
from prometheus_client.parser import text_string_to_metric_families as p
n = len(list(p(open(sys.argv[1]).read())))
print("metrics: %d families parsed" % n)' "$TESTDIR/metrics.txt" ||
			fail "expected /metrics to parse as Prometheus text"
		break
	fi
done
exit 0
