#!/bin/bash
# parse_ahead.sh - inputs that can wait (TCP) parse their own batch when
# the memory queue is at least four dequeue batches behind; UDP never
# does (its senders do not wait). The queue counter "parsed.ahead" says
# how many messages were parsed that way.
# The main queue takes one message per dequeue (dequeueBatchSize 1), so
# a TCP flood of 100,000 messages keeps it more than four batches deep:
# parsed.ahead must be above 0 (and at most 100,000), and every line
# must come out exactly as the worker's own parsing writes it (the
# expected lines are generated here). A second ruleset with its own
# queue, slowed down, gets 5,000 UDP datagrams: its parsed.ahead must
# stay 0 and every line that arrived must be parsed right.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool sluiced "$SLUICED"
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (parse-ahead counter)"
N=100000
NU=5000
UPORT=$(get_free_port)
cat >"$TESTDIR/test.conf" <<EOF
main_queue(queue.type="FixedArray" queue.size="20000" queue.dequeueBatchSize="1"
           queue.workerThreads="1")
module(load="imtcp")
module(load="imudp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
input(type="imudp" port="$UPORT" address="127.0.0.1" ruleset="u")
template(name="t" type="string" string="%hostname%|%syslogtag%|%programname%|%syslogseverity%|%timereported:::date-rfc3339%|%msg%\n")
action(type="omfile" file="$TESTDIR/tcp.log" template="t")
ruleset(name="u" queue.type="FixedArray" queue.size="20000" queue.dequeueBatchSize="1"
        queue.dequeueSlowdown="100") {
	action(type="omfile" file="$TESTDIR/udp.log" template="t")
}
EOF
start_sluiced "$TESTDIR/test.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c 1 -m "$N" -q || fail "expected tcpflood to send $N messages, got $?"
"$TCPFLOOD" -T udp -t 127.0.0.1 -p "$UPORT" -s "$N" -m "$NU" -r 20000 -q || fail "expected tcpflood to send $NU datagrams, got $?"
wait_lines "$TESTDIR/tcp.log" "$N" 60
wait_stable 30 "$TESTDIR/udp.log" || fail "expected udp.log to settle within 30 s"
LOGF="$TESTDIR/sluiced.$PORT.log"
stop_daemon

# tcpflood's RFC3164 messages: "<167>Mar  1 01:00:00 tcpflood tag msgnum:NNNNNNNN:"
python3 - "$TESTDIR/tcp.log" "$TESTDIR/udp.log" "$N" "$NU" <<'EOF' || fail "expected every line parsed as the worker parses it (see above)"
import re, sys
tcp, udp, n, nu = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
pat = re.compile(r'^tcpflood\|tag\|tag\|7\|\d{4}-03-01T01:00:00[^|]*\| msgnum:(\d{8}):$')
got = [l.rstrip("\n") for l in open(tcp)]
if len(got) != n:
    print("tcp.log: %d lines, expected %d" % (len(got), n)); sys.exit(1)
for i, l in enumerate(got):
    m = pat.match(l)
    if not m or int(m.group(1)) != i:
        print("tcp.log line %d: %r" % (i + 1, l)); sys.exit(1)
seen = set()
for l in open(udp):
    m = pat.match(l.rstrip("\n"))
    if not m or not (n <= int(m.group(1)) < n + nu) or m.group(1) in seen:
        print("udp.log: %r" % l); sys.exit(1)
    seen.add(m.group(1))
if len(seen) < nu // 2:
    print("udp.log: only %d of %d datagrams" % (len(seen), nu)); sys.exit(1)
print("tcp.log: %d lines in order; udp.log: %d distinct lines" % (n, len(seen)))
EOF

main=$(grep -o "queue 'main Q':.*" "$LOGF" | tail -1)
uq=$(grep -o "queue 'u':.*" "$LOGF" | tail -1)
[ -n "$main" ] && [ -n "$uq" ] || fail "expected the statistics lines of 'main Q' and 'u' in $LOGF, got: $(grep -o "queue '[^']*'" "$LOGF" | sort -u | tr '\n' ' ')"
pa() { echo "$1" | sed -n 's/.* parsed\.ahead=\([0-9]*\).*/\1/p'; }
log "main Q parsed.ahead=$(pa "$main"), u parsed.ahead=$(pa "$uq")"
[ "$(pa "$main")" -gt 0 ] && [ "$(pa "$main")" -le "$N" ] ||
	fail "expected 0 < parsed.ahead <= $N for the TCP flood's queue, got: $main"
[ "$(pa "$uq")" = 0 ] || fail "expected parsed.ahead=0 for the UDP ruleset's queue, got: $uq"
exit 0
