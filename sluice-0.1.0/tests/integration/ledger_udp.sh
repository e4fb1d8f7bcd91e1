#!/bin/bash
# ledger_udp.sh - the loss ledger when UDP overflows: imudp into a main
# queue of 50 slots that never waits (queue.timeoutEnqueue 0; UDP is never
# delayed) with slowed workers, and a small socket buffer (rcvBufSize
# 64k), blasted with 30,000 datagrams. Every datagram must be accounted
# for, exactly:
#   sent = imudp msgs.received + kernel.drops (the socket's drops counter)
#   received (ledger) = imudp submitted
#   received = delivered + dropped.queue_full (+ queued 0), unaccounted 0
#   delivered = lines written, all distinct.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool sluiced "$SLUICED"
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (loss ledger)"
N=30000
UPORT=$(get_free_port)
HPORT=$(get_free_port)
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<EOF
main_queue(queue.type="FixedArray" queue.size="50" queue.timeoutEnqueue="0"
           queue.dequeueBatchSize="8" queue.dequeueSlowdown="1000")
module(load="imudp")
module(load="imtcp")
module(load="imhttp" ports="127.0.0.1:$HPORT")
input(type="imtcp" port="$PORT" address="127.0.0.1")
input(type="imudp" port="$UPORT" address="127.0.0.1" rcvBufSize="64k")
template(name="m" type="string" string="%msg%\n")
action(type="omfile" file="$OUT" template="m")
EOF
start_sluiced "$TESTDIR/test.conf"
"$TCPFLOOD" -T udp -t 127.0.0.1 -p "$UPORT" -m "$N" -q || fail "expected tcpflood to send $N datagrams, got $?"
wait_stable 30 "$OUT" || fail "expected the output to settle within 30 s"
sleep 0.5
curl -s "http://127.0.0.1:$HPORT/metrics" >"$TESTDIR/metrics.txt" || fail "expected /metrics, got curl status $?"
LOGF="$TESTDIR/sluiced.$PORT.log"
stop_daemon

m() { grep "^$1{name=\"$2\"}" "$TESTDIR/metrics.txt" | awk '{print $2}'; }
U="imudp(127.0.0.1/$UPORT)"
rcvd=$(m sluice_imudp_msgs_received_total "$U")
kdrops=$(m sluice_imudp_kernel_drops_total "$U")
subm=$(m sluice_imudp_submitted_total "$U")
[ -n "$rcvd" ] && [ -n "$kdrops" ] && [ -n "$subm" ] || fail "expected imudp counters in /metrics for $U"
[ "$((rcvd + kdrops))" = "$N" ] ||
	fail "expected msgs.received ($rcvd) + kernel.drops ($kdrops) = $N datagrams sent"

L=$(grep -o 'final ledger: .*' "$LOGF") || fail "expected a final ledger line in the log"
get() { echo "$L" | grep -o " $1=[0-9]*" | cut -d= -f2; }
lines=$(count_lines "$OUT")
[ "$(get received)" = "$subm" ] || fail "expected ledger received = imudp submitted ($subm), got: $L"
[ "$(get delivered)" = "$lines" ] || fail "expected delivered=$lines (lines written), got: $L"
[ "$(get dropped.queue_full)" = "$((subm - lines))" ] ||
	fail "expected dropped.queue_full=$((subm - lines)), got: $L"
[ "$((subm - lines))" -gt 0 ] || fail "expected the tiny main queue to overflow, got all $subm delivered"
[ "$(get queued)" = 0 ] && [ "$(get unaccounted)" = 0 ] && [ "$(get dropped.discardmark)" = 0 ] ||
	fail "expected queued=0 unaccounted=0 dropped.discardmark=0, got: $L"
dups=$(sort "$OUT" | uniq -d | wc -l)
[ "$dups" = 0 ] || fail "expected distinct lines, got $dups duplicates"
log "sent $N: kernel drops $kdrops, received $rcvd, queue full $((subm - lines)), delivered $lines; $L"
