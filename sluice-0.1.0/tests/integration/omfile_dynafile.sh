#!/bin/bash
# omfile_dynafile.sh - dynaFile with far more files than the cache holds:
# 10,000 distinct hosts (3 messages each, hosts interleaved so that every
# message goes to another file than the one before) are written through
# dynaFile="/dir/%HOSTNAME%.log" with dynaFileCacheSize="100". There must be
# exactly 10,000 files, each holding exactly its host's 3 lines (the host
# name in each line matches the file), and every msgnum exactly once.
# A second action names its files from the syslog tag with secpath-replace:
# a tag of "../../evil" must not create a file outside its directory.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool tcpflood "$TCPFLOOD"
HOSTS=${HOSTS:-10000}
PER=3
N=$((HOSTS * PER))
OUTDIR="$TESTDIR/out"

python3 - "$HOSTS" "$N" >"$TESTDIR/input.txt" <<'PY'
import sys
hosts, n = int(sys.argv[1]), int(sys.argv[2])
for i in range(n):
    print("<13>Mar  1 01:00:00 h%05d tag msgnum:%08d:" % (i % hosts, i))
PY

cat >"$TESTDIR/test.conf" <<CONF
module(load="imtcp")
template(name="dyn" type="string" string="$OUTDIR/%HOSTNAME%.log")
template(name="line" type="string" string="%HOSTNAME% %msg%\n")
template(name="bytag" type="string" string="$TESTDIR/sec/%syslogtag:::secpath-replace%.log")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="r")
ruleset(name="r") {
	if \$hostname == "evilhost" then {
		action(type="omfile" dynaFile="bytag" template="line")
		stop
	}
	action(type="omfile" dynaFile="dyn" template="line" dynaFileCacheSize="100")
}
CONF
start_dut "$TESTDIR/test.conf"
"$TCPFLOOD" -p "$PORT" -I "$TESTDIR/input.txt" -m "$N" -q ||
	fail "expected tcpflood to send $N messages, got exit status $?"
printf '%s\n' '<13>Mar  1 01:00:00 evilhost ../../evil: climbing out' >"$TESTDIR/evil.txt"
send_file "$TESTDIR/evil.txt"
deadline=$((SECONDS + 120))
while :; do
	got=$(find "$OUTDIR" -name '*.log' -type f -print0 2>/dev/null | xargs -0 -r cat | wc -l)
	[ "$got" -ge "$N" ] && break
	[ "$SECONDS" -ge "$deadline" ] && fail "expected $N lines in $OUTDIR within 120 s, got $got"
	kill -0 "$DAEMON_PID" 2>/dev/null || fail "expected the daemon to run, it died"
	sleep 0.5
done
wait_stable 10 "$TESTDIR/sec"
stop_daemon
[ ! -e "$TESTDIR/evil" ] && [ ! -e "$TESTDIR/../evil" ] && [ ! -e "$TESTDIR/evil:.log" ] ||
	fail "expected secpath-replace to keep the file inside $TESTDIR/sec, got a file outside"
nsec=$(find "$TESTDIR/sec" -type f | wc -l)
[ "$nsec" = 1 ] && find "$TESTDIR/sec" -type f -exec cat {} + | grep -q 'climbing out' ||
	fail "expected one file in $TESTDIR/sec with the evil line, got $nsec: $(ls -a "$TESTDIR/sec" 2>&1)"
[ -z "$(find "$TESTDIR" -newer "$TESTDIR/evil.txt" -name '*evil*' -not -path "$TESTDIR/sec/*" -not -name evil.txt)" ] ||
	fail "expected no evil file outside $TESTDIR/sec"

python3 - "$OUTDIR" "$HOSTS" "$PER" <<'PY' ||
import os, re, sys
d, hosts, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
files = sorted(os.listdir(d))
bad = []
if len(files) != hosts:
    bad.append("expected %d files, got %d" % (hosts, len(files)))
seen = set()
for f in files:
    host = f[:-4]
    lines = open(os.path.join(d, f), "rb").read().decode().splitlines()
    if len(lines) != per:
        bad.append("%s: expected %d lines, got %d" % (f, per, len(lines)))
    for l in lines:
        m = re.match(r"(\S+) +msgnum:(\d{8}):$", l)
        if not m or m.group(1) != host:
            bad.append("%s: line of another host or mangled: %r" % (f, l))
            continue
        num = int(m.group(2))
        if num % hosts != int(host[1:]) or num in seen:
            bad.append("%s: unexpected msgnum %d" % (f, num))
        seen.add(num)
if len(seen) != hosts * per:
    bad.append("expected %d distinct msgnums, got %d" % (hosts * per, len(seen)))
for b in bad[:10]:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	fail "expected $HOSTS files with exactly $PER lines of their own host each (see above)"
log "ok: $HOSTS dynaFiles with $PER lines each through a cache of 100 ($DUT_NAME)"
exit 0
