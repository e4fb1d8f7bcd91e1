#!/bin/bash
# omfile_crypt.sh - encrypted output files (cry.provider="gcry", rsyslog's
# lmcry_gcry format: FILE + FILE.encinfo) and tools/sluice-decrypt.
# Phase 1 writes N messages and stops cleanly (one block, closed by END);
# phase 2 appends N more in a second run (a second block), phase 3 N more
# and is killed with SIGKILL (a block without END), phase 4 starts again
# (the dangling block gets its END, a fourth block follows). The file must
# not contain the clear text; sluice-decrypt with the key file must give
# all 4N lines exactly once, and with a wrong key must not.
# zipLevel together with cry.provider must be refused at load (the format
# drops NUL bytes, so it cannot carry compressed data).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool tcpflood "$TCPFLOOD"
DECRYPT=${DECRYPT:-$top_builddir/tools/sluice-decrypt}
require_tool sluice-decrypt "$DECRYPT"
[ "$DUT_NAME" = sluiced ] || skip "rsyslog's lmcry_gcry is not in Debian's rsyslog"
N=${N:-5000}
OUT="$TESTDIR/secret.log"
printf '0123456789abcdef' >"$TESTDIR/key"
printf 'fedcba9876543210' >"$TESTDIR/wrongkey"

cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
template(name="msgonly" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="r")
ruleset(name="r") {
	action(type="omfile" file="$OUT" template="msgonly"
	       cry.provider="gcry" cry.keyfile="$TESTDIR/key")
}
EOF

decrypted_lines() { "$DECRYPT" -K "$TESTDIR/key" "$OUT" 2>/dev/null | wc -l; }
run_phase() { # $1 = first msgnum, $2 = stop|kill
	start_dut "$TESTDIR/test.conf"
	"$TCPFLOOD" -p "$PORT" -m "$N" -s "$1" -q || fail "expected tcpflood to send $N messages"
	local deadline=$((SECONDS + 60))
	while [ "$(decrypted_lines)" -lt $(($1 + N)) ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "expected $(($1 + N)) decrypted lines within 60 s, got $(decrypted_lines)"
		sleep 0.3
	done
	if [ "$2" = kill ]; then
		kill -KILL "$DAEMON_PID"
		wait "$DAEMON_PID" 2>/dev/null
	else
		stop_daemon
	fi
}
run_phase 0 stop
run_phase "$N" stop
run_phase $((2 * N)) kill
run_phase $((3 * N)) stop

grep -q 'msgnum' "$OUT" && fail "expected no clear text in the encrypted file, got msgnum in it"
head -n1 "$OUT.encinfo" | grep -qx 'FILETYPE:rsyslog-enrcyption-info' ||
	fail "expected the encinfo file to start with rsyslog's FILETYPE record, got '$(head -n1 "$OUT.encinfo")'"
ivs=$(grep -c '^IV:' "$OUT.encinfo")
ends=$(grep -c '^END:' "$OUT.encinfo")
[ "$ivs" = 4 ] && [ "$ends" = 4 ] || fail "expected 4 IV and 4 END records (4 blocks), got $ivs and $ends"
"$DECRYPT" -K "$TESTDIR/key" "$OUT" >"$TESTDIR/clear.txt" || fail "expected sluice-decrypt to succeed, got $?"
python3 "$CHECK_SEQ" "$TESTDIR/clear.txt" --expect $((4 * N)) ||
	fail "expected msgnum 0..$((4 * N - 1)) once each in the decrypted file"
"$DECRYPT" -K "$TESTDIR/wrongkey" "$OUT" 2>/dev/null | grep -q 'msgnum' &&
	fail "expected the wrong key not to reveal the messages, got clear text"
cat >"$TESTDIR/bad.conf" <<EOF
action(type="omfile" file="$TESTDIR/x.gz" zipLevel="6"
       cry.provider="gcry" cry.keyfile="$TESTDIR/key")
EOF
out=$(check_config "$TESTDIR/bad.conf") && fail "expected zipLevel with cry.provider to be refused, got exit 0"
grep -q "bad.conf:1: .*zipLevel cannot be combined with cry.provider" <<<"$out" ||
	fail "expected a FILE:LINE error about zipLevel with cry.provider, got: $out"
log "ok: encrypted output over 4 blocks (one after kill -9) decrypts to $((4 * N)) lines"
exit 0
