#!/bin/bash
# es_params_test.sh - omelasticsearch's connection parameters against one
# real Elasticsearch 8.19 (started once, shared by all cases), with
# es_auth_proxy.py (python3 stdlib reverse proxy) in front where a case
# needs to see or shape the HTTP traffic:
#  1. fail-over: server=[dead port, ES]: every document indexed exactly
#     once through ES, "no answer" logged for the dead one, counted;
#  2. round-robin: server=[ES, proxy->ES], one worker: the requests
#     alternate per request (rsyslog 8.2302 moves to the next server after
#     every request): the proxy sees half of the module's request counter;
#     and without rebindinterval it sees a single TCP connection;
#  3. uid/pwd behind a proxy that demands basic auth: the right password
#     indexes everything (and the proxy saw the credentials); a wrong one
#     gets 401, nothing is indexed, the action suspends at once (no retry
#     loop) and, with resumeRetryCount 0, the core gives every message up
#     into action.errorFile (rsyslog drops the bulk into errorfile);
#  4. rebindinterval=1000: the proxy sees a new connection about every
#     1000 documents;
#  5. indextimeout=1000 with a proxy holding the first two bulks for 3 s:
#     the requests time out (logged, counted as connection errors), are
#     sent again, and with bulkid every document is there exactly once.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/elasticsearch.sh"
. "$srcdir/tests/services/es_lib.sh"

N=${ES_PARAMS_NMSGS:-10000}
require_tool tcpflood "$TCPFLOOD"
require_tool sluiced "$SLUICED"
command -v python3 >/dev/null || skip "python3 missing"
[ -e "$top_builddir/plugins/omelasticsearch/.libs/omelasticsearch.so" ] ||
	skip "omelasticsearch was not built (libcurl missing?)"

es_start elasticsearch
es_zero_replicas
es_gen_input "$TESTDIR/in.txt" "$N" 1
PROXY="$srcdir/tests/services/es_auth_proxy.py"

# start_proxy NAME [ARGS...]: proxy to ES on a free port -> PROXY_PORT
start_proxy() {
	local name=$1
	shift
	PROXY_PORT=$(get_free_port)
	_sl_start "proxy-$name" "$PROXY_PORT" python3 "$PROXY" --port "$PROXY_PORT" \
		--upstream "127.0.0.1:$ES_PORT" --log "$TESTDIR/proxy-$name.req" "$@"
}

# run_case NAME N ACTION-PARAMS: sluiced with one imtcp input and one
# omelasticsearch action named NAME (own queue, batches of 500); floods N
# messages; waits until the daemon's queue drained into index NAME (when
# WAIT_INDEX is set), then stops sluiced. -> CASE_LOG
run_case() {
	local name=$1 n=$2 params=$3 port
	port=$(get_free_port)
	{
		es_templates
		cat <<-EOF
		module(load="imtcp")
		input(type="imtcp" port="$port" address="127.0.0.1")
		action(type="omelasticsearch" name="$name" template="es_doc" searchIndex="$name"
		       bulkmode="on" errorfile="$TESTDIR/err-$name.json"
		       action.errorFile="$TESTDIR/given-up-$name.json"
		       queue.type="LinkedList" queue.size="100000" queue.dequeueBatchSize="500"
		       $params)
		EOF
	} >"$TESTDIR/$name.conf"
	start_sluiced "$TESTDIR/$name.conf" "$port"
	local pid=$DAEMON_PID
	"$TCPFLOOD" -p "$port" -I "$TESTDIR/in.txt" -m "$n" -q ||
		fail "expected tcpflood to send $n messages, got exit status $?"
	[ -n "${WAIT_INDEX:-}" ] && es_wait_count "$name" "$n" 120
	[ -n "${WAIT_SECONDS:-}" ] && sleep "$WAIT_SECONDS"
	stop_daemon "$pid"
	CASE_LOG="$TESTDIR/sluiced.$port.log"
}

# expect_stat NAME OP VALUE: the counter of CASE_LOG compared with test(1)'s OP
expect_stat() {
	local v
	v=$(es_stats_field "$CASE_LOG" "$1")
	[ -n "$v" ] && [ "$v" "$2" "$3" ] || fail "expected counter $1 $2 $3, got '$v' ($(grep -o 'submitted=.*' "$CASE_LOG" | tail -n 1))"
}

