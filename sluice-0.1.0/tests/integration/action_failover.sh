#!/bin/bash
# action_failover.sh - a fail-over chain and action.errorFile:
#   primary:   omfile into a directory that cannot be used (a regular file
#              stands where it should be, which stops root too), with
#              action.resumeRetryCount="1" and action.errorFile;
#   secondary: omfile with action.execOnlyWhenPreviousIsSuspended="on".
# While the primary is down, the secondary gets every message (exactly
# once, in order), and every message the primary gave up on is in its
# error file as one JSON line with the reason and the rendered message.
# After the repair (and the next retry time), the primary gets the new
# messages again and the secondary none of them.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

N=1000
require_tool tcpflood "$TCPFLOOD"
OUTDIR="$TESTDIR/outdir"
: >"$OUTDIR"
cat >"$TESTDIR/test.conf" <<EOF
main_queue(queue.workerThreads="1")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omfile" file="$OUTDIR/primary.log" template="RSYSLOG_TraditionalFileFormat"
       name="primary" action.resumeRetryCount="1" action.resumeInterval="1"
       action.resumeIntervalMax="2" action.errorFile="$TESTDIR/primary.err")
action(type="omfile" file="$TESTDIR/secondary.log" template="RSYSLOG_TraditionalFileFormat"
       name="secondary" action.execOnlyWhenPreviousIsSuspended="on")
EOF
start_dut "$TESTDIR/test.conf"
LOGF=$(ls "$TESTDIR"/sluiced.*.log)

# 1. primary down: everything goes to the secondary and the error file
"$TCPFLOOD" -p "$PORT" -m "$N" -q || fail "expected tcpflood to send $N messages, got $?"
wait_lines "$TESTDIR/secondary.log" "$N" 60
wait_lines "$TESTDIR/primary.err" "$N" 30
sleep 0.5
python3 "$CHECK_SEQ" "$TESTDIR/secondary.log" --expect "$N" ||
	fail "expected msgnum 0..$((N - 1)) exactly once in the secondary (check_seq above)"
[ -e "$OUTDIR/primary.log" ] && fail "expected no primary output while its directory is blocked"
python3 - "$TESTDIR/primary.err" "$N" <<'PY' || fail "expected $N well-formed error-file lines (see above)"
import json, re, sys
path, n = sys.argv[1], int(sys.argv[2])
seen = []
for ln, line in enumerate(open(path, encoding="utf-8"), 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        sys.exit(f"line {ln}: not JSON: {e}: {line!r}")
    for k in ("action", "module", "status", "reason", "message", "raw"):
        if k not in o:
            sys.exit(f"line {ln}: no {k!r}: {line!r}")
    if o["action"] != "primary" or o["module"] != "omfile":
        sys.exit(f"line {ln}: wrong action/module: {line!r}")
    if o["status"] != "suspended" or "resumeRetryCount" not in o["reason"]:
        sys.exit(f"line {ln}: wrong status/reason: {line!r}")
    m = re.search(r"msgnum:(\d{8}):", o["message"])
    if not m or "msgnum:" + m.group(1) not in o["raw"]:
        sys.exit(f"line {ln}: message/raw without the msgnum: {line!r}")
    seen.append(int(m.group(1)))
if sorted(seen) != list(range(n)):
    sys.exit(f"expected msgnum 0..{n - 1} once each; got {len(seen)} lines")
PY
kill -USR1 "$DAEMON_PID"
sleep 0.5
st=$(grep "action 'primary' (omfile):" "$LOGF" | tail -n 1)
grep -q " errorfile=$N " <<<"$st" || fail "expected errorfile=$N in the primary's statistics, got: $st"

# 2. repair; after the next retry time the primary takes over again
rm -f "$OUTDIR" && mkdir "$OUTDIR"
sleep 3
"$TCPFLOOD" -p "$PORT" -m "$N" -s "$N" -q || fail "expected tcpflood to send $N more messages, got $?"
wait_lines "$OUTDIR/primary.log" "$N" 60
sleep 1
stop_daemon
python3 "$CHECK_SEQ" "$OUTDIR/primary.log" --expect "$N" --start "$N" ||
	fail "expected msgnum $N..$((2 * N - 1)) exactly once in the primary (check_seq above)"
[ "$(count_lines "$TESTDIR/secondary.log")" = "$N" ] ||
	fail "expected the secondary to stay at $N lines after the primary is back, got $(count_lines "$TESTDIR/secondary.log")"
[ "$(count_lines "$TESTDIR/primary.err")" = "$N" ] ||
	fail "expected no new error-file lines after the primary is back, got $(count_lines "$TESTDIR/primary.err")"
grep -q "action 'primary' (module omfile) resumed" "$LOGF" ||
	fail "expected a resumption report in the daemon log"
exit 0
