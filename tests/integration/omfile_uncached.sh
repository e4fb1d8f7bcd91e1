#!/bin/bash
# omfile_uncached.sh - omfile's uncachedWrites (sluice; RWF_DONTCACHE
# for "auto" and "on", O_DIRECT for "direct"; "behind", the default, is
# omfile_behind.sh's).
# A flood of 400,000 messages, in two halves, goes to five files:
# uncachedWrites "on", "auto", "off", "direct"
# (ioBufferSize 256k, flushOnTXEnd off: large writes), and "shared"
# (direct) which another process appends a line to between the halves.
# Every file starts with a seed line already in it (a size that is not a
# multiple of the page: the first direct write must carry the partial
# page along).
# on, auto, direct and off must hold the seed and every message once and
# be byte-identical (one queue worker, so one order); shared must be the
# same with the other process's line between the halves, whole (the
# file goes back to plain appends when its size is not what sluiced
# wrote). "bytes" must match the files, "bytes.uncached" be nonzero for
# all but off, "bytes.direct" nonzero for direct and shared only;
# after `sync` the page cache must hold (fincore) almost none of the
# on, auto and direct files but most of the off file. A second input sends 20
# single messages to a file with uncachedWrites "auto" and the default
# ioBufferSize (4k): small writes, so its bytes.uncached must stay 0.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

NMSGS=${NMSGS:-400000}
require_tool sluiced "$SLUICED"
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (uncachedWrites)"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
require_page_cache

PORT2=$(get_free_port)
SF="$TESTDIR/stats.json"
cat >"$TESTDIR/test.conf" <<EOF
module(load="impstats" interval="1" format="json" log.syslog="off" log.file="$SF")
main_queue(queue.workerThreads="1")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="flood")
input(type="imtcp" port="$PORT2" address="127.0.0.1" ruleset="quiet")
ruleset(name="flood") {
	action(type="omfile" file="$TESTDIR/on.log" template="RSYSLOG_TraditionalFileFormat"
	       uncachedWrites="on" ioBufferSize="256k" flushOnTXEnd="off")
	action(type="omfile" file="$TESTDIR/auto.log" template="RSYSLOG_TraditionalFileFormat"
	       uncachedWrites="auto" ioBufferSize="256k" flushOnTXEnd="off")
	action(type="omfile" file="$TESTDIR/off.log" template="RSYSLOG_TraditionalFileFormat"
	       uncachedWrites="off" ioBufferSize="256k" flushOnTXEnd="off")
	action(type="omfile" file="$TESTDIR/direct.log" template="RSYSLOG_TraditionalFileFormat"
	       uncachedWrites="direct" ioBufferSize="256k" flushOnTXEnd="off")
	action(type="omfile" file="$TESTDIR/shared.log" template="RSYSLOG_TraditionalFileFormat"
	       uncachedWrites="direct" ioBufferSize="256k" flushOnTXEnd="off")
}
ruleset(name="quiet") {
	action(type="omfile" file="$TESTDIR/quiet.log" template="RSYSLOG_TraditionalFileFormat"
	       uncachedWrites="auto")
}
EOF