no_errors() {
	[ -s "$TESTDIR/err-$1.json" ] && fail "expected an empty errorfile for $1, got $(head -n 2 "$TESTDIR/err-$1.json")"
	[ -s "$TESTDIR/given-up-$1.json" ] && fail "expected nothing given up by $1, got $(head -n 2 "$TESTDIR/given-up-$1.json")"
	return 0
}

bulk_reqs() { grep -c "method=POST path=/_bulk" "$1" || true; }
bulk_conns() { grep "method=POST path=/_bulk" "$1" | sed 's/ .*//' | sort -u | wc -l; }

# --- 1. fail-over from a dead port ----------------------------------------------
t=$SECONDS
DEAD=$(get_free_port)
WAIT_INDEX=1 run_case failover "$N" "server=[\"127.0.0.1:$DEAD\", \"127.0.0.1:$ES_PORT\"]
       action.resumeRetryCount=\"-1\" action.resumeInterval=\"1\""
es_check_seq failover "$N"
no_errors failover
grep -q "127.0.0.1:$DEAD/: no answer" "$CASE_LOG" ||
	fail "expected a log line on the dead server 127.0.0.1:$DEAD, got none"
expect_stat indexed = "$N"
expect_stat failed = 0
expect_stat connection_errors -gt 0
log "ok 1: fail-over: $N indexed once, $(es_stats_field "$CASE_LOG" connection_errors) connection errors on the dead port ($((SECONDS - t)) s)"

# --- 2. round-robin over two live endpoints --------------------------------------
t=$SECONDS
start_proxy rr
RR_PROXY=$DAEMON_PID
WAIT_INDEX=1 run_case rr "$N" "server=[\"127.0.0.1:$ES_PORT\", \"127.0.0.1:$PROXY_PORT\"]
       action.resumeRetryCount=\"-1\" action.resumeInterval=\"1\""
kill "$RR_PROXY"
es_check_seq rr "$N"
no_errors rr
expect_stat connection_errors = 0
reqs=$(es_stats_field "$CASE_LOG" requests)
via=$(bulk_reqs "$TESTDIR/proxy-rr.req")
[ "$reqs" -ge 10 ] || fail "expected at least 10 bulk requests for $N documents in batches of 500, got $reqs"
diff=$((reqs - 2 * via))
[ "$diff" -ge -1 ] && [ "$diff" -le 1 ] ||
	fail "expected every second of the $reqs bulk requests through the proxy, got $via"
conns=$(bulk_conns "$TESTDIR/proxy-rr.req")
[ "$conns" = 1 ] || fail "expected one kept-alive connection to the proxy, got $conns"
log "ok 2: round-robin: $via of $reqs requests through the second endpoint, on $conns connection ($((SECONDS - t)) s)"

# --- 3. basic auth ------------------------------------------------------------------
t=$SECONDS
start_proxy auth --auth "elastic:s3cret pass"
AUTH_PROXY=$DAEMON_PID
AUTH_PORT=$PROXY_PORT
WAIT_INDEX=1 run_case auth-ok "$N" "server=\"127.0.0.1:$AUTH_PORT\" uid=\"elastic\" pwd=\"s3cret pass\"
       action.resumeRetryCount=\"-1\" action.resumeInterval=\"1\""
es_check_seq auth-ok "$N"
no_errors auth-ok
expect_stat http_errors = 0
grep -q "auth=bad\|auth=none" "$TESTDIR/proxy-auth.req" &&
	fail "expected every request with the right credentials, got $(grep -m1 'auth=bad\|auth=none' "$TESTDIR/proxy-auth.req")"
[ "$(bulk_reqs "$TESTDIR/proxy-auth.req")" -gt 0 ] || fail "expected the bulks through the auth proxy, got none"
NB=2000
: >"$TESTDIR/proxy-auth.req"
WAIT_SECONDS=4 run_case auth-bad "$NB" "server=\"127.0.0.1:$AUTH_PORT\" uid=\"elastic\" pwd=\"wrong\"
       esVersion.major=\"8\" action.resumeInterval=\"1\""
