#!/bin/bash
# ledger_discard.sh - the loss ledger when an action drops messages: an
# action queue (LinkedList, 200 slots, discardMark 20, discardSeverity 0
# so every severity may go) fed faster than its slowed workers take, so
# most of 20,000 messages are discarded at the mark. After the stop the
# final ledger must balance exactly: received 20000, delivered = lines in
# the file, dropped.discardmark = 20000 - lines = the queue's discarded.nf,
# queued 0, unaccounted 0; every line written is a distinct message of the
# run (no duplicates, none invented).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool sluiced "$SLUICED"
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (loss ledger)"
N=20000
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="m" type="string" string="%msg%\n")
action(type="omfile" file="$OUT" template="m" name="slow"
       queue.type="LinkedList" queue.size="200" queue.discardMark="20"
       queue.discardSeverity="0" queue.dequeueBatchSize="10" queue.dequeueSlowdown="2000")
EOF
start_sluiced "$TESTDIR/test.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m "$N" -q || fail "expected tcpflood to send $N messages, got $?"
wait_stable 30 "$OUT" || fail "expected the output to settle within 30 s"
LOGF="$TESTDIR/sluiced.$PORT.log"
stop_daemon

L=$(grep -o 'final ledger: .*' "$LOGF") || fail "expected a final ledger line in the log"
get() { echo "$L" | grep -o " $1=[0-9]*" | cut -d= -f2; }
lines=$(count_lines "$OUT")
[ "$(get received)" = "$N" ] || fail "expected received=$N, got: $L"
[ "$(get delivered)" = "$lines" ] || fail "expected delivered=$lines (lines written), got: $L"
[ "$(get dropped.discardmark)" = "$((N - lines))" ] ||
	fail "expected dropped.discardmark=$((N - lines)), got: $L"
[ "$((N - lines))" -gt 1000 ] || fail "expected the action to discard most messages, got $lines of $N delivered"
[ "$(get queued)" = 0 ] && [ "$(get unaccounted)" = 0 ] && [ "$(get failed)" = 0 ] &&
	[ "$(get dropped.queue_full)" = 0 ] && [ "$(get filtered)" = 0 ] ||
	fail "expected queued=0 unaccounted=0 failed=0 dropped.queue_full=0 filtered=0, got: $L"
nf=$(grep -o "queue 'slow queue': .*" "$LOGF" | grep -o ' discarded.nf=[0-9]*' | cut -d= -f2)
[ "$nf" = "$((N - lines))" ] || fail "expected the action queue's discarded.nf=$((N - lines)), got '$nf'"
dups=$(sort "$OUT" | uniq -d | wc -l)
bad=$(grep -cv '^ msgnum:[0-9]\{8\}:$' "$OUT")
[ "$dups" = 0 ] && [ "$bad" = 0 ] || fail "expected distinct tcpflood lines only, got $dups duplicates, $bad others"
log "ledger: $L"
