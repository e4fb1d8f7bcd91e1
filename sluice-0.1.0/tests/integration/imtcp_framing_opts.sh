#!/bin/bash
# imtcp_framing_opts.sh - imtcp's framing options against Debian's rsyslogd:
# the same bytes sent to an imtcp input of sluiced and of rsyslogd with
# addtlFrameDelimiter (NUL), disableLFDelimiter, framingfix.cisco.asa and
# supportOctetCountedFraming="off" must give the same messages (%rawmsg%
# of every frame, in order). rsyslogd is the oracle: a difference fails.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool rsyslogd "$RSYSLOGD"
require_tool sluiced "$SLUICED"

CASES="nul nolf asa nooctet"
declare -A OPTS=(
	[nul]='addtlFrameDelimiter="0"'
	[nolf]='addtlFrameDelimiter="0" disableLFDelimiter="on"'
	[asa]='framingfix.cisco.asa="on"'
	[nooctet]='supportOctetCountedFraming="off"'
)
# the bytes each case gets (printf format)
declare -A DATA=(
	[nul]='<13>host a: one\000<13>host a: two\n<13>host a: three\000\000<13>host a: four\n'
	[nolf]='<13>host a: multi\nline\000<13>host a: second\000'
	[asa]=' <13>host asa: one\n <13>host asa: two\n<13>host asa: three\n  <13>host asa: four\n'
	[nooctet]='12 <13>host a: x\n<13>host a: plain\n'
)

# make_conf FILE OUT PORTVAR-PREFIX: one input per case, named after it
make_conf() {
	local f=$1 out=$2 pfx=$3 c
	{
		echo 'module(load="imtcp")'
		for c in $CASES; do
			local pv="${pfx}_$c"
			echo "input(type=\"imtcp\" port=\"${!pv}\" address=\"127.0.0.1\" name=\"$c\" ${OPTS[$c]})"
		done
		echo 'template(name="t" type="string" string="%inputname%|%rawmsg%|\n")'
		echo "if \$inputname != \"rsyslogd\" then action(type=\"omfile\" file=\"$out\" template=\"t\")"
	} >"$f"
}

for c in $CASES; do
	eval "S_$c=$(get_free_port)"
	eval "R_$c=$(get_free_port)"
done
make_conf "$TESTDIR/sluice.conf" "$TESTDIR/sluice.out" S
make_conf "$TESTDIR/rsyslog.conf" "$TESTDIR/rsyslog.out" R
start_sluiced "$TESTDIR/sluice.conf" "$S_nul"
SL_PID=$DAEMON_PID
start_rsyslogd "$TESTDIR/rsyslog.conf" "$R_nul"
RS_PID=$DAEMON_PID
for c in $CASES; do
	printf "${DATA[$c]}" >"$TESTDIR/$c.bin"
	sp="S_$c" rp="R_$c"
	port_open "${!sp}" || fail "expected sluiced to listen on ${!sp} ($c)"
	port_open "${!rp}" || fail "expected rsyslogd to listen on ${!rp} ($c)"
	send_file "$TESTDIR/$c.bin" "${!sp}"
	send_file "$TESTDIR/$c.bin" "${!rp}"
done
sleep 1
stop_daemon "$SL_PID"
stop_daemon "$RS_PID"
for c in $CASES; do
	grep "^$c|" "$TESTDIR/sluice.out" >"$TESTDIR/$c.sluice" || true
	grep "^$c|" "$TESTDIR/rsyslog.out" >"$TESTDIR/$c.rsyslog" || true
	[ -s "$TESTDIR/$c.rsyslog" ] || fail "expected rsyslogd to log something for case $c, got nothing"
	diff -u "$TESTDIR/$c.rsyslog" "$TESTDIR/$c.sluice" >&2 ||
		fail "expected sluice's messages for case $c (${OPTS[$c]}) to be rsyslogd's, got the diff above (- rsyslogd, + sluiced)"
done
log "ok: $(cat "$TESTDIR"/*.sluice | wc -l) frames in $CASES cut exactly as rsyslogd cuts them"
exit 0
