#!/bin/bash
# queue_max_disk.sh - queue.maxDiskSpace reached on a Disk action queue
# whose output is down (its directory is a regular file, which stops root
# too): the disk part stops at maxDiskSpace (the segment files never grow
# beyond it), the queue counts disk.full, the TCP input is held back
# (back-pressure: the rest waits upstream in the main queue, nothing is
# discarded), the daemon does not crash, and the counters are visible in
# the SIGUSR1 statistics while it runs. After the output is repaired every
# message arrives exactly once, in order.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

N=5000
MAXDISK=65536
require_tool tcpflood "$TCPFLOOD"
SPOOL="$TESTDIR/spool"; mkdir -p "$SPOOL"
OUTDIR="$TESTDIR/outdir"
: >"$OUTDIR"
cat >"$TESTDIR/test.conf" <<EOF
main_queue(queue.workerThreads="1")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omfile" file="$OUTDIR/out.log" template="RSYSLOG_TraditionalFileFormat"
       name="out" queue.type="Disk" queue.filename="aq" queue.spoolDirectory="$SPOOL"
       queue.maxFileSize="16k" queue.maxDiskSpace="$MAXDISK"
       action.resumeRetryCount="-1" action.resumeInterval="1")
EOF
start_dut "$TESTDIR/test.conf"
LOGF=$(ls "$TESTDIR"/sluiced.*.log)
"$TCPFLOOD" -p "$PORT" -m "$N" -q || fail "expected tcpflood to send $N messages, got $?"

# statistics while running: SIGUSR1 until the action queue reports disk.full
line= df=
for ((i = 0; i < 50; i++)); do
	kill -USR1 "$DAEMON_PID"
	sleep 0.2
	line=$(grep "queue 'out queue':" "$LOGF" | tail -n 1)
	df=$(sed -n 's/.* disk\.full=\([0-9]*\).*/\1/p' <<<"$line")
	[ -n "$df" ] && [ "$df" -gt 0 ] && break
done
[ -n "$line" ] || fail "expected statistics of 'out queue' after SIGUSR1, got none"
[ "${df:-0}" -gt 0 ] || fail "expected disk.full > 0 on 'out queue', got: $line"
ddisk=$(sed -n 's/.* discarded\.disk=\([0-9]*\).*/\1/p' <<<"$line")
[ "$ddisk" = 0 ] || fail "expected discarded.disk=0 (TCP waits, nothing dropped), got: $line"
bytes=$(_sl_size "$SPOOL")
[ "$bytes" -le "$MAXDISK" ] || fail "expected at most $MAXDISK bytes of queue files, got $bytes"
dsize=$(sed -n 's/.* disk\.size=\([0-9]*\).*/\1/p' <<<"$line")
[ "${dsize:-0}" -gt 0 ] && [ "$dsize" -lt "$N" ] ||
	fail "expected a partly filled disk part (0 < disk.size < $N), got: $line"
# the rest waits upstream, in the main queue
mq=$(grep "queue 'main Q':" "$LOGF" | tail -n 1 | sed -n 's/.*: size=\([0-9]*\).*/\1/p')
[ "${mq:-0}" -gt 0 ] || fail "expected messages waiting in the main queue, got size=${mq:-none}"
log "stalled: disk.size=$dsize disk.full=$df files=$bytes bytes, main queue size=$mq"
[ -e "$OUTDIR/out.log" ] && fail "expected no output while the directory is blocked"

# repair: everything arrives, once, in order
rm -f "$OUTDIR" && mkdir "$OUTDIR"
wait_lines "$OUTDIR/out.log" "$N" 90
sleep 1
stop_daemon
python3 "$CHECK_SEQ" "$OUTDIR/out.log" --expect "$N" ||
	fail "expected msgnum 0..$((N - 1)) exactly once (check_seq above)"
awk -F'msgnum:' '{ n = substr($2, 1, 8) + 0; if (NR > 1 && n != last + 1) { print "order broken at line " NR; exit 1 } last = n }' \
	"$OUTDIR/out.log" || fail "expected the messages in the order they were sent"
final=$(grep "queue 'out queue':" "$LOGF" | tail -n 1)
for c in discarded.full discarded.disk discarded.shutdown; do
	grep -q " $c=0 " <<<"$final" || fail "expected $c=0 at stop, got: $final"
done
[ -z "$(ls "$SPOOL")" ] || fail "expected no queue files at the end, got $(ls "$SPOOL")"
exit 0
