#!/bin/bash
# uxsock_logger.sh - imuxsock on private sockets (never the real /dev/log):
# logger(1) -u in its default, --rfc3164 and --rfc5424 modes, raw
# datagrams from a client, trusted properties (UsePIDFromSystem, Annotate,
# ParseTrusted), the normal parser chain (UseSpecialParser="off" with and
# without ParseHostname) and per-process rate limiting. Every expected line
# is what rsyslogd 8.2302 writes for the same input (run with
# SLUICE_DUT=rsyslogd to see it), including its log-socket parser's quirks:
# no HOSTNAME is parsed from local messages, so logger --rfc3164's own
# hostname becomes the TAG, and RFC5424 is not recognised (TAG "1").
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

command -v logger >/dev/null || skip "logger (util-linux) not installed"

S1="$TESTDIR/log"        # defaults
S2="$TESTDIR/chain"      # UseSpecialParser=off ParseHostname=on
S3="$TESTDIR/nohost"     # UseSpecialParser=off
S4="$TESTDIR/trusted"    # UsePIDFromSystem, Annotate, ParseTrusted, HostName
S5="$TESTDIR/annot"      # Annotate (text)
S6="$TESTDIR/sub/dir/rl" # CreatePath, RateLimit.*
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imuxsock" SysSock.Use="off")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="props" type="string" string="%\$!sock%|%fromhost%|%hostname%|%syslogtag%|%programname%|%procid%|%pri-text%|%msg%|%\$!pid%|%\$!uid%\n")
input(type="imuxsock" Socket="$S1" ruleset="s1")
input(type="imuxsock" Socket="$S2" UseSpecialParser="off" ParseHostname="on" ruleset="s2")
input(type="imuxsock" Socket="$S3" UseSpecialParser="off" ruleset="s3")
input(type="imuxsock" Socket="$S4" UsePIDFromSystem="on" Annotate="on" ParseTrusted="on" HostName="otherhost" ruleset="s4")
input(type="imuxsock" Socket="$S5" Annotate="on" ruleset="s5")
input(type="imuxsock" Socket="$S6" CreatePath="on" RateLimit.Interval="60" RateLimit.Burst="5" ruleset="s6")
ruleset(name="s1") { set \$!sock = "s1"; action(type="omfile" file="$OUT" template="props") }
ruleset(name="s2") { set \$!sock = "s2"; action(type="omfile" file="$OUT" template="props") }
ruleset(name="s3") { set \$!sock = "s3"; action(type="omfile" file="$OUT" template="props") }
ruleset(name="s4") { set \$!sock = "s4"; action(type="omfile" file="$OUT" template="props") }
ruleset(name="s5") { set \$!sock = "s5"; action(type="omfile" file="$OUT" template="props") }
ruleset(name="s6") { set \$!sock = "s6"; action(type="omfile" file="$OUT" template="props") }
EOF

start_dut "$TESTDIR/test.conf"
for s in "$S1" "$S2" "$S3" "$S4" "$S5" "$S6"; do
	[ -S "$s" ] || fail "expected a unix socket at $s, got $(ls -l "$s" 2>&1)"
done
H=$(hostname)

logger -u "$S1" -t app0 -i "default mode" || fail "expected logger -u to send, got $?"
logger -u "$S1" --rfc3164 -t app1 -i "hello 3164" || fail "expected logger --rfc3164 to send, got $?"
logger -u "$S1" --rfc5424 -t app2 -p local1.warning "hello 5424" || fail "expected logger --rfc5424 to send, got $?"
logger -u "$S2" --rfc3164 -t app3 -i "chain 3164" || fail "expected logger to send, got $?"
logger -u "$S2" --rfc5424 -t app4 --id=4444 "chain 5424" || fail "expected logger to send, got $?"
logger -u "$S3" --rfc3164 -t app5 "nohost 3164" || fail "expected logger to send, got $?"
CLIENT_PID=$(python3 - "$S1" "$S4" "$S5" "$S6" <<'PYEOF'
import os, socket, sys, time
s1, s4, s5, s6 = sys.argv[1:5]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
def send(path, data):
    s.sendto(data, path)
    time.sleep(0.002)
send(s1, b"<13>Mar  1 01:00:00 myhost tag: raw one")
send(s1, b"<13>tag[99]: no timestamp\n")
send(s1, b"no pri at all")
send(s4, b"<13>Mar  1 01:00:00 tag[99]: pidsys")
send(s4, b"<13>Mar  1 01:00:00 tagnopid: pidsys2")
send(s5, b"<13>Mar  1 01:00:00 tag: annotated")
for i in range(20):
    send(s6, b"<13>Mar  1 01:00:00 rl: limited %02d" % i)
for i in range(3):
    send(s6, b"<8>Mar  1 01:00:00 rl: emerg %02d" % i)
print(os.getpid())
PYEOF
) || fail "expected the client to send its datagrams, got an error"

