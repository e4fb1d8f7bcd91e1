#!/bin/bash
# omfile_rotate.sh - rotation of omfile outputs in the middle of a flood.
# Phase 1 (logrotate style): three actions write the same flood to a
# dynaFile (two files by severity), a buffered file (flushOnTXEnd="off",
# asyncWriting="on", 64k buffer) and a gzip file (veryRobustZip). Halfway
# through, every output file is moved away and SIGHUP is sent. For each
# output, every line must be in exactly one of the old and the new file
# (check_seq over both), the new files must be non-empty, and the gzip
# files must both be complete.
# Phase 2 (rotation.sizeLimit): a file with sizeLimit 100k and a
# sizeLimitCommand that moves it to FILE.<n>; every line must be in exactly
# one of the files, and every rotated file must have reached the limit.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool tcpflood "$TCPFLOOD"
command -v zcat >/dev/null || skip "zcat not found"
N=${N:-100000}
D="$TESTDIR/logs"
mkdir -p "$D"

cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
template(name="msgonly" type="string" string="%msg%\n")
template(name="bysev" type="string" string="$D/dyn-%syslogseverity%.log")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="r")
ruleset(name="r") {
	action(type="omfile" dynaFile="bysev" template="msgonly")
	action(type="omfile" file="$D/buffered.log" template="msgonly" flushOnTXEnd="off"
	       asyncWriting="on" ioBufferSize="64k" flushInterval="1")
	action(type="omfile" file="$D/zipped.log.gz" template="msgonly" zipLevel="3"
	       veryRobustZip="on")
}
EOF
# half the messages with PRI 165 (sev 5), half with 166 (sev 6), interleaved
python3 - "$N" >"$TESTDIR/input.txt" <<'PY'
import sys
for i in range(int(sys.argv[1])):
    print("<%d>Mar  1 01:00:00 h tag msgnum:%08d:" % (165 + i % 2, i))
PY

total_all() { # lines in all plain files + the gzip file so far
	local t=0 f
	for f in "$D"/dyn-*.log* "$D"/buffered.log*; do
		[ -f "$f" ] && t=$((t + $(count_lines "$f")))
	done
	echo "$t"
}

start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -I "$TESTDIR/input.txt" -m "$N" -r 50000 -q &
flood=$!
wait_lines "$D/dyn-5.log" $((N / 10)) 60
for f in dyn-5.log dyn-6.log buffered.log zipped.log.gz; do
	mv "$D/$f" "$D/$f.1" 2>/dev/null
done
hup_daemon
wait "$flood" || fail "expected tcpflood to send $N messages, got exit status $?"
deadline=$((SECONDS + 60))
while [ "$(total_all)" -lt $((2 * N)) ] && [ "$SECONDS" -lt "$deadline" ]; do
	sleep 0.3
done
stop_daemon

for f in dyn-5.log dyn-6.log buffered.log; do
	[ "$(count_lines "$D/$f")" -gt 0 ] || fail "expected lines after SIGHUP in a new $D/$f, got none"
done
python3 "$CHECK_SEQ" "$D"/dyn-5.log.1 "$D"/dyn-5.log "$D"/dyn-6.log.1 "$D"/dyn-6.log --expect "$N" ||
	fail "expected every msgnum exactly once across the moved and new dynaFiles"
python3 "$CHECK_SEQ" "$D/buffered.log.1" "$D/buffered.log" --expect "$N" ||
	fail "expected every msgnum exactly once across the moved and new buffered file"
for z in zipped.log.gz.1 zipped.log.gz; do
	zcat "$D/$z" >"$TESTDIR/$z.txt" || fail "expected $z to be a complete gzip file, zcat says $?"
done
[ "$(count_lines "$TESTDIR/zipped.log.gz.txt")" -gt 0 ] || fail "expected lines in the new gzip file, got none"
python3 "$CHECK_SEQ" "$TESTDIR/zipped.log.gz.1.txt" "$TESTDIR/zipped.log.gz.txt" --expect "$N" ||
	fail "expected every msgnum exactly once across the moved and new gzip file"

# --- phase 2: rotation.sizeLimit with a command
R="$TESTDIR/rot"
mkdir -p "$R"
cat >"$TESTDIR/rotate.sh" <<'EOF'
#!/bin/sh
n=$(ls "$1".* 2>/dev/null | wc -l)
mv "$1" "$1.$((n + 1))"
EOF
chmod +x "$TESTDIR/rotate.sh"
cat >"$TESTDIR/rot.conf" <<EOF
module(load="imtcp")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="r")
ruleset(name="r") {
	action(type="omfile" file="$R/out.log" template="msgonly"
	       rotation.sizeLimit="100k" rotation.sizeLimitCommand="$TESTDIR/rotate.sh")
}
EOF
N2=$((N / 5))
start_dut "$TESTDIR/rot.conf"
"$TCPFLOOD" -p "$PORT" -m "$N2" -q || fail "expected tcpflood to send $N2 messages"
deadline=$((SECONDS + 60))
while [ "$(cat "$R"/out.log* 2>/dev/null | wc -l)" -lt "$N2" ] && [ "$SECONDS" -lt "$deadline" ]; do
	sleep 0.3
done
stop_daemon
nrot=$(ls "$R"/out.log.* 2>/dev/null | wc -l)
[ "$nrot" -ge 3 ] || fail "expected at least 3 rotated files of 100k for $N2 lines, got $nrot"
for f in "$R"/out.log.*; do
	[ "$(stat -c %s "$f")" -ge 102400 ] || fail "expected $f to have reached 100k before rotation, got $(stat -c %s "$f") bytes"
done
python3 "$CHECK_SEQ" "$R"/out.log* --expect "$N2" ||
	fail "expected every msgnum exactly once across the size-rotated files"
log "ok: HUP rotation of dynaFile, buffered and gzip outputs mid-flood; $nrot size rotations"
exit 0
