#!/bin/bash
# imptcp_compress.sh - compression.mode="stream:always" both ways against the
# real rsyslogd: (1) rsyslogd's omfwd with compression.mode="stream:always"
# sends to sluiced's imptcp (compression.mode="stream:always"); (2) sluiced's
# omfwd with the same settings sends to rsyslogd's imptcp. Both senders get
# the same input file (short and 6000-byte lines) and forward %rawmsg%; each
# receiver writes %rawmsg% per line, so the output must equal the input
# exactly. (3) A client that sends a valid zlib stream, finishes it and
# starts a second one is framed across both; (4) a client sending garbage
# is disconnected, logged and counted, and another session is still served.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool rsyslogd "$RSYSLOGD"
N=${N:-5000}
INPUT="$TESTDIR/input.txt"
python3 - "$N" >"$INPUT" <<'EOF'
import sys
n = int(sys.argv[1])
for i in range(n):
    if i % 500 == 7:
        body = ("long%d-" % i) * 800
        print("<134>Mar  1 01:02:03 host app[%d]: %s" % (i, body[:6000]))
    else:
        print("<13>Mar  1 01:02:03 host tag: msgnum:%08d: payload %s" % (i, "x" * (i % 97)))
EOF

P_SIN=$(get_free_port)   # sluiced imptcp (compressed)
P_AIN=$(get_free_port)   # rsyslogd sender's plain imtcp input
P_RIN=$(get_free_port)   # rsyslogd receiver imptcp (compressed)
P_BIN=$(get_free_port)   # sluiced sender's plain imtcp input
OUT_S="$TESTDIR/sluice_rcv.log"
OUT_R="$TESTDIR/rsyslog_rcv.log"

# sluiced: receiver on P_SIN, sender from P_BIN to rsyslogd's P_RIN
cat >"$TESTDIR/sluice.conf" <<EOF
global(maxMessageSize="64k")
module(load="imptcp")
module(load="imtcp")
template(name="raw" type="string" string="%rawmsg%\n")
template(name="fwd" type="string" string="%rawmsg%")
input(type="imptcp" port="$P_SIN" address="127.0.0.1" compression.mode="stream:always" ruleset="rcv")
ruleset(name="rcv") { action(type="omfile" file="$OUT_S" template="raw") }
input(type="imtcp" port="$P_BIN" address="127.0.0.1" ruleset="snd")
ruleset(name="snd") {
	action(type="omfwd" target="127.0.0.1" port="$P_RIN" protocol="tcp" template="fwd"
	       compression.mode="stream:always" compression.stream.flushOnTXEnd="on")
}
EOF
# rsyslogd: receiver on P_RIN, sender from P_AIN to sluiced's P_SIN
cat >"$TESTDIR/rsyslog.conf" <<EOF
global(maxMessageSize="64k")
module(load="imptcp")
module(load="imtcp")
template(name="raw" type="string" string="%rawmsg%\n")
template(name="fwd" type="string" string="%rawmsg%")
input(type="imptcp" port="$P_RIN" address="127.0.0.1" compression.mode="stream:always" ruleset="rcv")
ruleset(name="rcv") { action(type="omfile" file="$OUT_R" template="raw") }
input(type="imtcp" port="$P_AIN" address="127.0.0.1" ruleset="snd")
ruleset(name="snd") {
	action(type="omfwd" target="127.0.0.1" port="$P_SIN" protocol="tcp" template="fwd"
	       compression.mode="stream:always" compression.stream.flushOnTXEnd="on")
}
EOF

start_sluiced "$TESTDIR/sluice.conf" "$P_SIN"
SL_PID=$DAEMON_PID
start_rsyslogd "$TESTDIR/rsyslog.conf" "$P_RIN"
RS_PID=$DAEMON_PID
DAEMON_PID=

send_file "$INPUT" "$P_AIN"
send_file "$INPUT" "$P_BIN"
wait_lines "$OUT_S" "$N" 60
wait_lines "$OUT_R" "$N" 60
cmp -s "$INPUT" "$OUT_S" ||
	fail "expected rsyslogd omfwd stream:always -> sluiced imptcp to deliver the input exactly, got a difference: $(diff "$INPUT" "$OUT_S" | head -5)"
cmp -s "$INPUT" "$OUT_R" ||
	fail "expected sluiced omfwd stream:always -> rsyslogd imptcp to deliver the input exactly, got a difference: $(diff "$INPUT" "$OUT_R" | head -5)"

# (3) two zlib streams in one session, each sync-flushed mid-message;
# (4) a corrupt stream, then a valid session
python3 - "$P_SIN" <<'EOF' || fail "expected the python clients to run, got an error"
import socket, sys, zlib, time
port = int(sys.argv[1])
def conn():
    return socket.create_connection(("127.0.0.1", port), timeout=10)
s = conn()
z = zlib.compressobj()
s.sendall(z.compress(b"<13>zstream one first\n<13>zstream one sec") + z.flush(zlib.Z_SYNC_FLUSH))
time.sleep(0.2)
s.sendall(z.compress(b"ond\n") + z.flush(zlib.Z_FINISH))
z = zlib.compressobj()
s.sendall(z.compress(b"<13>zstream two\n") + z.flush(zlib.Z_FINISH))
s.close()
bad = conn()
bad.sendall(b"\x78\x9c" + b"this is not deflate data at all\n" * 10)
time.sleep(0.3)
bad.close()
s = conn()
z = zlib.compressobj()
s.sendall(z.compress(b"<13>after the corrupt one\n") + z.flush(zlib.Z_FINISH))
s.close()
EOF
wait_lines "$OUT_S" $((N + 4)) 20
tail -n 4 "$OUT_S" >"$TESTDIR/tail.txt"
printf '%s\n' "<13>zstream one first" "<13>zstream one second" "<13>zstream two" \
	"<13>after the corrupt one" >"$TESTDIR/tail.exp"
cmp -s "$TESTDIR/tail.exp" "$TESTDIR/tail.txt" ||
	fail "expected the zlib-stream client lines, got: $(cat "$TESTDIR/tail.txt")"
grep -q "corrupt compressed stream from peer 127.0.0.1" "$TESTDIR/sluiced.$P_SIN.log" ||
	fail "expected the corrupt stream to be logged, got: $(tail -5 "$TESTDIR/sluiced.$P_SIN.log")"
sleep 1
[ "$(count_lines "$OUT_S")" = $((N + 4)) ] ||
	fail "expected exactly $((N + 4)) lines from sluiced (nothing from the garbage), got $(count_lines "$OUT_S")"

stop_daemon "$RS_PID"
stop_daemon "$SL_PID"
exit 0