SEED="seed line, in the file before sluiced starts"
EXT="a line another process appended"
for f in on auto off direct shared; do echo "$SEED" >"$TESTDIR/$f.log"; done
start_sluiced "$TESTDIR/test.conf"
# wait by the files' sizes: reading them now would bring their pages back
# into the cache (every line has the same length)
LINE=$(printf 'Mar  1 01:00:00 tcpflood tag msgnum:%08d:\n' 0)
HALF=$((NMSGS / 2))
wait_size() { # FILE BYTES
	local i
	for ((i = 0; i < 1200; i++)); do
		[ "$(stat -c %s "$1" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	fail "expected $1 to grow to $2 bytes, got $(stat -c %s "$1")"
}
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c 1 -m "$HALF" -F lf -q ||
	fail "expected tcpflood to send $HALF messages, got exit status $?"
for f in on auto off direct shared; do wait_size "$TESTDIR/$f.log" $(( ${#SEED} + 1 + HALF * (${#LINE} + 1) )); done
echo "$EXT" >>"$TESTDIR/shared.log"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c 1 -s "$HALF" -m "$((NMSGS - HALF))" -F lf -q ||
	fail "expected tcpflood to send $((NMSGS - HALF)) messages, got exit status $?"
WANT=$(( ${#SEED} + 1 + NMSGS * (${#LINE} + 1) ))
for f in on auto off direct; do wait_size "$TESTDIR/$f.log" "$WANT"; done
wait_size "$TESTDIR/shared.log" $((WANT + ${#EXT} + 1))
for ((i = 0; i < 20; i++)); do
	printf '<13>Mar  1 01:00:00 host tag: quiet %d\n' "$i" >"$TESTDIR/one.txt"
	send_file "$TESTDIR/one.txt" "$PORT2"
	sleep 0.05
done
wait_lines "$TESTDIR/quiet.log" 20 30
sleep 2.5 # one more impstats interval after the last write
stop_daemon

# the counters (statistics file and file sizes only: the log files are
# not read yet)
python3 - "$SF" "$TESTDIR" "$(( ${#SEED} + 1 ))" "$(( ${#EXT} + 1 ))" <<'EOF' >"$TESTDIR/counters.txt" || fail "expected the uncached counters (see $TESTDIR/counters.txt): $(cat "$TESTDIR/counters.txt")"
import json, os, re, sys
last = {}
for line in open(sys.argv[1]):
    m = re.match(r'^.{24}: (\{.*\})$', line.rstrip("\n"))
    if m:
        o = json.loads(m.group(1))
        last[o["name"]] = o
d = sys.argv[2]
seed, ext = int(sys.argv[3]), int(sys.argv[4])
for f in ("on", "auto", "off", "direct", "shared", "quiet"):
    path = os.path.join(d, f + ".log")
    o = last.get("omfile(%s)" % path)
    if o is None:
        print("no statistics object omfile(%s)" % path); sys.exit(1)
    size = os.path.getsize(path) - {"quiet": 0, "shared": seed + ext}.get(f, seed)
    if o["bytes"] != size:
        print("%s: bytes=%d but sluiced's part of the file is %d" % (f, o["bytes"], size)); sys.exit(1)
    u, dio = o["bytes.uncached"], o["bytes.direct"]
    print("%s bytes=%d uncached=%d direct=%d" % (f, size, u, dio))
    if f in ("off", "quiet") and (u != 0 or dio != 0):
        print("expected no uncached bytes for %s" % f); sys.exit(1)
    if f in ("direct", "shared") and not (0 < dio <= u):
        print("expected direct writes for %s" % f); sys.exit(1)
    if f in ("on", "auto") and dio != 0:
        print("expected no direct writes for %s" % f); sys.exit(1)
    if f == "direct" and not (size * 0.5 <= dio):
        print("expected at least half of direct's bytes written directly"); sys.exit(1)
    # "on": all but the part of the last page of each write (the writes
    # here are 128k-256k, so nearly all of it; at least half in any case)
    if f == "on" and not (size * 0.5 <= u <= size):
        print("expected at least half of on's bytes uncached"); sys.exit(1)
    if f == "auto" and not (0 < u <= size):
        # writes below 64k (the end of a burst) stay cached
        print("expected some of auto's bytes uncached"); sys.exit(1)
EOF
if grep -q '^on .*uncached=0$' "$TESTDIR/counters.txt"; then
	fail "uncachedWrites=on wrote nothing uncached: $(cat "$TESTDIR/counters.txt")"
fi

# the page cache, before anything reads the files: after sync every
# uncached page has been written and dropped; the "off" file stays
# cached, most of it at least (this machine has memory to spare)
sync
sleep 1
res_pages() { cached_bytes "$1" 4096; }
pages() { echo $(( ($(stat -c %s "$1") + 4095) / 4096 )); }
on_res=$(res_pages "$TESTDIR/on.log") auto_res=$(res_pages "$TESTDIR/auto.log")
dir_res=$(res_pages "$TESTDIR/direct.log")
off_res=$(res_pages "$TESTDIR/off.log") all=$(pages "$TESTDIR/off.log")
log "resident pages of $all: on $on_res, auto $auto_res, direct $dir_res, off $off_res"
[ "$on_res" -le $((all / 10)) ] || fail "expected at most 10% of on.log in the page cache, got $on_res of $all pages"
[ "$dir_res" -le $((all / 10)) ] || fail "expected at most 10% of direct.log in the page cache, got $dir_res of $all pages"
# auto: the bytes of its writes below 64k stay cached as well
auto_cached=$(awk '$1 == "auto" { split($2, b, "="); split($3, u, "="); print int((b[2] - u[2]) / 4096) }' "$TESTDIR/counters.txt")
[ "$auto_res" -le $((all / 10 + auto_cached)) ] || fail "expected at most 10% of auto.log (+ $auto_cached pages written cached) in the page cache, got $auto_res of $all pages"
# (the kernel may still drop some of it on its own: 86 % was seen once)
[ "$off_res" -ge $((all / 2)) ] || fail "expected off.log in the page cache, got $off_res of $all pages"

for f in on auto direct off; do
	python3 "$CHECK_SEQ" "$TESTDIR/$f.log" --expect "$NMSGS" ||
		fail "expected msgnum 0..$((NMSGS - 1)) once each in $f.log (check_seq above)"
done
cmp "$TESTDIR/on.log" "$TESTDIR/off.log" || fail "expected on.log and off.log byte-identical"
cmp "$TESTDIR/auto.log" "$TESTDIR/off.log" || fail "expected auto.log and off.log byte-identical"
cmp "$TESTDIR/direct.log" "$TESTDIR/off.log" || fail "expected direct.log and off.log byte-identical"
python3 "$CHECK_SEQ" "$TESTDIR/shared.log" --expect "$NMSGS" ||
	fail "expected msgnum 0..$((NMSGS - 1)) once each in shared.log (check_seq above)"
{ head -n $((1 + HALF)) "$TESTDIR/off.log"; echo "$EXT"; tail -n +$((2 + HALF)) "$TESTDIR/off.log"; } >"$TESTDIR/shared.want"
cmp "$TESTDIR/shared.log" "$TESTDIR/shared.want" ||
	fail "expected shared.log to be off.log with the other process's line after message $((HALF - 1))"
grep -q "another writer" "$TESTDIR"/sluiced.*.log ||
	fail "expected sluiced to log that shared.log changed under it, got: $(cat "$TESTDIR"/sluiced.*.log)"
for ((i = 0; i < 20; i++)); do
	grep -qxF "Mar  1 01:00:00 host tag: quiet $i" "$TESTDIR/quiet.log" ||
		fail "expected line 'quiet $i' in quiet.log, got: $(head -3 "$TESTDIR/quiet.log")"
done


exit 0
