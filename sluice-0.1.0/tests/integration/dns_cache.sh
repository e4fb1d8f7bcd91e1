#!/bin/bash
# dns_cache.sh - the reverse-DNS cache of runtime/dns.c: 300 TCP
# connections from 127.0.0.1 to imtcp with net.enableDNS on must not each
# ask the resolver. sluiced runs under strace, which counts how often the
# resolver's first source (/etc/hosts, nsswitch "files") is opened: once
# per input thread (the cache's first miss), not once per connection.
# Every message must still arrive with fromhost = the resolved name.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

STRACE=${STRACE:-$(command -v strace 2>/dev/null || echo /usr/bin/strace)}
require_tool strace "$STRACE"
require_tool sluiced "$SLUICED"
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "counts sluiced's resolver calls"
grep -qE '^hosts:[[:space:]]*files' /etc/nsswitch.conf 2>/dev/null ||
	skip "nsswitch.conf does not resolve from /etc/hosts first"
"$STRACE" -f -e trace=none true 2>/dev/null || skip "strace cannot trace here"
name=$(getent hosts 127.0.0.1 | awk '{print $2; exit}')
[ -n "$name" ] || skip "127.0.0.1 has no name in /etc/hosts"

NCONN=300
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<EOF
global(net.enableDNS="on")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1" maxSessions="1000")
template(name="t" type="string" string="%fromhost% %msg%\n")
action(type="omfile" file="$OUT" template="t")
EOF
_sl_start sluiced.strace "$PORT" "$STRACE" -f -qq -e trace=open,openat -o "$TESTDIR/strace.log" \
	"$SLUICED" -n -f "$TESTDIR/test.conf" -i "$TESTDIR/sluiced.pid"
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -c "$NCONN" -m "$NCONN" -q >&2 ||
	fail "expected tcpflood to send $NCONN messages over $NCONN connections, got status $?"
wait_lines "$OUT" "$NCONN" 60
kill -TERM "$(cat "$TESTDIR/sluiced.pid")"
stop_daemon
got=$(grep -c '"/etc/hosts"' "$TESTDIR/strace.log")
log "$NCONN connections (+1 port probe), /etc/hosts opened $got times"
[ "$got" -ge 1 ] || fail "expected the resolver to be asked at least once, got 0 opens of /etc/hosts"
[ "$got" -le 3 ] || fail "expected at most 3 resolver lookups for $NCONN connections from one host (cache), got $got"
bad=$(grep -cv "^$name " "$OUT")
[ "$bad" = 0 ] || fail "expected fromhost '$name' on every message, got $bad others, e.g. '$(grep -v "^$name " "$OUT" | head -n1)'"
log "ok: $NCONN connections from one host resolved $got time(s), all with fromhost '$name'"
exit 0
