#!/bin/bash
# sighup.sh - logrotate-style rotation: the output file is moved away and the
# daemon gets SIGHUP, once while messages are flowing and once between two
# batches. Lines written after the HUP must land in a new file at the old
# path, and no line may be lost or repeated across the files.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

N1=${N1:-100000}     # phase 1: rate-limited flood, rotation in the middle
RATE=${RATE:-40000}
N2=${N2:-5000}       # phase 2: rotation between batches
require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"

OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="r")
ruleset(name="r") {
	action(type="omfile" file="$OUT" template="msgonly")
}
EOF

# total_lines FILE...: sum of the line counts
total_lines() {
	local f t=0
	for f in "$@"; do t=$((t + $(count_lines "$f"))); done
	echo "$t"
}

start_dut "$TESTDIR/test.conf"

# --- phase 1: rotate while messages are flowing
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m "$N1" -r "$RATE" -q &
flood=$!
wait_lines "$OUT" $((N1 / 10)) 60
mv "$OUT" "$OUT.1"
hup_daemon
wait "$flood" || fail "expected tcpflood to send $N1 messages, got exit status $?"
deadline=$((SECONDS + 60))
while [ "$(total_lines "$OUT.1" "$OUT")" -lt "$N1" ] && [ "$SECONDS" -lt "$deadline" ]; do
	sleep 0.2
done
got1=$(count_lines "$OUT.1")
got=$(count_lines "$OUT")
[ $((got1 + got)) = "$N1" ] ||
	fail "expected $N1 lines in $OUT.1 + $OUT, got $got1 + $got"
[ "$got" -gt 0 ] ||
	fail "expected lines sent after SIGHUP in a new $OUT, got none (all $got1 in the moved file)"
[ "$got1" -ge $((N1 / 10)) ] ||
	fail "expected at least $((N1 / 10)) lines in the moved file, got $got1"

# --- phase 2: rotate between two batches
mv "$OUT" "$OUT.2"
hup_daemon
sleep 0.5
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m "$N2" -s "$N1" -q ||
	fail "expected tcpflood to send $N2 messages, got exit status $?"
wait_lines "$OUT" "$N2" 60
stop_daemon

got2=$(count_lines "$OUT.2")
[ "$got2" = "$got" ] ||
	fail "expected the file moved in phase 2 to keep its $got lines, got $got2"
got=$(count_lines "$OUT")
[ "$got" = "$N2" ] || fail "expected $N2 lines in the new $OUT, got $got"
python3 "$CHECK_SEQ" "$OUT" --expect "$N2" --start "$N1" ||
	fail "expected msgnum $N1..$((N1 + N2 - 1)) once each in the new file (check_seq above)"
python3 "$CHECK_SEQ" "$OUT.1" "$OUT.2" "$OUT" --expect $((N1 + N2)) ||
	fail "expected msgnum 0..$((N1 + N2 - 1)) once each across the three files (check_seq above)"
want=$(printf ' msgnum:%08d:' "$N1")
first=$(head -n1 "$OUT")
[ "$first" = "$want" ] || fail "expected first line of the new file '$want', got '$first'"
log "ok: rotation via SIGHUP ($got1 + $got2 + $got lines) with $DUT_NAME"
exit 0
