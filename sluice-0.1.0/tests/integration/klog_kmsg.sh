#!/bin/bash
# klog_kmsg.sh - imklog: records in /dev/kmsg format from a file named by
# the module parameter logPath (rsyslog's $KLogPath): facility kern and the
# record's severity, TAG "kernel:", HOSTNAME the local host, continuation
# lines ignored, a leading "<N>" and a secondary PRI honoured, other
# facilities dropped unless permitNonKernelFacility; records appended while
# the daemon runs are followed; parseKernelTimestamp gives timereported
# from the record. When /dev/kmsg itself is writable (root), a line written
# there must arrive too.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

[ "$DUT_NAME" = sluiced ] || skip "rsyslogd's kmsg reader has no logPath to point at a test file"
KMSG="$TESTDIR/kmsg"
OUT="$TESTDIR/out.log"
TRAD="$TESTDIR/trad.log"
printf '%s\n' \
	'6,1,1000,-;hello kernel one' \
	' SUBSYSTEM=acpi' \
	' DEVICE=+acpi:LNXPWRBN:00' \
	'4,2,2000,-;<3>second with a pri' \
	'14,3,3000,-;written by userspace' \
	'3,4,4000,-;abc <30>secondary pri of another facility' \
	'garbage without a header' \
	'2,5,5000,c;usb 1-1: new device' >"$KMSG"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imklog" logPath="$KMSG")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="props" type="string" string="%inputname%|%fromhost-ip%|%hostname%|%syslogtag%|%programname%|%pri-text%|%msg%\n")
action(type="omfile" file="$OUT" template="props")
action(type="omfile" file="$TRAD" template="RSYSLOG_TraditionalFileFormat")
EOF
start_dut "$TESTDIR/test.conf"
wait_lines "$OUT" 3 20
printf '%s\n' '5,6,6000,-;appended later' >>"$KMSG"
wait_lines "$OUT" 4 20
sleep 0.5
stop_daemon
H=$(hostname)
want="imklog|127.0.0.1|$H|kernel:|kernel|kern.info|hello kernel one
imklog|127.0.0.1|$H|kernel:|kernel|kern.err|second with a pri
imklog|127.0.0.1|$H|kernel:|kernel|kern.crit|usb 1-1: new device
imklog|127.0.0.1|$H|kernel:|kernel|kern.notice|appended later"
got=$(cat "$OUT")
[ "$got" = "$want" ] || fail "expected
$want
got
$got"
bad=$(grep -cvE "^[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} $H kernel: " "$TRAD")
[ "$bad" = 0 ] || fail "expected traditional lines 'Mmm dd hh:mm:ss $H kernel: ...', got $(cat "$TRAD")"

# permitNonKernelFacility and parseKernelTimestamp: a record at 5 s after
# boot has timereported = boot time + 5 s.
printf '%s\n' '14,1,5000000,-;user record' '6,2,5000000,-;kernel record' >"$KMSG"
rm -f "$OUT"
cat >"$TESTDIR/test2.conf" <<EOF
module(load="imklog" logPath="$KMSG" permitNonKernelFacility="on" parseKernelTimestamp="on")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="ts" type="string" string="%pri-text%|%timereported:::date-unixtimestamp%|%msg%\n")
action(type="omfile" file="$OUT" template="ts")
EOF
start_dut "$TESTDIR/test2.conf"
wait_lines "$OUT" 2 20
stop_daemon
boot=$(python3 -c 'import time; print(int(time.clock_gettime(time.CLOCK_REALTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)))')
while IFS='|' read -r pri ts msg; do
	case "$pri|$msg" in
	"user.info|user record"|"kern.info|kernel record") ;;
	*) fail "expected 'user.info|user record' and 'kern.info|kernel record', got '$pri|$msg'" ;;
	esac
	d=$((ts - boot - 5))
	[ "${d#-}" -le 2 ] || fail "expected timereported = boot time ($boot) + 5 s, got $ts"
done <"$OUT"

# The real device, when we may write to it (root on Linux).
if [ -w /dev/kmsg ] && [ -r /dev/kmsg ]; then
	rm -f "$OUT"
	marker="sluice-klog-test-$$-$RANDOM"
	cat >"$TESTDIR/test3.conf" <<EOF
module(load="imklog" permitNonKernelFacility="on")
module(load="imtcp")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="props" type="string" string="%syslogtag%|%pri-text%|%msg%\n")
if \$msg contains "$marker" then action(type="omfile" file="$OUT" template="props")
EOF
	start_dut "$TESTDIR/test3.conf"
	echo "<13>sluicetest: $marker" >/dev/kmsg || fail "expected to write to /dev/kmsg, got an error"
	wait_lines "$OUT" 1 20
	sleep 0.5
	stop_daemon
	got=$(cat "$OUT")
	[ "$got" = "kernel:|user.notice|sluicetest: $marker" ] ||
		fail "expected 'kernel:|user.notice|sluicetest: $marker' from /dev/kmsg, got '$got'"
	log "ok: /dev/kmsg itself"
else
	log "note: /dev/kmsg not writable here; the device part was not run"
fi
log "ok: kmsg records with the right properties, non-kernel facilities, kernel timestamps"
exit 0
