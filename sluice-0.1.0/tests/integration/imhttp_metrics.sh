#!/bin/bash
# imhttp_metrics.sh - the HTTP endpoint: /metrics is accepted by the
# Prometheus text-format parser (prometheus_client) and carries the exact
# counts (imtcp submitted, action processed, the ledger) after 2,000
# messages; /healthz answers 200; /readyz is 200 only while every listener
# is bound (polled from the moment the daemon starts: whenever it says
# ready, the syslog port accepts connections) and 503 while an action with
# a finite resumeRetryCount is suspended; unknown paths 404, POST 405,
# an oversized request 431; curl sees the same text.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool sluiced "$SLUICED"
require_tool tcpflood "$TCPFLOOD"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (imhttp endpoint)"
# Debian's python3-prometheus-client lives in /usr/bin/python3's path (a
# python3 earlier in PATH, e.g. pyenv's, may not see it)
PYPROM=
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import prometheus_client.parser' 2>/dev/null; then
		PYPROM=$py
		break
	fi
done
[ -n "$PYPROM" ] || skip "python3-prometheus-client not installed (tools/deps.sh)"

HPORT=$(get_free_port)
DEAD=$(get_free_port)   # nothing listens here: omfwd stays suspended
OUT="$TESTDIR/out.log"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
module(load="imhttp" ports="127.0.0.1:$HPORT")
input(type="imtcp" port="$PORT" address="127.0.0.1")
if \$msg contains "to-dead" then {
	action(type="omfwd" target="127.0.0.1" port="$DEAD" protocol="tcp"
	       action.resumeRetryCount="2" action.resumeInterval="1")
	stop
}
action(type="omfile" file="$OUT")
EOF

# poll /readyz and the syslog port while the daemon starts
python3 - "$HPORT" "$PORT" >"$TESTDIR/readypoll.log" 2>&1 <<'EOF' &
import socket, sys, time
hp, sp = int(sys.argv[1]), int(sys.argv[2])
def is_open(p):
    s = socket.socket(); s.settimeout(0.2)
    try:
        s.connect(("127.0.0.1", p)); return True
    except OSError:
        return False
    finally:
        s.close()
def get(path):
    s = socket.create_connection(("127.0.0.1", hp), timeout=2)
    s.sendall(b"GET " + path + b" HTTP/1.0\r\n\r\n")
    d = b""
    while True:
        b = s.recv(4096)
        if not b: break
        d += b
    return d
end = time.monotonic() + 20
while time.monotonic() < end:
    try:
        r = get(b"/readyz")
    except OSError:
        time.sleep(0.005); continue
    if r.startswith(b"HTTP/1.0 200"):
        print("ready, syslog port open:", is_open(sp)); sys.exit(0)
    time.sleep(0.005)
print("never ready"); sys.exit(1)
EOF
POLLER=$!
start_sluiced "$TESTDIR/test.conf"
wait "$POLLER" || fail "expected /readyz to turn 200, got: $(cat "$TESTDIR/readypoll.log")"
grep -qx "ready, syslog port open: True" "$TESTDIR/readypoll.log" ||
	fail "expected the syslog port open whenever /readyz is 200, got: $(cat "$TESTDIR/readypoll.log")"

"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m 2000 -q || fail "expected tcpflood to send 2000 messages, got $?"
wait_lines "$OUT" 2000 60
sleep 0.3

curl -s "http://127.0.0.1:$HPORT/metrics" >"$TESTDIR/metrics.txt" ||
	fail "expected curl to fetch /metrics, got exit status $?"
"$PYPROM" - "$TESTDIR/metrics.txt" "$PORT" <<'EOF' || fail "expected /metrics to parse with the exact counts (see above)"
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
port = sys.argv[2]
fams = {f.name: f for f in text_string_to_metric_families(text)}
def val(fam, name):
    f = fams.get(fam)
    if f is None:
        print("missing family", fam, "in", sorted(fams)); sys.exit(1)
    for s in f.samples:
        if s.labels.get("name") == name and not s.name.endswith("_created"):
            return s.value
    print("no sample", name, "in", fam, [s.labels for s in f.samples]); sys.exit(1)
checks = [
    ("sluice_imtcp_submitted", "imtcp(%s)" % port, 2000, "counter"),
    ("sluice_core_action_processed", "action-1-builtin:omfile", 2000, "counter"),
    ("sluice_core_ledger_received", "ledger", 2000, "counter"),
    ("sluice_core_ledger_delivered", "ledger", 2000, "counter"),
    ("sluice_core_ledger_unaccounted", "ledger", 0, "gauge"),
    ("sluice_core_ledger_queued", "ledger", 0, "gauge"),
    ("sluice_core_queue_size", "main Q", 0, "gauge"),
]
for fam, name, want, typ in checks:
    v = val(fam, name)
    if v != want or fams[fam].type != typ:
        print("expected %s{name=%r} = %s (%s), got %s (%s)" % (fam, name, want, typ, v, fams[fam].type))
        sys.exit(1)
print("metrics: %d families parsed" % len(fams))
EOF

code() { curl -s -o "$TESTDIR/body" -w '%{http_code}' "$@"; }
[ "$(code "http://127.0.0.1:$HPORT/healthz")" = 200 ] || fail "expected /healthz 200"
[ "$(cat "$TESTDIR/body")" = OK ] || fail "expected /healthz body OK, got $(cat "$TESTDIR/body")"
[ "$(code "http://127.0.0.1:$HPORT/readyz")" = 200 ] || fail "expected /readyz 200 before the action fails"
[ "$(code "http://127.0.0.1:$HPORT/nope")" = 404 ] || fail "expected 404 for an unknown path"
[ "$(code -X POST -d x "http://127.0.0.1:$HPORT/metrics")" = 405 ] || fail "expected 405 for POST"
[ "$(code -H "X-Big: $(head -c 5000 /dev/zero | tr '\0' a)" "http://127.0.0.1:$HPORT/healthz")" = 431 ] ||
	fail "expected 431 for a 5 KB request head"

# an action that cannot deliver, with a finite retry count: not ready
"$TCPFLOOD" -t 127.0.0.1 -p "$PORT" -m 1 -M "<13>x: to-dead" -q
for ((i = 0; i < 50; i++)); do
	c=$(code "http://127.0.0.1:$HPORT/readyz")
	[ "$c" = 503 ] && break
	sleep 0.1
done
[ "$c" = 503 ] || fail "expected /readyz 503 while omfwd is suspended, got $c"
grep -q "action-0-builtin:omfwd\|action-0" "$TESTDIR/body" ||
	fail "expected /readyz to name the failed action, got $(cat "$TESTDIR/body")"
stop_daemon
