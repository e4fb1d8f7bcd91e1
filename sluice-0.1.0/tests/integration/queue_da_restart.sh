#!/bin/bash
# queue_da_restart.sh - a disk-assisted main queue (LinkedList with
# queue.filename) whose output is down:
#  1. it spills to disk above its high watermark, and after the output is
#     back drains everything, in order, and leaves no queue file behind;
#  2. SIGTERM while it is full: the daemon exits 0 within its timeouts,
#     the rest is saved (saveOnShutdown), and after a restart every message
#     arrives exactly once.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

N=20000
require_tool tcpflood "$TCPFLOOD"
SPOOL="$TESTDIR/spool"; mkdir -p "$SPOOL"
OUTDIR="$TESTDIR/outdir"
write_conf() {
	cat >"$TESTDIR/test.conf" <<EOF
main_queue(queue.type="LinkedList" queue.size="5000" queue.highWatermark="2000"
           queue.lowWatermark="500" queue.filename="mainq" queue.spoolDirectory="$SPOOL"
           queue.maxFileSize="256k" queue.saveOnShutdown="on")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omfile" file="$OUTDIR/out.log" template="RSYSLOG_TraditionalFileFormat"
       action.resumeRetryCount="-1" action.resumeInterval="1")
EOF
}
write_conf

# 1. spill and drain back
: >"$OUTDIR"
start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -m "$N" -q || fail "expected tcpflood to send $N messages, got $?"
for ((i = 0; i < 100; i++)); do
	ls "$SPOOL"/mainq.0* >/dev/null 2>&1 && break
	sleep 0.1
done
ls "$SPOOL"/mainq.0* >/dev/null 2>&1 || fail "expected the queue to spill to $SPOOL, got no segment file"
rm -f "$OUTDIR" && mkdir "$OUTDIR"
wait_lines "$OUTDIR/out.log" "$N" 60
stop_daemon
python3 "$CHECK_SEQ" "$OUTDIR/out.log" --expect "$N" || fail "expected msgnum 0..$((N - 1)) once each"
awk -F'msgnum:' '{ n = substr($2, 1, 8) + 0; if (NR > 1 && n != last + 1) { print "order broken at line " NR; exit 1 } last = n }' \
	"$OUTDIR/out.log" || fail "expected the messages in the order they were sent"
grep -q "queue 'main Q':.* spills=1" "$TESTDIR"/sluiced.*.log || fail "expected spills=1 in the statistics"
grep -q "queue 'main Q':.* disk.size=0 " "$TESTDIR"/sluiced.*.log || fail "expected an empty disk part at stop"
[ -z "$(ls "$SPOOL")" ] || fail "expected no queue files after draining, got $(ls "$SPOOL")"

# 2. SIGTERM with a full queue, restart
rm -rf "$OUTDIR"; : >"$OUTDIR"
mv "$TESTDIR"/sluiced.*.log "$TESTDIR/run1.log"
start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -m "$N" -s "$N" -q || fail "expected tcpflood to send $N messages, got $?"
sleep 2
stop_daemon
grep -q "queue 'main Q':.* discarded.shutdown=0 " "$TESTDIR"/sluiced.*.log ||
	fail "expected nothing discarded at shutdown (statistics in the log)"
[ -f "$SPOOL/mainq.qi" ] || fail "expected a state file $SPOOL/mainq.qi after the stop"
got=$("$top_builddir/tools/sluice-queue" count "$SPOOL" mainq)
[ "$got" = "$N" ] || fail "expected $N messages in the queue files, got $got"
rm -f "$OUTDIR" && mkdir "$OUTDIR"
mv "$TESTDIR"/sluiced.*.log "$TESTDIR/run2.log"
start_dut "$TESTDIR/test.conf"
wait_lines "$OUTDIR/out.log" "$N" 60
stop_daemon
python3 "$CHECK_SEQ" "$OUTDIR/out.log" --start "$N" --expect "$N" ||
	fail "expected msgnum $N..$((2 * N - 1)) exactly once after the restart"
[ -z "$(ls "$SPOOL")" ] || fail "expected no queue files at the end, got $(ls "$SPOOL")"
exit 0
