#!/bin/bash
# omusrmsg_pty.sh - messages to users' terminals. A helper makes two
# pseudo-terminals (raw mode, so the bytes arrive unchanged) and a utmp file
# with: alice logged in on the first, bob on the second, a LOGIN entry and a
# dead process of carol on the second. sluiced reads that utmp file (the
# test-only parameter utmp.file) and runs
#   users="alice"   -> " StdUsrMsgFmt": " %syslogtag%%msg%\n\r" to alice only
#   users="carol,bob" -> to bob only (carol's entry is not a login)
#   users="*"       -> " WallFmt" to everybody logged in
# The exact bytes each terminal received are checked.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

[ "$DUT_NAME" = sluiced ] || skip "utmp.file is a sluice test parameter"
UTMP="$TESTDIR/utmp"
cat >"$TESTDIR/ptys.py" <<'PY'
import os, struct, sys, time, tty, select
d = sys.argv[1]
m1, s1 = os.openpty()
m2, s2 = os.openpty()
for s in (s1, s2):
    tty.setraw(s)
def rec(typ, pid, line, user):
    # glibc x86-64 struct utmpx: 384 bytes
    return struct.pack("hxxi32s4s32s256shhiii4i20x", typ, pid, line.encode(), b"",
                       user.encode(), b"", 0, 0, 0, int(time.time()), 0, 0, 0, 0, 0)
l1 = os.ttyname(s1)[len("/dev/"):]
l2 = os.ttyname(s2)[len("/dev/"):]
USER_PROCESS, LOGIN_PROCESS, DEAD_PROCESS = 7, 6, 8
with open(os.path.join(d, "utmp"), "wb") as f:
    f.write(rec(USER_PROCESS, os.getpid(), l1, "alice"))
    f.write(rec(LOGIN_PROCESS, 1, l2, "LOGIN"))
    f.write(rec(DEAD_PROCESS, 1, l2, "carol"))
    f.write(rec(USER_PROCESS, os.getpid(), l2, "bob"))
open(os.path.join(d, "ready"), "w").close()
out = {m1: open(os.path.join(d, "alice.out"), "wb"), m2: open(os.path.join(d, "bob.out"), "wb")}
deadline = time.time() + 60
while time.time() < deadline and not os.path.exists(os.path.join(d, "done")):
    r, _, _ = select.select([m1, m2], [], [], 0.1)
    for m in r:
        out[m].write(os.read(m, 4096))
        out[m].flush()
PY
python3 "$TESTDIR/ptys.py" "$TESTDIR" &
helper=$!
trap 'rc=$?; touch "$TESTDIR/done"; kill "$helper" 2>/dev/null; (exit $rc); _sl_cleanup' EXIT
for ((i = 0; i < 100; i++)); do [ -f "$TESTDIR/ready" ] && break; sleep 0.1; done
[ -f "$TESTDIR/ready" ] || fail "expected the pty helper to start, it did not"

cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1" ruleset="r")
ruleset(name="r") {
	if \$msg contains "to-alice" then
		action(type="omusrmsg" users="alice" utmp.file="$UTMP")
	if \$msg contains "to-bob" then
		action(type="omusrmsg" users="carol, bob" utmp.file="$UTMP")
	if \$msg contains "to-all" then
		action(type="omusrmsg" users="*" utmp.file="$UTMP")
}
EOF
start_dut "$TESTDIR/test.conf"
printf '%s\n' '<13>Mar  1 01:00:00 host1 prog[7]: to-alice one' \
	'<13>Mar  1 01:00:00 host1 prog[7]: to-bob two' \
	'<11>Mar  1 01:00:00 host2 app: to-all three' >"$TESTDIR/in.txt"
send_file "$TESTDIR/in.txt"
wait_stable 10 "$TESTDIR/alice.out" "$TESTDIR/bob.out"
sleep 0.5
stop_daemon
touch "$TESTDIR/done"
wait "$helper"

python3 - "$TESTDIR" <<'PY' || fail "expected the exact messages on each terminal (see above)"
import os, re, sys
d = sys.argv[1]
a = open(os.path.join(d, "alice.out"), "rb").read()
b = open(os.path.join(d, "bob.out"), "rb").read()
wall = rb"\r\n\x07Message from syslogd@host2 at [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \.\.\.\r\n app: to-all three\n\r"
ok = True
if not re.fullmatch(rb" prog\[7\]: to-alice one\n\r" + wall, a):
    print("alice's terminal got %r" % a, file=sys.stderr); ok = False
if not re.fullmatch(rb" prog\[7\]: to-bob two\n\r" + wall, b):
    print("bob's terminal got %r" % b, file=sys.stderr); ok = False
sys.exit(0 if ok else 1)
PY
log "ok: omusrmsg wrote to the right terminals with StdUsrMsgFmt and WallFmt"
exit 0
