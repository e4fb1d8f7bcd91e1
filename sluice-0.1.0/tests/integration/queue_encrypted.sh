#!/bin/bash
# queue_encrypted.sh - a disk-assisted main queue encrypted at rest
# (queue.cry.provider="gcry", AES128-CBC with a key file): the queue files
# hold no message text, a restart with a wrong key is refused with a clear
# error (and the files are kept), the right key delivers every message.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

N=3000
QTOOL="$top_builddir/tools/sluice-queue"
require_tool tcpflood "$TCPFLOOD"
require_tool sluice-queue "$QTOOL"
ldd "$SLUICED" 2>/dev/null | grep -q libgcrypt || skip "sluiced was built without libgcrypt"
SPOOL="$TESTDIR/spool"; mkdir -p "$SPOOL"
OUTDIR="$TESTDIR/outdir"
printf '0123456789abcdef' >"$TESTDIR/good.key"
printf 'fedcba9876543210' >"$TESTDIR/bad.key"
write_conf() {
	cat >"$TESTDIR/test.conf" <<EOF
main_queue(queue.type="FixedArray" queue.size="1000" queue.filename="encq"
           queue.spoolDirectory="$SPOOL" queue.cry.provider="gcry"
           queue.cry.keyfile="$1" queue.cry.algo="AES128" queue.cry.mode="CBC")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omfile" file="$OUTDIR/out.log" template="RSYSLOG_TraditionalFileFormat"
       action.resumeRetryCount="-1" action.resumeInterval="1")
EOF
}
write_conf "$TESTDIR/good.key"
: >"$OUTDIR"
start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -m "$N" -q || fail "expected tcpflood to send $N messages, got $?"
sleep 2
stop_daemon
[ "$("$QTOOL" count "$SPOOL" encq)" = "$N" ] || fail "expected $N records on disk"
if grep -rqa -e msgnum -e tcpflood "$SPOOL"; then
	fail "expected no plaintext in the encrypted queue files"
fi
"$QTOOL" dump "$SPOOL" encq >/dev/null 2>&1 && fail "expected dump without a key to fail"
"$QTOOL" -k "$TESTDIR/bad.key" dump "$SPOOL" encq 2>&1 | grep -q "wrong key" ||
	fail "expected sluice-queue to report a wrong key"
[ "$("$QTOOL" -k "$TESTDIR/good.key" dump "$SPOOL" encq | grep -c msgnum)" = "$N" ] ||
	fail "expected $N readable records with the key"

# wrong key: the daemon refuses to start, the files stay
write_conf "$TESTDIR/bad.key"
"$SLUICED" -n -f "$TESTDIR/test.conf" -i "$TESTDIR/x.pid" >"$TESTDIR/badkey.log" 2>&1 &
bp=$!
for ((i = 0; i < 100; i++)); do kill -0 "$bp" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$bp" 2>/dev/null; then
	kill -KILL "$bp"; wait "$bp"
	fail "expected the daemon to refuse the wrong key and exit"
fi
wait "$bp" && fail "expected a non-zero exit status with a wrong key"
grep -q "wrong key" "$TESTDIR/badkey.log" || fail "expected 'wrong key' in the log, got: $(cat "$TESTDIR/badkey.log")"
[ "$("$QTOOL" count "$SPOOL" encq)" = "$N" ] || fail "expected the queue files untouched after a wrong key"

# the right key
write_conf "$TESTDIR/good.key"
rm -f "$OUTDIR" && mkdir "$OUTDIR"
start_dut "$TESTDIR/test.conf"
wait_lines "$OUTDIR/out.log" "$N" 60
stop_daemon
python3 "$CHECK_SEQ" "$OUTDIR/out.log" --expect "$N" || fail "expected msgnum 0..$((N - 1)) once each"
exit 0
