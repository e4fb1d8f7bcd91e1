#!/bin/bash
# action_output_down.sh - an omfile action whose directory cannot be used
# (a regular file stands where the directory should be, which stops root
# too) for a while, then can: with action.resumeRetryCount="-1" every
# message waits in the action's queue (no drop, no busy loop: only a few
# retries are logged), and after the repair all arrive, in order, once.
# A second action without trouble keeps delivering meanwhile.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

N=5000
require_tool tcpflood "$TCPFLOOD"
OUTDIR="$TESTDIR/outdir"
: >"$OUTDIR"            # a file: the action cannot create outdir/out.log
# one main-queue worker: with several, rsyslog and sluice may reorder
cat >"$TESTDIR/test.conf" <<EOF
main_queue(queue.workerThreads="1")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omfile" file="$OUTDIR/out.log" template="RSYSLOG_TraditionalFileFormat"
       name="down" queue.type="LinkedList" queue.size="100000"
       action.resumeRetryCount="-1" action.resumeInterval="1")
action(type="omfile" file="$TESTDIR/ok.log" template="RSYSLOG_TraditionalFileFormat")
EOF
start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -m "$N" -q || fail "expected tcpflood to send $N messages, got $?"
# the healthy action is not held up by the suspended one
wait_lines "$TESTDIR/ok.log" "$N" 60
sleep 3
[ -e "$OUTDIR/out.log" ] && fail "expected no output while the directory is blocked"
grep -q "action 'down' (module omfile) suspended" "$TESTDIR"/sluiced.*.log ||
	fail "expected a suspension report in the daemon log"
rm -f "$OUTDIR" && mkdir "$OUTDIR"
wait_lines "$OUTDIR/out.log" "$N" 60
stop_daemon
python3 "$CHECK_SEQ" "$OUTDIR/out.log" --expect "$N" ||
	fail "expected msgnum 0..$((N - 1)) exactly once (check_seq above)"
awk -F'msgnum:' '{ n = substr($2, 1, 8) + 0; if (NR > 1 && n != last + 1) { print "order broken at line " NR; exit 1 } last = n }' \
	"$OUTDIR/out.log" || fail "expected the messages in the order they were sent"
grep -q "action 'down' (module omfile) resumed" "$TESTDIR"/sluiced.*.log ||
	fail "expected a resumption report in the daemon log"
# no busy loop: about one try a second while it was down
retries=$(grep "action 'down' (omfile):" "$TESTDIR"/sluiced.*.log | grep -o 'retries=[0-9]*' | cut -d= -f2)
[ -n "$retries" ] && [ "$retries" -lt 30 ] ||
	fail "expected a handful of retries (no busy loop), got '${retries:-none}'"
exit 0