kill "$AUTH_PROXY"
got=$(es_count 'auth-bad*')
[ "$got" = 0 ] || [ "$got" = -1 ] || fail "expected nothing indexed with a wrong password, got $got"
grep -q "refused the request with HTTP 401" "$CASE_LOG" ||
	fail "expected a log line on HTTP 401, got $(grep -m2 omelasticsearch "$CASE_LOG")"
grep -q "status=401 auth=bad" "$TESTDIR/proxy-auth.req" ||
	fail "expected the proxy to refuse bad credentials, got $(head -n 2 "$TESTDIR/proxy-auth.req")"
[ -s "$TESTDIR/err-auth-bad.json" ] && fail "expected no document refused by Elasticsearch itself, got $(head -c 300 "$TESTDIR/err-auth-bad.json")"
bad=$(count_lines "$TESTDIR/given-up-auth-bad.json")
[ "$bad" = "$NB" ] || fail "expected all $NB messages in action.errorFile, got $bad"
python3 - "$TESTDIR/given-up-auth-bad.json" <<-'EOF' || fail "expected given-up lines with status suspended, got $(head -n 1 "$TESTDIR/given-up-auth-bad.json")"
import json, sys
seqs = set()
for line in open(sys.argv[1]):
    j = json.loads(line)
    assert j["action"] == "auth-bad" and j["status"] == "suspended", j
    seqs.add(json.loads(j["message"])["seq"])
assert len(seqs) == 2000, len(seqs)
EOF
expect_stat indexed = 0
expect_stat http_errors -gt 0
r401=$(grep -c "status=401" "$TESTDIR/proxy-auth.req")
log "ok 3: basic auth: $N indexed with the right password; wrong one: $r401 requests got 401, $bad given up, none indexed ($((SECONDS - t)) s)"

# --- 4. rebindinterval ------------------------------------------------------------------
t=$SECONDS
start_proxy rebind
RB_PROXY=$DAEMON_PID
WAIT_INDEX=1 run_case rebind "$N" "server=\"127.0.0.1:$PROXY_PORT\" rebindinterval=\"1000\"
       action.resumeRetryCount=\"-1\" action.resumeInterval=\"1\""
kill "$RB_PROXY"
es_check_seq rebind "$N"
no_errors rebind
conns=$(bulk_conns "$TESTDIR/proxy-rebind.req")
reqs=$(bulk_reqs "$TESTDIR/proxy-rebind.req")
# a new connection once >= 1000 documents went over the old one: at most
# N/1000 + 1 connections, at least N/(1000 + 500) (batches of <= 500)
[ "$conns" -ge $((N / 1500)) ] && [ "$conns" -le $((N / 1000 + 1)) ] ||
	fail "expected $((N / 1500))..$((N / 1000 + 1)) connections for $N documents with rebindinterval 1000, got $conns (for $reqs requests)"
log "ok 4: rebindinterval=1000: $conns connections for $reqs requests ($((SECONDS - t)) s)"

# --- 5. indextimeout ----------------------------------------------------------------------
t=$SECONDS
start_proxy slow --delay-first 2:3000
SLOW_PROXY=$DAEMON_PID
WAIT_INDEX=1 run_case slow "$N" "server=\"127.0.0.1:$PROXY_PORT\" indextimeout=\"1000\"
       bulkid=\"es_id\" dynbulkid=\"on\"
       action.resumeRetryCount=\"-1\" action.resumeInterval=\"1\""
sleep 3    # the held requests reach Elasticsearch late: they must not add documents
got=$(es_count slow)
[ "$got" = "$N" ] || fail "expected $N documents after the late requests, got $got"
kill "$SLOW_PROXY"
es_check_seq slow "$N"
no_errors slow
grep -q "timed out" "$CASE_LOG" || fail "expected a log line on the timed-out request, got none"
expect_stat connection_errors -ge 2
expect_stat failed = 0
log "ok 5: indextimeout=1000: $(es_stats_field "$CASE_LOG" connection_errors) requests timed out, $N indexed once ($((SECONDS - t)) s)"
exit 0
