#!/bin/bash
# mm_findjson.sh - mmjsonparse's find-json mode (not in rsyslog 8.2302, so no
# differential test): the first JSON object anywhere in the message is
# parsed; allow_forward_json_characters / allow_trailing restrict what may
# stand around it; a brace inside a JSON string does not end the object.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

OUT="$TESTDIR/a.log"
STRICT="$TESTDIR/b.log"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
module(load="mmjsonparse")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="t" type="string" string="%parsesuccess% %\$!%\n")
action(type="mmjsonparse" mode="find-json")
action(type="omfile" file="$OUT" template="t")
action(type="mmjsonparse" mode="find-json" allow_forward_json_characters="off"
       allow_trailing="off" container="\$!b")
action(type="omfile" file="$STRICT" template="t")
EOF
[ "$DUT_NAME" = sluiced ] || skip "find-json is not in rsyslog 8.2302"
start_dut "$TESTDIR/test.conf"
printf '%s\n' \
	'<13>Mar  1 01:00:00 h p: prefix {"field":"value"} suffix' \
	'<13>Mar  1 01:00:00 h p: {"k":1}' \
	'<13>Mar  1 01:00:00 h p: no json here' \
	'<13>Mar  1 01:00:00 h p: {"s":"a}b{c","n":{"x":[1,2]}} tail' >"$TESTDIR/in.txt"
send_file "$TESTDIR/in.txt"
wait_lines "$OUT" 4 30
wait_lines "$STRICT" 4 30
stop_daemon
expect_a='OK { "field": "value" }
OK { "k": 1 }
FAIL { "msg": "no json here" }
OK { "s": "a}b{c", "n": { "x": [ 1, 2 ] } }'
[ "$(cat "$OUT")" = "$expect_a" ] || fail "expected in $OUT:
$expect_a
got:
$(cat "$OUT")"
got_b=$(cut -d' ' -f1 "$STRICT" | tr '\n' ' ')
[ "$got_b" = "FAIL OK FAIL FAIL " ] ||
	fail "expected parsesuccess FAIL OK FAIL FAIL with allow_forward/allow_trailing off, got $got_b"
grep -q '"b": { "k": 1 }' "$STRICT" || fail "expected the strict parse in container \$!b, got: $(sed -n 2p "$STRICT")"
log "ok: mmjsonparse find-json"
exit 0
