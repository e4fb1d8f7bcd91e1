#!/bin/bash
# queue_max_disk.sh - queue.maxDiskSpace reached on a Disk action queue
# whose output is down (its directory is a regular file, which stops root
# too): the disk part stops at maxDiskSpace (the segment files never grow
# beyond it), the queue counts disk.full, the TCP input is held back
# (back-pressure: the rest waits upstream in the main queue, nothing is
# discarded), the daemon does not crash, and the counters are visible in
# the SIGUSR1 statistics while it runs. After the output is repaired every
# message arrives exactly once, in order.
# Part 2: the same limit on a Disk main queue fed by UDP, which cannot
# wait (queue.timeoutEnqueue="0"): what fits is kept and delivered after
# the repair, the rest is discarded and counted (discarded.disk), and the
# two add up to what was sent.
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

# part 2: UDP into a Disk main queue at maxDiskSpace
[ "$DUT_NAME" = sluiced ] || exit 0   # sluice's own counters from here on
NU=3000
UPORT=$(get_free_port)
TPORT=$(get_free_port)   # TCP only so that start_dut sees the daemon is up
rm -rf "$OUTDIR" "$SPOOL"; : >"$OUTDIR"; mkdir -p "$SPOOL"
mv "$LOGF" "$TESTDIR/part1.log"
cat >"$TESTDIR/udp.conf" <<EOF
main_queue(queue.type="Disk" queue.filename="mq" queue.spoolDirectory="$SPOOL"
           queue.maxFileSize="16k" queue.maxDiskSpace="$MAXDISK" queue.timeoutEnqueue="0")
module(load="imudp")
input(type="imudp" port="$UPORT" address="127.0.0.1")
module(load="imtcp")
input(type="imtcp" port="$TPORT" address="127.0.0.1")
action(type="omfile" file="$OUTDIR/out.log" template="RSYSLOG_TraditionalFileFormat"
       action.resumeRetryCount="-1" action.resumeInterval="1")
EOF
start_dut "$TESTDIR/udp.conf" "$TPORT"
LOGF=$(ls "$TESTDIR"/sluiced.*.log)
"$TCPFLOOD" -T udp -p "$UPORT" -m "$NU" -r 20000 -q ||
	fail "expected tcpflood to send $NU datagrams, got $?"
line=
for ((i = 0; i < 50; i++)); do
	kill -USR1 "$DAEMON_PID"
	sleep 0.2
	line=$(grep "queue 'main Q':" "$LOGF" | tail -n 1)
	enq=$(sed -n 's/.* enqueued=\([0-9]*\).*/\1/p' <<<"$line")
	dd=$(sed -n 's/.* discarded\.disk=\([0-9]*\).*/\1/p' <<<"$line")
	[ -n "$enq" ] && [ $((enq + dd)) -ge "$NU" ] && break
done
[ -n "$line" ] || fail "expected statistics of 'main Q' after SIGUSR1, got none"
[ "${dd:-0}" -gt 0 ] || fail "expected discarded.disk > 0 on 'main Q', got: $line"
[ $((enq + dd)) = "$NU" ] ||
	fail "expected enqueued + discarded.disk = $NU (no kernel drop at this rate), got: $line"
bytes=$(_sl_size "$SPOOL")
[ "$bytes" -le "$MAXDISK" ] || fail "expected at most $MAXDISK bytes of queue files, got $bytes"
log "udp: enqueued=$enq discarded.disk=$dd files=$bytes bytes"
rm -f "$OUTDIR" && mkdir "$OUTDIR"
wait_lines "$OUTDIR/out.log" "$enq" 60
sleep 1
stop_daemon
# what was kept is the first $enq datagrams, once each
python3 "$CHECK_SEQ" "$OUTDIR/out.log" --expect "$enq" ||
	fail "expected msgnum 0..$((enq - 1)) exactly once (check_seq above)"
exit 0
