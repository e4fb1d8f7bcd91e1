#!/bin/bash
# omfile_behind.sh - omfile's uncachedWrites="behind" (sluice's default:
# drop-behind). 150,000 messages of 1,000 bytes (about 150 MB) go to two
# files, "behind" (the default, not set) and "off". Both must hold every
# message once and be byte-identical; after `sync` the page cache must
# hold (fincore) at most the last 64 MB of the behind file plus one 8 MB
# step (and some of it: a reader that follows the file finds its end in
# memory), and most of the off file.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

NMSGS=${NMSGS:-150000}
require_tool sluiced "$SLUICED"
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (uncachedWrites)"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
require_page_cache

cat >"$TESTDIR/test.conf" <<EOF
main_queue(queue.workerThreads="1")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="m" type="string" string="%msg%\n")
action(type="omfile" file="$TESTDIR/behind.log" template="m" ioBufferSize="256k" flushOnTXEnd="off")
action(type="omfile" file="$TESTDIR/off.log" template="m" ioBufferSize="256k" flushOnTXEnd="off"
       uncachedWrites="off")
EOF
start_sluiced "$TESTDIR/test.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c 1 -m "$NMSGS" -d 1000 -q ||
	fail "expected tcpflood to send $NMSGS messages, got exit status $?"
# wait by size (reading the files would bring their pages back)
prev=-1
for ((i = 0; i < 600; i++)); do
	a=$(stat -c %s "$TESTDIR/behind.log") b=$(stat -c %s "$TESTDIR/off.log")
	[ "$a" = "$b" ] && [ "$a" = "$prev" ] && [ "$a" -gt $((NMSGS * 900)) ] && break
	prev=$a
	sleep 0.2
done
stop_daemon
sync
sleep 1
res_mb() { cached_bytes "$1" 1048576; }
size_mb=$(( $(stat -c %s "$TESTDIR/off.log") / 1048576 ))
behind=$(res_mb "$TESTDIR/behind.log") off=$(res_mb "$TESTDIR/off.log")
log "file size $size_mb MB; in the page cache: behind $behind MB, off $off MB"
[ "$size_mb" -ge 120 ] || fail "expected about 150 MB written, got $size_mb MB"
[ "$behind" -le 72 ] || fail "expected at most 64 + 8 MB of behind.log in the page cache, got $behind MB"
[ "$behind" -ge 8 ] || fail "expected the end of behind.log to stay in the page cache, got $behind MB"
[ "$off" -ge $((size_mb / 2)) ] || fail "expected off.log in the page cache, got $off of $size_mb MB"
python3 "$CHECK_SEQ" "$TESTDIR/behind.log" --expect "$NMSGS" ||
	fail "expected msgnum 0..$((NMSGS - 1)) once each in behind.log (check_seq above)"
cmp "$TESTDIR/behind.log" "$TESTDIR/off.log" || fail "expected behind.log and off.log byte-identical"
exit 0
