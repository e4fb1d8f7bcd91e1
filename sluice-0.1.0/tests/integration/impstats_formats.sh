#!/bin/bash
# impstats_formats.sh - impstats as rsyslog 8.2302 emits it:
#  1. legacy, log.syslog: messages with TAG "rsyslogd-pstats:", PRI 46
#     (syslog.info), inputname impstats, fromhost the local host, and MSG
#     "NAME: origin=ORIGIN ctr=N ... " (trailing space), framed by BEGIN and
#     END with bracketing; resetCounters: the imtcp count is 500 in the
#     first report after the messages and 0 in a later one, while the
#     ledger keeps its totals and balances.
#  2. json to log.file (log.syslog off): each line "ctime: {json}", valid
#     JSON with name/origin and '/' escaped as rsyslog does.
#  3. json-elasticsearch ('.' in counter names as '!'), cee ("@cee: "),
#     facility/severity and ruleset= honoured.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool sluiced "$SLUICED"
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (impstats)"
H=$(hostname)

# --- 1. legacy, into the ruleset ------------------------------------------
OUT="$TESTDIR/pstats.log"
cat >"$TESTDIR/t1.conf" <<EOF
module(load="impstats" interval="1" bracketing="on" resetCounters="on")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="p" type="string" string="%syslogtag%|%pri%|%inputname%|%fromhost%|%msg%\n")
if \$syslogtag == "rsyslogd-pstats:" then { action(type="omfile" file="$OUT" template="p") stop }
action(type="omfile" file="$TESTDIR/msgs.log")
EOF
start_sluiced "$TESTDIR/t1.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m 500 -q || fail "expected tcpflood to send 500, got $?"
wait_lines "$TESTDIR/msgs.log" 500 30
for ((i = 0; i < 60; i++)); do
	c=$(grep -c '|END$' "$OUT" 2>/dev/null)
	[ "${c:-0}" -ge 3 ] && break
	sleep 0.1
done
stop_daemon
P="rsyslogd-pstats:|46|impstats|$H|"
grep -qx "${P}BEGIN" "$OUT" || fail "expected a BEGIN line '${P}BEGIN', got: $(head -3 "$OUT")"
grep -qx "${P}END" "$OUT" || fail "expected an END line"
grep -qx "${P}imtcp($PORT): origin=imtcp submitted=500 sessions.opened=[0-9]* .* " "$OUT" ||
	fail "expected an imtcp line with submitted=500 in one report, got: $(grep imtcp "$OUT")"
grep -qx "${P}imtcp($PORT): origin=imtcp submitted=0 sessions.opened=0 .* " "$OUT" ||
	fail "expected submitted=0 in a later report (resetCounters), got: $(grep imtcp "$OUT")"
grep -q "^${P}main Q: origin=core.queue size=[0-9]* enqueued=[0-9]* full=[0-9]* discarded.full=0 discarded.nf=0 maxqsize=[0-9]* " "$OUT" ||
	fail "expected rsyslog's main Q counters in its order, got: $(grep 'main Q' "$OUT" | head -1)"
grep -q "^${P}action-1-builtin:omfile: origin=core.action processed=[0-9]* failed=0 suspended=0 " "$OUT" ||
	fail "expected rsyslog's action counters, got: $(grep action-1 "$OUT" | head -1)"
grep -q "^${P}resource-usage: origin=impstats utime=[0-9]* stime=[0-9]* maxrss=[0-9]* " "$OUT" ||
	fail "expected resource-usage, got: $(grep resource "$OUT" | head -1)"
last=$(grep "ledger: " "$OUT" | tail -1)
echo "$last" | grep -q " received=[0-9]* .* unaccounted=0 $" || fail "expected a balanced ledger, got: $last"
rcv=$(echo "$last" | grep -o ' received=[0-9]*' | cut -d= -f2)
[ "$rcv" -gt 500 ] || fail "expected the ledger's received to keep counting across resets (>500), got $rcv"

# --- 2. json to log.file ------------------------------------------------------
SF="$TESTDIR/stats.json"
cat >"$TESTDIR/t2.conf" <<EOF
module(load="impstats" interval="1" format="json" log.syslog="off" log.file="$SF")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omfile" file="$TESTDIR/msgs2.log")
EOF
start_sluiced "$TESTDIR/t2.conf"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m 100 -q
wait_lines "$TESTDIR/msgs2.log" 100 30
for ((i = 0; i < 40; i++)); do
	grep -q '"submitted": 100' "$SF" 2>/dev/null && grep -q '"name": "ledger"' "$SF" && break
	sleep 0.1
done
stop_daemon
[ "$(count_lines "$TESTDIR/msgs2.log")" = 100 ] || fail "expected log.syslog=off to inject nothing"
python3 - "$SF" "$PORT" <<'EOF' || fail "expected valid JSON lines (see above)"
import json, re, sys
port = sys.argv[2]
seen = {}
for line in open(sys.argv[1]):
    m = re.match(r'^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4}: (\{.*\})$', line.rstrip("\n"))
    if not m:
        print("bad line", repr(line)); sys.exit(1)
    o = json.loads(m.group(1))
    seen[o["name"]] = o
t = seen.get("imtcp(%s)" % port)
if not t or t["origin"] != "imtcp" or t["submitted"] != 100:
    print("imtcp object", t); sys.exit(1)
if seen["main Q"]["origin"] != "core.queue" or "discarded.full" not in seen["main Q"]:
    print("main Q", seen["main Q"]); sys.exit(1)
if seen["ledger"]["unaccounted"] != 0:
    print("ledger", seen["ledger"]); sys.exit(1)
EOF

# --- 3. json-elasticsearch and cee, facility/severity/ruleset ----------------
for fmt in json-elasticsearch cee; do
	O3="$TESTDIR/$fmt.log"
	cat >"$TESTDIR/t3.conf" <<EOF
module(load="impstats" interval="1" format="$fmt" facility="16" severity="5" ruleset="st")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1" name="in/x")
template(name="p" type="string" string="%pri-text%|%msg%\n")
ruleset(name="st") { action(type="omfile" file="$O3" template="p") }
EOF
	start_sluiced "$TESTDIR/t3.conf"
	for ((i = 0; i < 40; i++)); do
		grep -q '"name": "ledger"' "$O3" 2>/dev/null && break
		sleep 0.1
	done
	stop_daemon
	if [ "$fmt" = cee ]; then
		grep -qx 'local0.notice|@cee: { "name": "in\\/x('"$PORT"')", "origin": "imtcp", "submitted": 0, .* }' "$O3" ||
			fail "expected a cee line for in/x (with '/' escaped), got: $(head -3 "$O3")"
	else
		grep -qx 'local0.notice|{ "name": "main Q", "origin": "core.queue", "size": 0, "enqueued": 0, "full": 0, "discarded!full": 0, "discarded!nf": 0, .* }' "$O3" ||
			fail "expected json-elasticsearch names with '!', got: $(grep 'main Q' "$O3" | head -1)"
	fi
done
