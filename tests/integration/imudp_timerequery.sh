#!/bin/bash
# imudp_timerequery.sh - imudp timeRequery as rsyslog's processSocket uses
# it: the reception time is read for the first recvmmsg() batch of a
# wake-up and then once every timeRequery batches. sluiced is stopped
# (SIGSTOP), 640 datagrams are queued in its socket, it is continued:
# one wake-up reads 20 batches of 32. With timeRequery="1000" all 640
# messages carry one %timegenerated% (microseconds); with timeRequery="0"
# (every batch) they carry several; every datagram arrives exactly once.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

[ "$DUT_NAME" = sluiced ] || skip "SIGSTOP timing test is for sluiced"
N=640
run() { # $1 = timeRequery; prints the number of distinct reception times
	local out="$TESTDIR/out.$1" tp
	tp=$(get_free_port)
	udp_conf "$TESTDIR/t$1.conf" "$tp" "batchSize=\"32\" timeRequery=\"$1\"" 4m \
		'%timegenerated:::date-rfc3339%|%msg%\n' "$out"
	start_sluiced "$TESTDIR/t$1.conf" "$tp"
	kill -STOP "$DAEMON_PID"
	python3 - "$PORT" "$N" <<-'EOF'
	import socket, sys
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
	for i in range(int(sys.argv[2])):
	    s.sendto(b"<13>host tag: udp %05d" % i, ("127.0.0.1", int(sys.argv[1])))
	EOF
	kill -CONT "$DAEMON_PID"
	wait_lines "$out" "$N" 20
	stop_daemon
	local got
	got=$(cut -d'|' -f2 "$out" | sort -u | wc -l)
	[ "$got" = "$N" ] || fail "expected $N distinct messages with timeRequery=$1, got $got"
	cut -d'|' -f1 "$out" | sort -u | wc -l
}
one=$(run 1000) || exit 1
log "timeRequery=1000: $one reception time(s)"
every=$(run 0) || exit 1
log "timeRequery=0: $every reception times"
[ "$one" = 1 ] || fail "expected 1 reception time for 640 messages read in one wake-up with timeRequery=1000, got $one"
[ "$every" -gt 1 ] || fail "expected several reception times with timeRequery=0 (every batch), got $every"
exit 0
