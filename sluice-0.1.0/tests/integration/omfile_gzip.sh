#!/bin/bash
# omfile_gzip.sh - gzip output (zipLevel, veryRobustZip="on") survives
# kill -9. Phase 1: N1 messages are written and flushed; the daemon is
# killed with SIGKILL; `zcat` must decompress the file without error to
# exactly those N1 lines. Phase 2: the daemon starts again (it appends new
# gzip members to the same file) and is killed with SIGKILL in the middle
# of a flood; reading the file member by member must give every line of
# phase 1 plus a gap-free prefix of phase 2 (whole lines only), and `zcat`
# must read everything up to the last complete member.
# Phase 3: veryRobustZip="off" with a clean stop: one gzip stream, zcat
# reads all of it.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool tcpflood "$TCPFLOOD"
command -v zcat >/dev/null || skip "zcat not found"
[ "$DUT_NAME" = sluiced ] || skip "kill -9 behaviour is checked for sluiced"
N1=${N1:-20000}
N2=${N2:-200000}
OUT="$TESTDIR/out.log.gz"

# gunzip_members FILE: decompress member by member, print the text of all
# complete members to stdout and "members=M truncated=0|1" to stderr
gunzip_members() {
	python3 - "$1" <<-'PY'
	import sys, zlib
	data = open(sys.argv[1], "rb").read()
	out, members, truncated = [], 0, 0
	while data:
	    d = zlib.decompressobj(31)
	    try:
	        text = d.decompress(data)
	    except zlib.error:
	        truncated = 1
	        break
	    if not d.eof:
	        truncated = 1
	        break
	    out.append(text)
	    members += 1
	    data = d.unused_data
	sys.stdout.buffer.write(b"".join(out))
	print("members=%d truncated=%d" % (members, truncated), file=sys.stderr)
	PY
}

cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="r")
ruleset(name="r") {
	action(type="omfile" file="$OUT" template="msgonly" zipLevel="6" veryRobustZip="on"
	       ioBufferSize="64k")
}
EOF

# --- phase 1: flushed, then SIGKILL
start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -m "$N1" -q || fail "expected tcpflood to send $N1 messages"
deadline=$((SECONDS + 60))
while [ "$(gunzip_members "$OUT" 2>/dev/null | wc -l)" -lt "$N1" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "expected $N1 lines in $OUT within 60 s, got $(gunzip_members "$OUT" 2>/dev/null | wc -l)"
	sleep 0.3
done
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
zcat "$OUT" >"$TESTDIR/p1.txt" || fail "expected zcat to read $OUT after kill -9 without error, got status $?"
python3 "$CHECK_SEQ" "$TESTDIR/p1.txt" --expect "$N1" ||
	fail "expected msgnum 0..$((N1 - 1)) once each from zcat after kill -9"

# --- phase 2: SIGKILL in the middle of a flood
start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -m "$N2" -s "$N1" -r 100000 -q &
flood=$!
deadline=$((SECONDS + 60))
while [ "$(gunzip_members "$OUT" 2>/dev/null | wc -l)" -lt $((N1 + N2 / 4)) ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "expected $((N1 + N2 / 4)) lines in $OUT within 60 s"
	sleep 0.1
done
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
wait "$flood" 2>/dev/null
gunzip_members "$OUT" >"$TESTDIR/p2.txt" 2>"$TESTDIR/p2.info"
got=$(count_lines "$TESTDIR/p2.txt")
[ "$got" -gt "$N1" ] && [ "$got" -lt $((N1 + N2)) ] ||
	fail "expected the kill in the middle of phase 2 (between $N1 and $((N1 + N2)) lines), got $got ($(cat "$TESTDIR/p2.info"))"
# whole lines only, and a gap-free prefix 0..got-1 (one connection, in order)
[ -z "$(tail -c 1 "$TESTDIR/p2.txt")" ] || fail "expected the decompressed text to end with a whole line"
python3 "$CHECK_SEQ" "$TESTDIR/p2.txt" --expect "$got" ||
	fail "expected msgnum 0..$((got - 1)) once each after the kill in phase 2 ($(cat "$TESTDIR/p2.info"))"
zcat "$OUT" 2>/dev/null | head -n "$got" | cmp -s - "$TESTDIR/p2.txt" ||
	fail "expected zcat to decompress the same $got lines up to the last complete member"

# --- phase 3: veryRobustZip="off", clean stop: one stream
OUT3="$TESTDIR/plain.gz"
sed -e "s|$OUT|$OUT3|" -e 's/veryRobustZip="on"/veryRobustZip="off"/' "$TESTDIR/test.conf" >"$TESTDIR/t3.conf"
start_dut "$TESTDIR/t3.conf"
"$TCPFLOOD" -p "$PORT" -m "$N1" -q || fail "expected tcpflood to send $N1 messages"
deadline=$((SECONDS + 30))
while [ "$(zcat "$OUT3" 2>/dev/null | wc -l)" -lt "$N1" ] && [ "$SECONDS" -lt "$deadline" ]; do
	sleep 0.3
done
stop_daemon
gunzip_members "$OUT3" >/dev/null 2>"$TESTDIR/p3.info"
grep -q "members=1 truncated=0" "$TESTDIR/p3.info" ||
	fail "expected one complete gzip member with veryRobustZip=off, got $(cat "$TESTDIR/p3.info")"
zcat "$OUT3" | python3 "$CHECK_SEQ" - --expect "$N1" ||
	fail "expected msgnum 0..$((N1 - 1)) once each with veryRobustZip=off"
log "ok: gzip survives kill -9 ($got lines readable, $(cat "$TESTDIR/p2.info")); one stream without veryRobustZip"
exit 0
