# tests/lib.sh - shared helpers for the shell-driven integration and
# differential tests. Sourced (never executed) by every tests/integration/*.sh
# script and by tests/diff/run_diff.sh, as:
#
#   . "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
#
# What it gives a test:
#   TESTDIR       private temp dir under ${TMPDIR:-/tmp}, removed at exit
#                 unless KEEP=1 (or the test failed and KEEP_ON_FAIL=1)
#   PORT          a free 127.0.0.1 TCP port (get_free_port gives more)
#   DUT           the daemon under test: tools/sluiced of the build tree, or
#                 rsyslogd when SLUICE_DUT=rsyslogd (proves the tests with the
#                 reference); DUT_NAME is "sluiced" or "rsyslogd"
#   TCPFLOOD, CHECK_SEQ, RSYSLOGD   paths of the helper tools
#   start_dut CONF [PORT]       start the daemon under test in the foreground
#   start_sluiced CONF [PORT]   ... sluiced explicitly
#   start_rsyslogd CONF [PORT]  ... rsyslogd explicitly (wrapped so it never
#                 touches /dev/log and keeps its work files in TESTDIR)
#                 Each sets DAEMON_PID and waits (20 s max) until PORT accepts
#                 connections; a daemon that dies on start is a failure.
#   stop_daemon [PID]           SIGTERM, wait (30 s max, then SIGKILL + fail)
#   hup_daemon [PID]            SIGHUP
#   wait_lines FILE N TIMEOUT   wait until FILE has >= N lines (fails the
#                 test on timeout or when no line came for 15 s)
#   try_wait_lines FILE N TIMEOUT  same, but returns 1 instead of failing
#   wait_stable TIMEOUT PATH... wait until the total size of PATHs (files or
#                 dirs) stayed unchanged for about 1 s
#   fail "expected X, got Y"    print the reason, daemon logs, exit 1
#   skip "why"                  exit 77
#   require_tool NAME PATH      skip when a helper tool is missing
#
# Threading model: plain sequential shell; daemons run as background jobs of
# the test shell and are killed by the EXIT trap if a test dies early.

set -u

# --- locations -------------------------------------------------------------
if [ -z "${srcdir:-}" ]; then
	srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fi
srcdir=$(cd "$srcdir" && pwd)
top_builddir=${top_builddir:-.}
if [ ! -x "$top_builddir/tools/sluiced" ] && [ ! -x "$top_builddir/tools/tcpflood" ] &&
   [ -x "$srcdir/tools/tcpflood" ]; then
	top_builddir=$srcdir
fi
top_builddir=$(cd "$top_builddir" && pwd)
export srcdir top_builddir

TCPFLOOD=${TCPFLOOD:-$top_builddir/tools/tcpflood}
CHECK_SEQ=${CHECK_SEQ:-$srcdir/tests/check_seq.py}
SLUICED=${SLUICED:-$top_builddir/tools/sluiced}
RSYSLOGD=${RSYSLOGD:-$(command -v rsyslogd 2>/dev/null || echo /usr/sbin/rsyslogd)}

if [ "${SLUICE_DUT:-sluiced}" = rsyslogd ]; then
	DUT=$RSYSLOGD
	DUT_NAME=rsyslogd
else
	DUT=$SLUICED
	DUT_NAME=sluiced
fi

TEST_NAME=$(basename "$0" .sh)
DAEMON_PID=
_SL_PIDS=""
_SL_LOGS=""
_SL_FAILED=0

# --- messages and exits ----------------------------------------------------
log() { printf '%s: %s\n' "$TEST_NAME" "$*" >&2; }

# fail MESSAGE: the test failed; MESSAGE says what was expected and what came.
fail() {
	_SL_FAILED=1
	printf '%s: FAIL: %s\n' "$TEST_NAME" "$*" >&2
	local f
	for f in $_SL_LOGS; do
		if [ -s "$f" ]; then
			printf -- '--- last lines of %s ---\n' "$f" >&2
			tail -n 20 "$f" >&2
		fi
	done
	exit 1
}

skip() {
	printf '%s: SKIP: %s\n' "$TEST_NAME" "$*" >&2
	exit 77
}

# require_tool NAME PATH: skip (77) when the executable PATH is missing.
require_tool() {
	[ -x "$2" ] || skip "$1 not found at $2"
}

# --- temp dir and cleanup --------------------------------------------------
TESTDIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-$TEST_NAME.XXXXXX") || {
	echo "cannot create temp dir" >&2; exit 99; }

# kill_daemons: SIGKILLs every daemon this shell started and has not stopped
# (a subshell that starts daemons sets `trap kill_daemons EXIT` itself).
kill_daemons() {
	local p
	for p in $_SL_PIDS; do
		if kill -0 "$p" 2>/dev/null; then
			kill -KILL "$p" 2>/dev/null
			wait "$p" 2>/dev/null
		fi
	done
	_SL_PIDS=""
}

