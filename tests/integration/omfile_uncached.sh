#!/bin/bash
# omfile_uncached.sh - omfile's uncachedWrites (sluice; RWF_DONTCACHE).
# One flood of 400,000 messages goes to three files, uncachedWrites "on",
# the default "auto" and "off" (ioBufferSize 256k, flushOnTXEnd off:
# large writes).
# All three must hold every message once and be byte-identical (one
# queue worker, so one order); the
# "bytes.uncached" counter must be nonzero for "on" and "auto" and zero
# for "off"; and after `sync` the page cache must hold (fincore) almost
# none of the "on" and "auto" files but nearly all of the "off" file. A
# second input sends 20 single messages to a file with the defaults
# ("auto", ioBufferSize 4k): small writes, so its bytes.uncached must
# stay 0.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

NMSGS=${NMSGS:-400000}
require_tool sluiced "$SLUICED"
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (uncachedWrites)"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
command -v fincore >/dev/null || skip "fincore (util-linux) not installed"

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
	       ioBufferSize="256k" flushOnTXEnd="off")
	action(type="omfile" file="$TESTDIR/off.log" template="RSYSLOG_TraditionalFileFormat"
	       uncachedWrites="off" ioBufferSize="256k" flushOnTXEnd="off")
}
ruleset(name="quiet") {
	action(type="omfile" file="$TESTDIR/quiet.log" template="RSYSLOG_TraditionalFileFormat")
}
EOF

start_sluiced "$TESTDIR/test.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c 1 -m "$NMSGS" -F lf -q ||
	fail "expected tcpflood to send $NMSGS messages, got exit status $?"
# wait by the files' sizes: reading them now would bring their pages back
# into the cache (every line has the same length)
LINE=$(printf 'Mar  1 01:00:00 tcpflood tag msgnum:%08d:\n' 0)
WANT=$(( NMSGS * (${#LINE} + 1) ))
for f in on auto off; do
	for ((i = 0; i < 1200; i++)); do
		[ "$(stat -c %s "$TESTDIR/$f.log" 2>/dev/null)" = "$WANT" ] && break
		sleep 0.1
	done
	[ "$(stat -c %s "$TESTDIR/$f.log")" = "$WANT" ] ||
		fail "expected $f.log to grow to $WANT bytes, got $(stat -c %s "$TESTDIR/$f.log")"
done
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
python3 - "$SF" "$TESTDIR" <<'EOF' >"$TESTDIR/counters.txt" || fail "expected the uncached counters (see $TESTDIR/counters.txt): $(cat "$TESTDIR/counters.txt")"
import json, os, re, sys
last = {}
for line in open(sys.argv[1]):
    m = re.match(r'^.{24}: (\{.*\})$', line.rstrip("\n"))
    if m:
        o = json.loads(m.group(1))
        last[o["name"]] = o
d = sys.argv[2]
for f in ("on", "auto", "off", "quiet"):
    path = os.path.join(d, f + ".log")
    o = last.get("omfile(%s)" % path)
    if o is None:
        print("no statistics object omfile(%s)" % path); sys.exit(1)
    size = os.path.getsize(path)
    if o["bytes"] != size:
        print("%s: bytes=%d but the file has %d" % (f, o["bytes"], size)); sys.exit(1)
    u = o["bytes.uncached"]
    print("%s bytes=%d uncached=%d" % (f, size, u))
    if f in ("off", "quiet") and u != 0:
        print("expected no uncached bytes for %s" % f); sys.exit(1)
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
res_pages() { fincore -n -b -o RES "$1" | awk '{print int($1 / 4096)}'; }
pages() { echo $(( ($(stat -c %s "$1") + 4095) / 4096 )); }
on_res=$(res_pages "$TESTDIR/on.log") auto_res=$(res_pages "$TESTDIR/auto.log")
off_res=$(res_pages "$TESTDIR/off.log") all=$(pages "$TESTDIR/off.log")
log "resident pages of $all: on $on_res, auto $auto_res, off $off_res"
[ "$on_res" -le $((all / 10)) ] || fail "expected at most 10% of on.log in the page cache, got $on_res of $all pages"
# auto: the bytes of its writes below 64k stay cached as well
auto_cached=$(awk '$1 == "auto" { split($2, b, "="); split($3, u, "="); print int((b[2] - u[2]) / 4096) }' "$TESTDIR/counters.txt")
[ "$auto_res" -le $((all / 10 + auto_cached)) ] || fail "expected at most 10% of auto.log (+ $auto_cached pages written cached) in the page cache, got $auto_res of $all pages"
# (the kernel may still drop some of it on its own: 86 % was seen once)
[ "$off_res" -ge $((all / 2)) ] || fail "expected off.log in the page cache, got $off_res of $all pages"

for f in on auto off; do
	python3 "$CHECK_SEQ" "$TESTDIR/$f.log" --expect "$NMSGS" ||
		fail "expected msgnum 0..$((NMSGS - 1)) once each in $f.log (check_seq above)"
done
cmp "$TESTDIR/on.log" "$TESTDIR/off.log" || fail "expected on.log and off.log byte-identical"
cmp "$TESTDIR/auto.log" "$TESTDIR/off.log" || fail "expected auto.log and off.log byte-identical"
for ((i = 0; i < 20; i++)); do
	grep -qxF "Mar  1 01:00:00 host tag: quiet $i" "$TESTDIR/quiet.log" ||
		fail "expected line 'quiet $i' in quiet.log, got: $(head -3 "$TESTDIR/quiet.log")"
done


exit 0
