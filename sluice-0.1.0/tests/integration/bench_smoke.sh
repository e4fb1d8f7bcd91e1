#!/bin/bash
# bench_smoke.sh - the benchmark suite still runs: tests/bench/run_suite.py
# --quick against sluiced only (20,000 messages per scenario: one TCP
# client, RFC5424 over TLS, 50 connections, two UDP rate steps), then checks
# the JSON lines it wrote: one record per scenario with the measured fields
# (msgs/s, CPU per million, peak RSS), every sequence number present exactly
# once for the TCP/TLS scenarios, the UDP search records; and that
# tests/bench/report.py turns them into a table between the suite markers of
# a copy of doc/benchmarks.md without touching the rest. Figures are not
# judged (the machine is shared): only that they were measured.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool tcpflood "$TCPFLOOD"
require_tool sluiced "$SLUICED"
command -v certtool >/dev/null || skip "certtool (gnutls-bin) not installed"
[ "$DUT_NAME" = sluiced ] || skip "runs the suite against sluiced"

RES="$TESTDIR/suite.jsonl"
SLUICED=$SLUICED TCPFLOOD=$TCPFLOOD BENCH_TMP=$TESTDIR \
	timeout 300 python3 "$srcdir/tests/bench/run_suite.py" --quick --daemons sluice \
	--results "$RES" >"$TESTDIR/suite.out" 2>&1
rc=$?
cat "$TESTDIR/suite.out" >&2
[ "$rc" = 0 ] || fail "run_suite.py --quick exited with $rc"

python3 - "$RES" <<'PY' || fail "suite results incomplete (see above)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
by = {}
for r in rows:
    by.setdefault(r["scenario"], []).append(r)
for s in ("tcp", "tls", "conn"):
    rs = by.get(s, [])
    need(len(rs) == 1, "%s: %d records, expected 1" % (s, len(rs)))
    for r in rs:
        need(r["daemon"] == "sluice", "%s: daemon %r" % (s, r["daemon"]))
        need(r.get("n") == 20000 and r.get("received") == 20000, "%s: n/received %r/%r" % (s, r.get("n"), r.get("received")))
        need(isinstance(r.get("msgs_per_s"), int) and r["msgs_per_s"] > 0, "%s: msgs_per_s %r" % (s, r.get("msgs_per_s")))
        need(isinstance(r.get("cpu_s_per_m"), (int, float)) and r["cpu_s_per_m"] >= 0, "%s: cpu_s_per_m" % s)
        need(isinstance(r.get("peak_rss_mb"), (int, float)) and r["peak_rss_mb"] > 0, "%s: peak_rss_mb" % s)
        need(r.get("lost") == 0 and r.get("dup") == 0 and r.get("verify") == "ok",
             "%s: lost/dup/verify %r/%r/%r" % (s, r.get("lost"), r.get("dup"), r.get("verify")))
        need(r.get("sent") == 20000 and r.get("sender_rc") == 0, "%s: tcpflood summary not parsed" % s)
        for k in ("suite_id", "commit", "ts", "wall_s", "daemon_cpu_s", "load1_start"):
            need(k in r, "%s: no field %s" % (s, k))
need(by.get("conn", [{}])[0].get("conns") == 50, "conn: not 50 connections")
steps = by.get("udp-step", [])
need(len(steps) >= 1, "no udp-step records")
for r in steps:
    need(r.get("rate") and r.get("sent") and isinstance(r.get("loss_pct"), float), "udp-step fields: %r" % r)
    need(r.get("received", 0) > 0, "udp-step: nothing received at %r/s" % r.get("rate"))
udp = by.get("udp", [])
need(len(udp) == 1 and "stop" in udp[0] and "msgs_per_s" in udp[0], "udp search summary: %r" % udp)
for b in bad:
    print("bench_smoke: " + b)
sys.exit(1 if bad else 0)
PY

# the report: block between the markers replaced, the rest kept
DOC="$TESTDIR/benchmarks.md"
printf '# Benchmarks\n\nkept above\n\n<!-- suite:begin -->\nold block\n<!-- suite:end -->\n\nkept below\n' >"$DOC"
python3 "$srcdir/tests/bench/report.py" "$RES" --doc "$DOC" --no-plots >"$TESTDIR/report.out" ||
	fail "report.py failed"
grep -q '^| tcp | sluice | 1 | 20,000 | ' "$DOC" || fail "no tcp row in the report: $(cat "$DOC")"
grep -q '^| tls | sluice | 1 | ' "$DOC" || fail "no tls row in the report"
grep -q 'UDP rate search' "$DOC" || fail "no UDP section in the report"
grep -q 'old block' "$DOC" && fail "old block not replaced"
[ "$(grep -c 'suite:begin' "$DOC")" = 1 ] || fail "markers duplicated"
head -n 3 "$DOC" | grep -q 'kept above' || fail "text above the markers changed"
tail -n 1 "$DOC" | grep -q 'kept below' || fail "text below the markers changed"
log "suite quick run and report OK"
exit 0
