#!/bin/bash
# imudp_coalesce.sh - imudp coalesceDelay, sluice's nap after a wake-up
# that found few datagrams:
# 1. the nap is bounded by the receive buffer: rcvBufSize="256k" (the
#    kernel gives 512 KB, ~600 datagrams) at 50,000 datagrams/s after a
#    quiet start, with coalesceDelay="20000" so that the buffer is the
#    bound: a nap sized by the goal of 1,024 datagrams, or a full nap on
#    the first wake-up (when no rate is known), would overflow it. Every
#    one of 100,000 datagrams must arrive exactly once.
# 2. the nap works and is bounded by coalesceDelay: 4,000 datagrams at
#    5,000/s with batchSize="1024" timeRequery="1000" (one reception
#    time per wake-up): with coalesceDelay="4000" a wake-up takes several
#    datagrams (far fewer reception times than datagrams) and no two
#    wake-ups are more than 40 ms apart (a nap sized by the buffer alone
#    would last 180 ms at this rate); with coalesceDelay="0" there are
#    more wake-ups.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"
[ "$DUT_NAME" = sluiced ] || skip "coalesceDelay is a sluice parameter"

# 1. a small receive buffer at a high rate: nothing lost
N1=100000
TCPP=$(get_free_port)
OUT="$TESTDIR/out.small"
udp_conf "$TESTDIR/small.conf" "$TCPP" 'batchSize="64" coalesceDelay="20000"' 256k '%msg%\n' "$OUT"
start_sluiced "$TESTDIR/small.conf" "$TCPP"
"$TCPFLOOD" -T udp -t 127.0.0.1 -p "$PORT" -m "$N1" -r 50000 -q ||
	fail "expected tcpflood to send $N1 datagrams, got exit status $?"
if ! try_wait_lines "$OUT" "$N1" 60; then
	python3 "$CHECK_SEQ" "$OUT" --expect "$N1" >&2
	fail "expected $N1 lines with rcvBufSize=256k at 50,000/s (naps bounded by the buffer), got $WAIT_GOT ($WAIT_WHY)"
fi
stop_daemon
python3 "$CHECK_SEQ" "$OUT" --expect "$N1" ||
	fail "expected msgnum 0..$((N1 - 1)) each exactly once (check_seq above)"
log "ok: $N1 datagrams at 50,000/s into a 256k buffer, each once"

# 2. reception times at a low rate
N2=4000
run() { # $1 = coalesceDelay; prints "wake-ups largest-gap-in-us"
	local out="$TESTDIR/out.$1" tp
	tp=$(get_free_port)
	udp_conf "$TESTDIR/c$1.conf" "$tp" "batchSize=\"1024\" timeRequery=\"1000\" coalesceDelay=\"$1\"" 4m \
		'%timegenerated:::date-rfc3339%|%msg%\n' "$out"
	{
		start_sluiced "$TESTDIR/c$1.conf" "$tp"
		"$TCPFLOOD" -T udp -t 127.0.0.1 -p "$PORT" -m "$N2" -r 5000 -q ||
			fail "expected tcpflood to send $N2 datagrams, got exit status $?"
		wait_lines "$out" "$N2" 30
		stop_daemon
	} >&2
	python3 "$CHECK_SEQ" "$out" --expect "$N2" >&2 ||
		fail "expected msgnum 0..$((N2 - 1)) each exactly once with coalesceDelay=$1"
	python3 - "$out" <<-'EOF'
	import datetime, sys
	ts = sorted({l.split("|", 1)[0] for l in open(sys.argv[1])})
	us = [datetime.datetime.fromisoformat(t).timestamp() * 1e6 for t in ts]
	gap = max((b - a for a, b in zip(us, us[1:])), default=0)
	print(len(ts), int(gap))
	EOF
}
read -r wk gap <<<"$(run 4000)" || exit 1
log "coalesceDelay=4000: $wk wake-ups for $N2 datagrams, largest gap $gap us"
read -r wk0 gap0 <<<"$(run 0)" || exit 1
log "coalesceDelay=0: $wk0 wake-ups, largest gap $gap0 us"
[ "$wk" -le $((N2 / 4)) ] ||
	fail "expected at most $((N2 / 4)) wake-ups (4+ datagrams each) at 5,000/s with coalesceDelay=4000, got $wk"
[ "$gap" -le 40000 ] ||
	fail "expected no two wake-ups more than 40 ms apart with coalesceDelay=4000 (the nap is capped), got $gap us"
[ "$wk0" -gt "$wk" ] ||
	fail "expected more wake-ups with coalesceDelay=0 than with 4000 ($wk), got $wk0"
exit 0
