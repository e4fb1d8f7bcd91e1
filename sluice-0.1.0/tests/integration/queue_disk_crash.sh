#!/bin/bash
# queue_disk_crash.sh - a Disk main queue (queue.type="Disk"):
#  1. kill -9 once the queue files hold all N messages (checked with
#     tools/sluice-queue, which reads what the daemon wrote), restart:
#     all N delivered; duplicates are counted and must stay within one
#     dequeue batch plus queue.checkpointInterval;
#  2. corrupt and truncated segment files: the daemon starts, names the
#     file and offset of each bad span, and delivers every intact record.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

N=10000
QTOOL="$top_builddir/tools/sluice-queue"
require_tool tcpflood "$TCPFLOOD"
require_tool sluice-queue "$QTOOL"
SPOOL="$TESTDIR/spool"; mkdir -p "$SPOOL"
OUTDIR="$TESTDIR/outdir"
cat >"$TESTDIR/test.conf" <<EOF
main_queue(queue.type="Disk" queue.filename="dq" queue.spoolDirectory="$SPOOL"
           queue.maxFileSize="64k" queue.checkpointInterval="100" queue.dequeueBatchSize="256")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omfile" file="$OUTDIR/out.log" template="RSYSLOG_TraditionalFileFormat"
       action.resumeRetryCount="-1" action.resumeInterval="1")
EOF

# 1. kill -9
: >"$OUTDIR"
start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -m "$N" -q || fail "expected tcpflood to send $N messages, got $?"
got=0
for ((i = 0; i < 100; i++)); do
	got=$("$QTOOL" count "$SPOOL" dq)
	[ "$got" = "$N" ] && break
	sleep 0.1
done
[ "$got" = "$N" ] || fail "expected $N messages in the disk queue, got $got"
kill -KILL "$DAEMON_PID"; wait "$DAEMON_PID" 2>/dev/null
rm -f "$OUTDIR" && mkdir "$OUTDIR"
mv "$TESTDIR"/sluiced.*.log "$TESTDIR/run1.log"
start_dut "$TESTDIR/test.conf"
wait_lines "$OUTDIR/out.log" "$N" 60
sleep 1
stop_daemon
python3 "$CHECK_SEQ" "$OUTDIR/out.log" --expect "$N" --allow-dups ||
	fail "expected every msgnum 0..$((N - 1)) after kill -9 and restart"
dups=$(( $(count_lines "$OUTDIR/out.log") - N ))
log "duplicates after kill -9: $dups"
[ "$dups" -le $((256 + 100)) ] || fail "expected at most 356 duplicates, got $dups"
[ -z "$(ls "$SPOOL")" ] || fail "expected no queue files at the end, got $(ls "$SPOOL")"

# 2. corrupt and truncated files
rm -rf "$OUTDIR"; : >"$OUTDIR"
mv "$TESTDIR"/sluiced.*.log "$TESTDIR/run2.log"
start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -m "$N" -q || fail "expected tcpflood to send $N messages, got $?"
sleep 1
stop_daemon
"$QTOOL" verify "$SPOOL" dq >/dev/null || fail "expected intact queue files after a clean stop"
# damage: one byte inside msgnum 5000's record, and cut the last record
"$QTOOL" dump "$SPOOL" dq >"$TESTDIR/dump.txt"
rec=$(grep -F 'msgnum:00005000:' "$TESTDIR/dump.txt" | cut -d' ' -f1)
seg=${rec%@*}; off=${rec#*@}
python3 - "$seg" "$off" <<'EOF'
import sys
p, off = sys.argv[1], int(sys.argv[2])
with open(p, "r+b") as f:
    f.seek(off + 60); b = f.read(1); f.seek(off + 60); f.write(bytes([b[0] ^ 0x55]))
EOF
last=$(tail -n 1 "$TESTDIR/dump.txt" | cut -d' ' -f1)
lseg=${last%@*}; loff=${last#*@}
truncate -s $((loff + 40)) "$lseg"
lastnum=$(tail -n 1 "$TESTDIR/dump.txt" | grep -o 'msgnum:[0-9]*' | cut -d: -f2)
"$QTOOL" verify "$SPOOL" dq >"$TESTDIR/verify.txt" && fail "expected sluice-queue verify to find the damage"
[ "$(grep -c '^BAD' "$TESTDIR/verify.txt")" = 2 ] || fail "expected 2 bad spans from verify, got: $(cat "$TESTDIR/verify.txt")"
rm -f "$OUTDIR" && mkdir "$OUTDIR"
mv "$TESTDIR"/sluiced.*.log "$TESTDIR/run3.log"
start_dut "$TESTDIR/test.conf"
wait_lines "$OUTDIR/out.log" $((N - 2)) 60
sleep 1
stop_daemon
[ "$(count_lines "$OUTDIR/out.log")" = $((N - 2)) ] || fail "expected $((N - 2)) lines, got $(count_lines "$OUTDIR/out.log")"
grep -q "msgnum:00005000:" "$OUTDIR/out.log" && fail "expected the corrupt record to be skipped"
grep -q "msgnum:$lastnum:" "$OUTDIR/out.log" && fail "expected the truncated record to be skipped"
grep -q "$(basename "$seg"), offset $off: corrupt or torn data" "$TESTDIR"/sluiced.*.log ||
	fail "expected the daemon to report $(basename "$seg") offset $off"
grep -q "$(basename "$lseg"), offset $loff: corrupt or torn data" "$TESTDIR"/sluiced.*.log ||
	fail "expected the daemon to report $(basename "$lseg") offset $loff"
exit 0