_sl_cleanup() {
	local rc=$?
	kill_daemons
	if [ "${KEEP:-0}" = 1 ] || { [ "$rc" != 0 ] && [ "$rc" != 77 ] &&
				     [ "${KEEP_ON_FAIL:-0}" = 1 ]; }; then
		echo "$TEST_NAME: kept $TESTDIR" >&2
	else
		rm -rf "$TESTDIR"
	fi
	exit "$rc"
}
trap _sl_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- ports -------------------------------------------------------------------
# get_free_port: prints a 127.0.0.1 TCP port that was free a moment ago
# and that this test has not been given before (the kernel may hand out
# the same free port twice while neither is bound yet).
get_free_port() {
	python3 -c 'import os, socket, sys
used = set(open(sys.argv[1]).read().split()) if os.path.exists(sys.argv[1]) else set()
for _ in range(100):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = str(s.getsockname()[1])
    s.close()
    if p not in used:
        break
open(sys.argv[1], "a").write(p + "\n")
print(p)' "$TESTDIR/.ports"
}

# port_open PORT: true if 127.0.0.1:PORT accepts a TCP connection.
port_open() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

PORT=$(get_free_port) || fail "expected a free port, got none"

# --- daemons -----------------------------------------------------------------
# _sl_start NAME PORT CMD...: starts CMD in the background with its output in
# TESTDIR/NAME.log, sets DAEMON_PID, waits until PORT accepts connections.
_sl_start() {
	local name=$1 port=$2 i
	shift 2
	local logf="$TESTDIR/$name.log"
	"$@" >"$logf" 2>&1 &
	DAEMON_PID=$!
	_SL_PIDS="$_SL_PIDS $DAEMON_PID"
	_SL_LOGS="$_SL_LOGS $logf"
	[ -z "$port" ] && return 0
	for ((i = 0; i < 200; i++)); do
		if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
			wait "$DAEMON_PID"
			fail "expected $name to listen on port $port, got exit status $? on start ($*)"
		fi
		port_open "$port" && return 0
		sleep 0.1
	done
	fail "expected $name to accept connections on port $port within 20 s, got none"
}

# start_sluiced CONF [PORT]: starts sluiced -n with CONF (port defaults to $PORT).
start_sluiced() {
	require_tool sluiced "$SLUICED"
	local conf=$1 port=${2-$PORT}
	_sl_start "sluiced.$port" "$port" "$SLUICED" -n -f "$conf" \
		-i "$TESTDIR/sluiced.$port.pid"
}

# start_rsyslogd CONF [PORT]: starts rsyslogd -n with CONF. CONF is included
# from a wrapper that keeps rsyslogd's internal messages inside the daemon
# (processInternalMessages: they go to the default ruleset, never /dev/log)
# and its work files in a private dir; CONF itself must load no imuxsock.
start_rsyslogd() {
	require_tool rsyslogd "$RSYSLOGD"
	local conf=$1 port=${2-$PORT}
	local wd="$TESTDIR/rsyslogd.$port.work"
	mkdir -p "$wd"
	cat >"$wd/wrapper.conf" <<-EOF
	global(processInternalMessages="on" workDirectory="$wd")
	include(file="$(cd "$(dirname "$conf")" && pwd)/$(basename "$conf")")
	EOF
	_sl_start "rsyslogd.$port" "$port" "$RSYSLOGD" -n -f "$wd/wrapper.conf" \
		-i "$wd/rsyslogd.pid"
}

# start_dut CONF [PORT]: starts the daemon under test (see SLUICE_DUT).
start_dut() {
	if [ "$DUT_NAME" = rsyslogd ]; then
		start_rsyslogd "$@"
	else
		start_sluiced "$@"
	fi
}

# check_config CONF: runs the daemon under test with -N1; prints its output,
# returns its exit status.
check_config() {
	if [ "$DUT_NAME" = rsyslogd ]; then
		"$RSYSLOGD" -N1 -f "$1" 2>&1
	else
		"$SLUICED" -N1 -f "$1" 2>&1
	fi
}

# stop_daemon [PID]: SIGTERM, then wait up to 30 s for exit status 0;
# SIGKILL and fail after that, fail on a non-zero exit status.
stop_daemon() {
	local pid=${1:-$DAEMON_PID} i rc
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 300; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		fail "expected daemon $pid to exit within 30 s of SIGTERM, got a hang (killed)"
	fi
	wait "$pid"
	rc=$?
	_SL_PIDS=$(echo "$_SL_PIDS" | tr ' ' '\n' | grep -vx "$pid" | tr '\n' ' ')
	[ "$pid" = "$DAEMON_PID" ] && DAEMON_PID=
	[ "$rc" = 0 ] || fail "expected daemon $pid to exit 0 after SIGTERM, got $rc"
	return 0
}