# 6 logger lines + 3 raw + 2 trusted + 1 annotated + 5 rate-limited + 3 emerg
N=20
wait_lines "$OUT" "$N" 20
sleep 1
stop_daemon
got=$(count_lines "$OUT")
[ "$got" = "$N" ] || fail "expected exactly $N lines, got $got: $(cat "$OUT")"

expect() { # expect LINE: exactly one such line
	local n
	n=$(grep -caxF -- "$1" "$OUT")
	[ "$n" = 1 ] || fail "expected one line '$1', got $n; lines of that socket: $(grep -a "^${1%%|*}|" "$OUT")"
}
pid_of() { grep -a "^$1|" "$OUT" | grep -aF -- "$2" | head -n1 | sed -n 's/.*\[\([0-9][0-9]*\)\].*/\1/p'; }

p=$(pid_of s1 "default mode")
[[ "$p" =~ ^[0-9]+$ ]] || fail "expected logger's pid in the tag, got '$(grep -a 'default mode' "$OUT")'"
expect "s1|$H|$H|app0[$p]:|app0|$p|user.notice| default mode||"
p=$(pid_of s1 "hello 3164")
expect "s1|$H|$H|$H|$H|-|user.notice| app1[$p]: hello 3164||"
l=$(grep -a "^s1|.*hello 5424" "$OUT")
re="^s1\\|$H\\|$H\\|1\\|1\\|-\\|local1\\.warning\\| [0-9T:.+-]+ $H app2 - - \\[timeQuality tzKnown=\"1\" isSynced=\"[01]\"\\] hello 5424\\|\\|\$"
[[ "$l" =~ $re ]] ||
	fail "expected 's1|$H|$H|1|1|-|local1.warning| TIMESTAMP $H app2 - - [timeQuality ...] hello 5424||', got '$l'"
p=$(pid_of s2 "chain 3164")
expect "s2|$H|$H|app3[$p]:|app3|$p|user.notice| chain 3164||"
expect "s2|$H|$H|app4[4444]|app4|4444|user.notice|chain 5424||"
expect "s3|$H|$H|$H|$H|-|user.notice| app5: nohost 3164||"
expect "s1|$H|$H|myhost|myhost|-|user.notice| tag: raw one||"
expect "s1|$H|$H|tag[99]:|tag|99|user.notice| no timestamp||"
expect "s1|$H|$H|||-|kern.emerg| pri at all||"
P=$CLIENT_PID
expect "s4|otherhost|otherhost|tag[$P]:|tag|$P|user.notice| pidsys|$P|0"
expect "s4|otherhost|otherhost|tagnopid[$P]:|tagnopid|$P|user.notice| pidsys2|$P|0"
l=$(grep -a '^s5|' "$OUT")
case "$l" in
"s5|$H|$H|tag:|tag|-|user.notice| annotated @[_PID=$P _UID=$(id -u) _GID=$(id -g) _COMM=python3 _EXE="*" _CMDLINE=\""*"\"]||") ;;
*) fail "expected 's5|$H|$H|tag:|tag|-|user.notice| annotated @[_PID=$P _UID=.. _GID=.. _COMM=python3 _EXE=.. _CMDLINE=\"..\"]||', got '$l'" ;;
esac
n=$(grep -ac '^s6|.*| limited ' "$OUT")
[ "$n" = 5 ] || fail "expected 5 of 20 messages through the rate limit (burst 5), got $n"
for i in 00 01 02 03 04; do expect "s6|$H|$H|rl:|rl|-|user.notice| limited $i||"; done
for i in 00 01 02; do expect "s6|$H|$H|rl:|rl|-|user.emerg| emerg $i||"; done
log "ok: logger default/--rfc3164/--rfc5424, raw datagrams, trusted properties, parser chain and per-process rate limiting via $DUT_NAME"
exit 0
