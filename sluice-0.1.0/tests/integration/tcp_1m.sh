#!/bin/bash
# tcp_1m.sh - one TCP connection, 1,000,000 LF-framed messages from tcpflood,
# written by omfile with RSYSLOG_TraditionalFileFormat: every message must
# arrive exactly once, in a line of exactly the expected bytes.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

NMSGS=${NMSGS:-1000000}
require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"

OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="flood")
ruleset(name="flood") {
	action(type="omfile" file="$OUT" template="RSYSLOG_TraditionalFileFormat")
}
EOF

start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c 1 -m "$NMSGS" -F lf -q ||
	fail "expected tcpflood to send $NMSGS messages, got exit status $?"
if ! try_wait_lines "$OUT" "$NMSGS" 300; then
	python3 "$CHECK_SEQ" "$OUT" --expect "$NMSGS" >&2
	fail "expected $NMSGS lines in $OUT, got $WAIT_GOT ($WAIT_WHY)"
fi
stop_daemon

got=$(count_lines "$OUT")
[ "$got" = "$NMSGS" ] || fail "expected $NMSGS lines in $OUT, got $got"
python3 "$CHECK_SEQ" "$OUT" --expect "$NMSGS" ||
	fail "expected msgnum 0..$((NMSGS - 1)) each exactly once (check_seq above)"

# exact content of a sample of lines (position not checked: like rsyslogd,
# a daemon with several queue workers may reorder)
for n in 0 1 $((NMSGS / 2)) $((NMSGS - 1)); do
	want=$(printf 'Mar  1 01:00:00 tcpflood tag msgnum:%08d:' "$n")
	c=$(grep -cxF -- "$want" "$OUT")
	[ "$c" = 1 ] || fail "expected exactly one line '$want', got $c (line $((n + 1)) is '$(sed -n "$((n + 1))p" "$OUT")')"
done
# no stray bytes: every line has the same shape
bad=$(grep -cvE '^Mar  1 01:00:00 tcpflood tag msgnum:[0-9]{8}:$' "$OUT")
[ "$bad" = 0 ] || fail "expected every line in traditional format, got $bad other lines, e.g. '$(grep -vE '^Mar  1 01:00:00 tcpflood tag msgnum:[0-9]{8}:$' "$OUT" | head -n1)'"
log "ok: $NMSGS messages via $DUT_NAME"
exit 0