# hup_daemon [PID]: sends SIGHUP.
hup_daemon() {
	kill -HUP "${1:-$DAEMON_PID}" || fail "expected to signal daemon, got no process"
}

# count_lines FILE: number of LF-terminated lines (0 if FILE is missing).
count_lines() {
	if [ -f "$1" ]; then
		wc -l <"$1" | tr -d ' '
	else
		echo 0
	fi
}

# try_wait_lines FILE N TIMEOUT: waits until FILE holds at least N lines.
# Returns 1 when TIMEOUT seconds pass first, when the line count has not
# grown for STALL_TIMEOUT (default 15) seconds, or when the daemon died;
# WAIT_GOT then holds the last count and WAIT_WHY the reason.
try_wait_lines() {
	local file=$1 n=$2 timeout=${3:-60} deadline last=-1 since=$SECONDS
	deadline=$((SECONDS + timeout))
	WAIT_GOT=0
	while :; do
		WAIT_GOT=$(count_lines "$file")
		[ "$WAIT_GOT" -ge "$n" ] && return 0
		if [ -n "$DAEMON_PID" ] && ! kill -0 "$DAEMON_PID" 2>/dev/null; then
			WAIT_WHY="the daemon died"
			return 1
		fi
		if [ "$WAIT_GOT" != "$last" ]; then
			last=$WAIT_GOT
			since=$SECONDS
		elif [ $((SECONDS - since)) -ge "${STALL_TIMEOUT:-15}" ]; then
			WAIT_WHY="no new line for ${STALL_TIMEOUT:-15} s"
			return 1
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			WAIT_WHY="timeout after $timeout s"
			return 1
		fi
		sleep 0.2
	done
}

# wait_lines FILE N TIMEOUT: try_wait_lines, failing the test (saying how
# many lines came) when they do not all come.
wait_lines() {
	try_wait_lines "$@" ||
		fail "expected $2 lines in $1 within ${3:-60} s, got $WAIT_GOT ($WAIT_WHY)"
}

# udp_conf FILE TCPPORT IMUDP_MODULE_PARAMS RCVBUFSIZE TEMPLATE OUT: a
# config with one imudp input on $PORT (127.0.0.1) whose messages go to
# OUT through the string template TEMPLATE, and an idle imtcp input on
# TCPPORT, which start_sluiced waits for.
udp_conf() {
	cat >"$1" <<-EOF
	module(load="imudp" $3)
	module(load="imtcp")
	input(type="imtcp" port="$2" address="127.0.0.1" ruleset="none")
	ruleset(name="none") { }
	input(type="imudp" port="$PORT" address="127.0.0.1" rcvBufSize="$4")
	template(name="t" type="string" string="$5")
	action(type="omfile" file="$6" template="t")
	EOF
}

# require_page_cache: skips the test unless fincore (util-linux) can tell
# what of a file in $TESTDIR is in the page cache (not on tmpfs, whose
# pages are the file itself).
require_page_cache() {
	command -v fincore >/dev/null || skip "fincore (util-linux) not installed"
	[ "$(stat -f -c %T "$TESTDIR")" != tmpfs ] || skip "$TESTDIR is on tmpfs (no page cache to drop)"
}

# cached_bytes FILE [UNIT]: how much of FILE is in the page cache (fincore,
# util-linux), in units of UNIT bytes (default 1), rounded down.
cached_bytes() {
	fincore -n -b -o RES "$1" | awk -v u="${2:-1}" '{print int($1 / u)}'
}

# _sl_size PATH...: total size in bytes of files (recursively) under PATHs.
_sl_size() {
	find "$@" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}'
}

# wait_stable TIMEOUT PATH...: waits until the total size of PATHs has not
# changed for about 1 s (5 checks 0.2 s apart); returns 1 on timeout.
wait_stable() {
	local timeout=$1 last=-1 cur same=0 deadline
	shift
	deadline=$((SECONDS + timeout))
	while [ "$SECONDS" -lt "$deadline" ]; do
		cur=$(_sl_size "$@")
		if [ "$cur" = "$last" ]; then
			same=$((same + 1))
			[ "$same" -ge 5 ] && return 0
		else
			same=0
			last=$cur
		fi
		sleep 0.2
	done
	return 1
}

# send_file FILE [PORT]: writes the bytes of FILE to 127.0.0.1:PORT over one
# TCP connection and closes it cleanly.
send_file() {
	python3 - "$1" "${2:-$PORT}" <<-'EOF'
	import socket, sys
	data = open(sys.argv[1], "rb").read()
	s = socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=30)
	s.sendall(data)
	s.shutdown(socket.SHUT_WR)
	s.settimeout(5)
	try:
	    while s.recv(4096):
	        pass
	except OSError:
	    pass
	s.close()
	EOF
}
