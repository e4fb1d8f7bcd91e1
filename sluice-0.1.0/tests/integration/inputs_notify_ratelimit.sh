#!/bin/bash
# inputs_notify_ratelimit.sh - imtcp, imptcp and imudp options of rsyslog
# 8.2302 that make or drop messages: notifyOnConnectionOpen/Close (internal
# messages), rateLimit.interval/burst (per input, shared by all sessions:
# the second connection gets nothing in the window; the "begin to drop"
# and "N messages lost" internal messages with rsyslog's limiter names,
# the loss reported at shutdown), and defaultTZ (the offset of an RFC3164
# timestamp; an RFC3339 one keeps its own). The expected lines are what
# rsyslogd 8.2302 logs for the same traffic (SLUICE_DUT=rsyslogd runs the
# test against it); the pointer / fd numbers in close messages are masked.
# Each TCP input also sees one empty connection: the port probe of
# start_dut (imtcp) and of the wait below (imptcp).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

PP=$(get_free_port)
UP=$(get_free_port)
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/d.conf" <<EOF
global(net.enableDNS="off")
module(load="imtcp")
module(load="imptcp")
module(load="imudp")
input(type="imtcp" port="$PORT" address="127.0.0.1" notifyOnConnectionOpen="on"
      notifyOnConnectionClose="on" rateLimit.interval="60" rateLimit.burst="3" defaultTZ="+05:00")
input(type="imptcp" port="$PP" address="127.0.0.1" notifyOnConnectionOpen="on"
      notifyOnConnectionClose="on" rateLimit.interval="60" rateLimit.burst="3" defaultTZ="-03:30")
input(type="imudp" port="$UP" address="127.0.0.1" rateLimit.interval="60" rateLimit.burst="3"
      defaultTZ="+05:00")
template(name="t" type="string" string="%pri%|%inputname%|%fromhost-ip%|%syslogtag%|%msg%|%timereported:::date-rfc3339%\n")
if \$msg contains "origin software" then stop
action(type="omfile" file="$OUT" template="t")
EOF
start_dut "$TESTDIR/d.conf"
for ((i = 0; i < 50; i++)); do port_open "$PP" && break; sleep 0.1; done
python3 - "$PORT" "$PP" "$UP" <<'PY' || fail "expected to send the test traffic, got an error"
import socket, sys, time
tcp, ptcp, udp = (int(a) for a in sys.argv[1:4])
for port in (tcp, ptcp):
    for conn in ("a", "b"):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"".join(b"<13>Mar  1 10:00:00 host tag: %s%d\n" % (conn.encode(), i)
                           for i in range(6)))
        time.sleep(0.3)
        s.close()
        time.sleep(0.2)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(b"<13>2023-03-01T10:00:00Z host tag: iso", ("127.0.0.1", udp))
for i in range(5):
    u.sendto(b"<13>Mar  1 10:00:00 host tag: u%d" % i, ("127.0.0.1", udp))
PY
try_wait_lines "$OUT" 20 10 || true
sleep 0.5
stop_daemon
Y=$(date +%Y)
# mask what is not reproducible: session pointer, socket fd, internal timestamps
sed -E -e 's/session 0x[0-9a-f]+ /session PTR /; s/session [0-9]+ closed/session FD closed/' \
	-e 's/socket [0-9]+ closed/socket FD closed/' \
	-e 's/^(4[36]\|rsyslogd\|.*)\|[^|]*$/\1|T/' "$OUT" | sort >"$TESTDIR/got"
