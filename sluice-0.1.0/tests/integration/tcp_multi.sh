#!/bin/bash
# tcp_multi.sh - 10 concurrent TCP connections, 200,000 octet-counted messages
# in total: every message must arrive exactly once with its exact content.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

NMSGS=${NMSGS:-200000}
NCONN=${NCONN:-10}
require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"

OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="flood")
ruleset(name="flood") {
	action(type="omfile" file="$OUT" template="msgonly")
}
EOF

start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c "$NCONN" -m "$NMSGS" -F oc -q ||
	fail "expected tcpflood to send $NMSGS messages over $NCONN connections, got exit status $?"
if ! try_wait_lines "$OUT" "$NMSGS" 180; then
	python3 "$CHECK_SEQ" "$OUT" --expect "$NMSGS" >&2
	fail "expected $NMSGS lines in $OUT, got $WAIT_GOT ($WAIT_WHY)"
fi
stop_daemon

got=$(count_lines "$OUT")
[ "$got" = "$NMSGS" ] || fail "expected $NMSGS lines in $OUT, got $got"
python3 "$CHECK_SEQ" "$OUT" --expect "$NMSGS" ||
	fail "expected msgnum 0..$((NMSGS - 1)) each exactly once (check_seq above)"
# %msg% of "<167>Mar  1 01:00:00 tcpflood tag msgnum:N:" keeps its leading SP
for n in 0 $((NMSGS / 3)) $((NMSGS - 1)); do
	want=$(printf ' msgnum:%08d:' "$n")
	grep -qxF -- "$want" "$OUT" || fail "expected a line '$want', got none (first line: '$(head -n1 "$OUT")')"
done
bad=$(grep -cvE '^ msgnum:[0-9]{8}:$' "$OUT")
[ "$bad" = 0 ] || fail "expected every line to be ' msgnum:NNNNNNNN:', got $bad other lines, e.g. '$(grep -vE '^ msgnum:[0-9]{8}:$' "$OUT" | head -n1)'"
log "ok: $NMSGS messages over $NCONN connections via $DUT_NAME"
exit 0
