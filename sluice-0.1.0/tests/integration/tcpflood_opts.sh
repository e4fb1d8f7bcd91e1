#!/bin/bash
# tcpflood_opts.sh - tcpflood's message sources and reporting, and
# check_seq.py's verdicts, against the daemon under test:
#  * -h lists every option tcpflood's getopt accepts;
#  * fixed (-M -S), file-supplied (-I -S, cycled), random (-X -R) and RFC5424
#    (-5 -F oc over 3 connections) messages arrive with exactly the content
#    sent and every sequence number once (check_seq.py);
#  * the closing summary counts messages and bytes; a refused connection and
#    a receiver that resets mid-flood are reported (exit 1, "FAILED" summary);
#  * check_seq.py reports a missing and a duplicated number (exit 1), and
#    reads an octet-counted capture.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool tcpflood "$TCPFLOOD"
[ -f "$CHECK_SEQ" ] || skip "check_seq.py not found at $CHECK_SEQ"

# -h: every option letter of the getopt string appears as "  -L" in the help
help=$("$TCPFLOOD" -h) || fail "expected tcpflood -h to exit 0, got $?"
opts=$(sed -n 's/.*getopt(argc, argv, "\([^"]*\)").*/\1/p' "$srcdir/tools/tcpflood.c" | tr -d ':')
[ -n "$opts" ] || fail "expected to find tcpflood's getopt string in tools/tcpflood.c"
for ((i = 0; i < ${#opts}; i++)); do
	o=${opts:i:1}
	grep -qE -- "^  -$o( |$)" <<<"$help" || fail "expected option -$o in tcpflood -h, got none"
done

OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<CONF
module(load="imtcp")
template(name="raw" type="string" string="%rawmsg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="r")
ruleset(name="r") {
	action(type="omfile" file="$OUT" template="raw")
}
CONF
start_dut "$TESTDIR/test.conf"

printf '<13>Mar  1 01:00:00 h app: first line\r\n\n<14>Mar  1 01:00:00 h app: second line\n' >"$TESTDIR/in.txt"
sum=$("$TCPFLOOD" -p "$PORT" -I "$TESTDIR/in.txt" -S -m 5 -q) || fail "tcpflood -I -S failed"
# 3 x "first line" (37 bytes) and 2 x "second line" (38), each + " msgnum:0000000N:" (17) + LF
want_bytes=$(( (37 + 17 + 1) * 3 + (38 + 17 + 1) * 2 ))
[ "$sum" = "tcpflood: sent 5 messages ($want_bytes bytes) over 1 connections in ${sum##* in }" ] ||
	fail "expected the summary to count 5 messages and $want_bytes bytes, got '$sum'"
"$TCPFLOOD" -p "$PORT" -M "<13>Mar  1 01:00:00 h app: fixed" -S -s 5 -m 3 -c 2 -q >/dev/null ||
	fail "tcpflood -M -S failed"
"$TCPFLOOD" -p "$PORT" -X -R 100:300 -s 8 -m 1000 -q >/dev/null || fail "tcpflood -X -R failed"
"$TCPFLOOD" -p "$PORT" -5 -F oc -c 3 -X -s 1008 -m 992 -q >/dev/null || fail "tcpflood -5 -F oc failed"
wait_lines "$OUT" 2000 60
stop_daemon
python3 "$CHECK_SEQ" "$OUT" --expect 2000 || fail "expected msgnum 0..1999 once each (check_seq above)"
for want in '<13>Mar  1 01:00:00 h app: first line msgnum:00000000:' \
	    '<14>Mar  1 01:00:00 h app: second line msgnum:00000001:' \
	    '<13>Mar  1 01:00:00 h app: first line msgnum:00000004:' \
	    '<13>Mar  1 01:00:00 h app: fixed msgnum:00000007:'; do
	grep -qxF -- "$want" "$OUT" || fail "expected the line '$want', got none"
done
# random text (numbers 8..1007): sizes 100..300, lowercase words after the number
grep '^<167>Mar  1 01:00:00 tcpflood tag msgnum:' "$OUT" >"$TESTDIR/rand.txt"
n=$(grep -c . "$TESTDIR/rand.txt")
[ "$n" = 1000 ] || fail "expected 1000 random-text lines, got $n"
bad=$(awk 'length($0) < 100 || length($0) > 300 || !/ tag msgnum:[0-9]+:[a-z ]*[a-z]$/' "$TESTDIR/rand.txt" | head -n 1)
[ -z "$bad" ] || fail "expected 100..300 bytes of random words, got '$bad'"
[ "$(sort -u "$TESTDIR/rand.txt" | wc -l)" -gt 990 ] || fail "expected random texts to differ"
n=$(grep -c '^<167>1 2003-03-01T01:00:00.000+01:00 tcpflood tcpflood - tag \[tcpflood@32473 MSGNUM="0000[0-9]*"\] msgnum:0000[0-9]*:[a-z ]*$' "$OUT")
[ "$n" = 992 ] || fail "expected 992 RFC5424 lines, got $n"

# errors are reported, not hidden
out=$("$TCPFLOOD" -p "$(get_free_port)" -m 10 2>"$TESTDIR/err")
rc=$?
[ "$rc" = 1 ] || fail "expected exit 1 for a refused connection, got $rc"
grep -q "connect to 127.0.0.1:[0-9]* (connection 0): Connection refused" "$TESTDIR/err" ||
	fail "expected the refused connect on stderr, got '$(cat "$TESTDIR/err")'"
case $out in "tcpflood: FAILED: 1 connection error(s); 0 of 10 messages queued"*) ;;
*) fail "expected a FAILED summary, got '$out'" ;; esac
RP=$(get_free_port)
python3 - "$RP" "$TESTDIR/ready" <<'PY' &
import socket, struct, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); s.settimeout(20)
open(sys.argv[2], "w").close()
c, _ = s.accept(); c.recv(4096)
c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); c.close()
PY
rpid=$!
_SL_PIDS="$_SL_PIDS $rpid"
for ((i = 0; i < 100; i++)); do [ -e "$TESTDIR/ready" ] && break; sleep 0.1; done
out=$(timeout 60 "$TCPFLOOD" -p "$RP" -m 5000000 -q 2>"$TESTDIR/err")
rc=$?
wait "$rpid"
[ "$rc" = 1 ] || fail "expected exit 1 when the receiver resets, got $rc"
grep -qE "send to 127.0.0.1:[0-9]+ \(connection 0\): (Connection reset by peer|Broken pipe)" "$TESTDIR/err" ||
	fail "expected the reset on stderr, got '$(cat "$TESTDIR/err")'"
case $out in "tcpflood: FAILED: 1 connection error(s); "*" of 5000000 messages queued"*) ;;
*) fail "expected a FAILED summary, got '$out'" ;; esac

# check_seq.py: a gap and a duplicate are found; octet-counted input
printf 'a msgnum:00000000:\na msgnum:00000002:\na msgnum:00000002:\n' >"$TESTDIR/bad.txt"
v=$(python3 "$CHECK_SEQ" "$TESTDIR/bad.txt" --expect 3)
rc=$?
[ "$rc" = 1 ] || fail "expected check_seq to fail on a gap and a duplicate, got $rc"
case $v in *"1 missing [1], 1 duplicates"*) ;; *) fail "expected '1 missing [1], 1 duplicates', got '$v'" ;; esac
printf '18 a msgnum:00000000:18 b msgnum:00000001:' >"$TESTDIR/oc.txt"
python3 "$CHECK_SEQ" --octet-counted "$TESTDIR/oc.txt" --expect 2 >/dev/null ||
	fail "expected check_seq --octet-counted to accept two frames"
log "ok: tcpflood -h, -I/-M -S, -X -R, -5 -F oc, summaries and errors; check_seq verdicts via $DUT_NAME"
exit 0
