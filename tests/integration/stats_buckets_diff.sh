#!/bin/bash
# stats_buckets_diff.sh - dyn_stats and percentile_stats buckets in impstats,
# differential against rsyslogd 8.2302: both daemons get the same config and
# the same 60 lines in one write; the first report that shows the keys and
# the report after it (where the percentiles of the window appear, as
# rsyslog prints them one report late) must have identical lines for the
# objects of origin dynstats, dynstats.bucket, percentile and
# percentile.bucket (other objects are ignored). Covers maxCardinality
# overflow, empty keys (no_metric; a key "" for percentile_observe),
# non-numeric values (not observed), a window smaller than the number of
# observations, custom delimiter, must-reset bucket counters.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool sluiced "$SLUICED"
require_tool rsyslogd "$RSYSLOGD"
[ "$DUT_NAME" = sluiced ] || skip "differential test (runs both daemons itself)"
P2=$(get_free_port)

mkconf() { # PORT STATSFILE
	cat <<EOF
module(load="impstats" interval="2" log.syslog="off" log.file="$2" resetCounters="on")
module(load="imtcp")
input(type="imtcp" port="$1" address="127.0.0.1")
dyn_stats(name="b" maxCardinality="4")
dyn_stats(name="nr" resettable="off")
percentile_stats(name="lat" percentiles=["50","90","95","99"] windowSize="8")
percentile_stats(name="sz" percentiles=["10","100"] windowSize="100" delimiter="|")
if \$inputname == "imtcp" then {
set \$.k = field(\$msg, 32, 2);
set \$.v = field(\$msg, 32, 3);
set \$.a = dyn_inc("b", \$.k);
set \$.a = dyn_inc("nr", \$programname);
set \$.a = percentile_observe("lat", \$.k, \$.v);
set \$.a = percentile_observe("sz", \$programname, strlen(\$msg));
action(type="omfile" file="$3")
}
EOF
}
mkconf "$PORT" "$TESTDIR/s.stats" "$TESTDIR/s.out" >"$TESTDIR/s.conf"
mkconf "$P2" "$TESTDIR/r.stats" "$TESTDIR/r.out" >"$TESTDIR/r.conf"

INPUT="$TESTDIR/input"
for ((i = 1; i <= 60; i++)); do
	k="k$((i % 6))"; v=$(( (i * 37) % 101 ))
	[ $((i % 13)) = 0 ] && k=""
	[ $((i % 17)) = 0 ] && v="x$i"
	echo "<13>Jan  1 00:00:00 h prog$((i % 3)): $k $v"
done >"$INPUT"

start_sluiced "$TESTDIR/s.conf" "$PORT"
SPID=$DAEMON_PID
start_rsyslogd "$TESTDIR/r.conf" "$P2"
RPID=$DAEMON_PID
send_one() { exec 3<>"/dev/tcp/127.0.0.1/$1" && cat "$INPUT" >&3 && exec 3>&-; }
send_one "$PORT" || fail "expected to send to sluiced"
send_one "$P2" || fail "expected to send to rsyslogd"
wait_lines "$TESTDIR/s.out" 60 20
wait_lines "$TESTDIR/r.out" 60 20

# two reports after the one with the keys: bounded wait for the lines
pick() { # STATSFILE -> the two reports, timestamps stripped, sorted
	python3 - "$1" <<'EOPY'
import re, sys
groups, cur, last = [], [], None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"^(.{24}): (.*)$", line.rstrip("\n"))
    if not m:
        continue
    ts, body = m.groups()
    if not re.search(r" origin=(dynstats|percentile)(\.bucket)? ", body):
        continue
    if body.startswith("global: origin=dynstats ") and cur:
        groups.append(cur); cur = []
    cur.append(body)
if cur:
    groups.append(cur)
for i, g in enumerate(groups):
    if any(l.startswith("b: origin=dynstats.bucket k") for l in g):
        if i + 1 < len(groups) and len(groups[i + 1]) == len(g):
            for n, gg in enumerate(groups[i:i + 2]):
                for l in sorted(gg):
                    print(n, l)
        break
EOPY
}
for ((t = 0; t < 40; t++)); do
	[ -n "$(pick "$TESTDIR/s.stats")" ] && [ -n "$(pick "$TESTDIR/r.stats")" ] && break
	sleep 0.25
done
stop_daemon "$SPID"
stop_daemon "$RPID"
pick "$TESTDIR/s.stats" >"$TESTDIR/s.pick"
pick "$TESTDIR/r.stats" >"$TESTDIR/r.pick"
[ -s "$TESTDIR/r.pick" ] || fail "expected rsyslogd to report the buckets twice, got: $(cat "$TESTDIR/r.stats" | head -20)"
grep -q "^1 lat: origin=percentile.bucket k1.p50=" "$TESTDIR/r.pick" || fail "expected percentiles in rsyslogd's report"
grep -q "ops_overflow=[1-9]" "$TESTDIR/r.pick" || fail "expected an overflow in the reference"
diff -u "$TESTDIR/r.pick" "$TESTDIR/s.pick" >&2 ||
	fail "expected sluiced's dyn_stats/percentile_stats lines to equal rsyslogd's (diff above)"
log "ok: $(wc -l <"$TESTDIR/s.pick") lines equal"