sort >"$TESTDIR/want" <<EOF
13|imtcp|127.0.0.1|tag:| a0|$Y-03-01T10:00:00+05:00
13|imtcp|127.0.0.1|tag:| a1|$Y-03-01T10:00:00+05:00
13|imtcp|127.0.0.1|tag:| a2|$Y-03-01T10:00:00+05:00
46|rsyslogd|127.0.0.1|rsyslogd:|imtcp: connection established with host: 127.0.0.1 [v8.2302.0]|T
46|rsyslogd|127.0.0.1|rsyslogd:|imtcp: connection established with host: 127.0.0.1 [v8.2302.0]|T
46|rsyslogd|127.0.0.1|rsyslogd:|imtcp: connection established with host: 127.0.0.1 [v8.2302.0]|T
43|rsyslogd|127.0.0.1|rsyslogd-2144:|Netstream session PTR closed by remote peer 127.0.0.1.  [v8.2302.0 try https://www.rsyslog.com/e/2144 ]|T
46|rsyslogd|127.0.0.1|rsyslogd-2177:|tcperver from <127.0.0.1:->: begin to drop messages due to rate-limiting|T
43|rsyslogd|127.0.0.1|rsyslogd-2144:|Netstream session PTR closed by remote peer 127.0.0.1.  [v8.2302.0 try https://www.rsyslog.com/e/2144 ]|T
43|rsyslogd|127.0.0.1|rsyslogd-2144:|Netstream session PTR closed by remote peer 127.0.0.1.  [v8.2302.0 try https://www.rsyslog.com/e/2144 ]|T
46|rsyslogd|127.0.0.1|rsyslogd-2177:|tcperver: 9 messages lost due to rate-limiting (3 allowed within 60 seconds)|T
13|imptcp|127.0.0.1|tag:| a0|$Y-03-01T10:00:00-03:30
13|imptcp|127.0.0.1|tag:| a1|$Y-03-01T10:00:00-03:30
13|imptcp|127.0.0.1|tag:| a2|$Y-03-01T10:00:00-03:30
46|rsyslogd|127.0.0.1|rsyslogd:|imptcp: connection established with host: 127.0.0.1 [v8.2302.0]|T
46|rsyslogd|127.0.0.1|rsyslogd:|imptcp: connection established with host: 127.0.0.1 [v8.2302.0]|T
46|rsyslogd|127.0.0.1|rsyslogd:|imptcp: connection established with host: 127.0.0.1 [v8.2302.0]|T
43|rsyslogd|127.0.0.1|rsyslogd-2144:|imptcp session FD closed by remote peer 127.0.0.1. [v8.2302.0 try https://www.rsyslog.com/e/2144 ]|T
46|rsyslogd|127.0.0.1|rsyslogd:|imptcp: session on socket FD closed with iRet 0.  [v8.2302.0]|T
46|rsyslogd|127.0.0.1|rsyslogd-2177:|imptcp[$PP] from <127.0.0.1:->: begin to drop messages due to rate-limiting|T
43|rsyslogd|127.0.0.1|rsyslogd-2144:|imptcp session FD closed by remote peer 127.0.0.1. [v8.2302.0 try https://www.rsyslog.com/e/2144 ]|T
43|rsyslogd|127.0.0.1|rsyslogd-2144:|imptcp session FD closed by remote peer 127.0.0.1. [v8.2302.0 try https://www.rsyslog.com/e/2144 ]|T
46|rsyslogd|127.0.0.1|rsyslogd:|imptcp: session on socket FD closed with iRet 0.  [v8.2302.0]|T
46|rsyslogd|127.0.0.1|rsyslogd:|imptcp: session on socket FD closed with iRet 0.  [v8.2302.0]|T
46|rsyslogd|127.0.0.1|rsyslogd-2177:|imptcp[$PP]: 9 messages lost due to rate-limiting (3 allowed within 60 seconds)|T
13|imudp|127.0.0.1|tag:| iso|2023-03-01T10:00:00Z
13|imudp|127.0.0.1|tag:| u0|$Y-03-01T10:00:00+05:00
13|imudp|127.0.0.1|tag:| u1|$Y-03-01T10:00:00+05:00
46|rsyslogd|127.0.0.1|rsyslogd-2177:|imudp(127.0.0.1/$UP/IPv4) from <127.0.0.1:->: begin to drop messages due to rate-limiting|T
46|rsyslogd|127.0.0.1|rsyslogd-2177:|imudp(127.0.0.1/$UP/IPv4): 3 messages lost due to rate-limiting (3 allowed within 60 seconds)|T
EOF
diff -u "$TESTDIR/want" "$TESTDIR/got" >&2 ||
	fail "expected exactly the messages rsyslogd 8.2302 logs (sorted), got the diff above (- expected, + $DUT_NAME)"
log "ok: notifyOnConnection*, rateLimit.* and defaultTZ of imtcp, imptcp and imudp give rsyslog's messages"
exit 0
