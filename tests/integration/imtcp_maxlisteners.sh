#!/bin/bash
# imtcp_maxlisteners.sh - imtcp maxListeners as rsyslog 8.2302 applies it:
# the limit is on the listen sockets of one input (one per address its
# port resolves to), not on the number of inputs. With module
# maxListeners="1", an input without address= gets one socket (0.0.0.0)
# instead of two (0.0.0.0 and ::), error 2080 "Could not create tcp
# listener, ignoring port P bind-address **UNSPECIFIED**." is logged, and
# the socket it has still receives; three more inputs (so four with a
# module limit of 1) all listen and receive; an input maxListeners="2"
# overrides the module value and gets both sockets; maxListeners="0" is a
# configuration error naming the line. Runs with SLUICE_DUT=rsyslogd too.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

command -v ss >/dev/null || skip "ss (iproute2) not installed"
P1=$(get_free_port); P2=$(get_free_port); P3=$(get_free_port); P4=$(get_free_port)
OUT="$TESTDIR/out.log"
INT="$TESTDIR/internal.log"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp" maxListeners="1")
template(name="m" type="string" string="%inputname%|%msg%\n")
input(type="imtcp" port="$PORT" name="one" ruleset="r")
input(type="imtcp" port="$P1" address="127.0.0.1" name="p1" ruleset="r")
input(type="imtcp" port="$P2" address="127.0.0.1" name="p2" ruleset="r")
input(type="imtcp" port="$P3" name="both" maxListeners="2" ruleset="r")
ruleset(name="r") { action(type="omfile" file="$OUT" template="m") }
action(type="omfile" file="$INT" template="m")
EOF
start_dut "$TESTDIR/test.conf"

nsock() { ss -Hltn "sport = :$1" | wc -l; }
[ "$(nsock "$PORT")" = 1 ] ||
	fail "expected 1 listen socket on port $PORT (maxListeners=1), got $(nsock "$PORT"): $(ss -Hltn "sport = :$PORT")"
[ "$(nsock "$P3")" = 2 ] ||
	fail "expected 2 listen sockets on port $P3 (input maxListeners=2), got $(nsock "$P3")"
for p in "$PORT" "$P1" "$P2" "$P3"; do
	printf '<13>host tag: to port %s\n' "$p" >"$TESTDIR/m.txt"
	send_file "$TESTDIR/m.txt" "$p"
done
wait_lines "$OUT" 4 20
sort "$OUT" >"$TESTDIR/got.txt"
printf '%s\n' "both| to port $P3" "one| to port $PORT" "p1| to port $P1" "p2| to port $P2" | sort >"$TESTDIR/exp.txt"
cmp -s "$TESTDIR/exp.txt" "$TESTDIR/got.txt" ||
	fail "expected one message per input, got: $(cat "$TESTDIR/got.txt")"
wait_lines "$INT" 1 10
grep -qF "Could not create tcp listener, ignoring port $PORT bind-address **UNSPECIFIED**." "$INT" ||
	fail "expected error 2080 for port $PORT in the log, got: $(cat "$INT")"
n2080=$(grep -c "Could not create tcp listener" "$INT")
[ "$n2080" = 1 ] || fail "expected exactly one 2080 error (port $PORT), got $n2080: $(cat "$INT")"
stop_daemon

cat >"$TESTDIR/bad.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$P4"
      maxListeners="0")
EOF
out=$(check_config "$TESTDIR/bad.conf") && fail "expected maxListeners=0 to be a config error, got success: $out"
echo "$out" | grep -q "maxlisteners' cannot be less than one (was 0)" ||
	fail "expected the 'cannot be less than one' error, got: $out"
if [ "$DUT_NAME" = sluiced ]; then
	echo "$out" | grep -q "bad.conf:3" || fail "expected the error to name bad.conf:3, got: $out"
fi
exit 0
