#!/bin/bash
# run_diff.sh - differential tests: every config in tests/diff/configs/*.conf
# runs through real rsyslogd (the reference) and through sluiced, both fed the
# same bytes over TCP; their output files must be identical byte for byte.
#
# usage: tests/diff/run_diff.sh [--selftest] [NAME...]
#   NAME        run only configs/NAME.conf (default: all)
#   --selftest  feed the daemon under test a slightly different input and
#               expect every config to show a difference (proves the runner
#               can fail); exit 0 when all differences were caught
# env: SLUICE_DUT=rsyslogd compares rsyslogd with itself (checks that configs
#      and inputs hold nothing that differs between runs); KEEP=1 keeps files.
#
# Config files use @PORT@, @OUT@ (the output dir: every file in it is
# compared), @WORK@ (a private work dir) and @SRCDIR@ (the source tree); a line "# diff-input: A B" names
# the input files (tests/diff/input/) sent, concatenated in that order, over
# one TCP connection ("all" or no such line = every file). Inputs named
# notime* have no usable timestamp: only time-free templates may use them.
# Prints PASS/FAIL per config and a closing "diff: N passed, N failed" line;
# exit 0 all passed, 1 some failed, 77 skipped (no rsyslogd or sluiced).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

DIFFDIR="$srcdir/tests/diff"
SELFTEST=0
NAMES=()
for a in "$@"; do
	case $a in
	--selftest) SELFTEST=1 ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) NAMES+=("$a") ;;
	esac
done

# --- the reference must be there ---------------------------------------------
if [ ! -x "$RSYSLOGD" ]; then
	if [ "$(id -u)" = 0 ] && [ "${CI:-}" = true ]; then
		echo "run_diff: installing rsyslog (reference daemon)" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y rsyslog >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get install -y rsyslog >/dev/null 2>&1; }
		RSYSLOGD=$(command -v rsyslogd 2>/dev/null || echo /usr/sbin/rsyslogd)
	fi
	[ -x "$RSYSLOGD" ] || skip "rsyslogd (the reference) is not installed"
fi
[ -x "$DUT" ] || skip "$DUT_NAME not found at $DUT"

if [ "${#NAMES[@]}" = 0 ]; then
	for c in "$DIFFDIR"/configs/*.conf; do
		NAMES+=("$(basename "$c" .conf)")
	done
fi

# inputs_of CONF: the input file paths a config asks for
inputs_of() {
	local list
	list=$(sed -n 's/^# *diff-input: *//p' "$1" | head -n1)
	if [ -z "$list" ] || [ "$list" = all ]; then
		ls "$DIFFDIR"/input/*.txt
	else
		for f in $list; do echo "$DIFFDIR/input/$f"; done
	fi
}

# instantiate CONF PORT OUT WORK DEST: writes CONF with placeholders replaced
instantiate() {
	sed -e "s#@PORT@#$2#g" -e "s#@OUT@#$3#g" -e "s#@WORK@#$4#g" \
		-e "s#@SRCDIR@#$(cd "$srcdir" && pwd)#g" "$1" >"$5"
}

# show_diff REF DUT: what differs, briefly
show_diff() {
	cmp "$1" "$2" 2>&1 | head -n 1
	diff -u --label "rsyslogd/${1##*/out/}" --label "$DUT_NAME/${2##*/out/}" \
		"$1" "$2" | head -n 40 | cut -c1-300
}

# run_one NAME: runs config NAME through both daemons; exit 0 if identical.
# Runs in a subshell: a failure to start a daemon ends only this config.
run_one() (
	trap kill_daemons EXIT
	local name=$1 conf="$DIFFDIR/configs/$1.conf" d side port f rc=0
	[ -f "$conf" ] || { echo "no such config: $conf"; exit 1; }
	d="$TESTDIR/$name"
	mkdir -p "$d"
	inputs_of "$conf" >"$d/inputs" || exit 1
	while read -r f; do
		[ -f "$f" ] || { echo "no such input: $f"; exit 1; }
	done <"$d/inputs"
	xargs cat <"$d/inputs" >"$d/input.ref"
	if [ "$SELFTEST" = 1 ]; then
		# the daemon under test gets the same input with one byte changed
		# in the first line and the last line left out
		sed -e '1s/[a-z]/Q/' -e '$d' "$d/input.ref" >"$d/input.dut"
	else
		cp "$d/input.ref" "$d/input.dut"
	fi
	for side in ref dut; do
		mkdir -p "$d/$side/out" "$d/$side/work"
		port=$(get_free_port)
		echo "$port" >"$d/$side/port"
		instantiate "$conf" "$port" "$d/$side/out" "$d/$side/work" "$d/$side/test.conf"
		if [ "$side" = ref ]; then
			# the config must be clean for the reference itself
			if ! chk=$("$RSYSLOGD" -N1 -f "$d/$side/test.conf" 2>&1) ||
			   grep -qi 'error' <<<"$chk"; then
				echo "expected rsyslogd -N1 to accept the config, got:"
				printf '%s\n' "$chk"
				exit 1
			fi
			start_rsyslogd "$d/$side/test.conf" "$port"
		else
			start_dut "$d/$side/test.conf" "$port"
		fi
		echo "$DAEMON_PID" >"$d/$side/pid"
	done
	for side in ref dut; do
		send_file "$d/input.$side" "$(cat "$d/$side/port")" ||
			{ echo "could not send the input to the $side daemon"; exit 1; }
	done
	# wait for output to start, then to settle (sizes unchanged ~1 s)
	for ((i = 0; i < 50; i++)); do
		[ "$(_sl_size "$d/ref/out")" -gt 0 ] && [ "$(_sl_size "$d/dut/out")" -gt 0 ] && break
		sleep 0.2
	done
	wait_stable 30 "$d/ref/out" "$d/dut/out" ||
		echo "warning: output still growing after 30 s"
	stop_daemon "$(cat "$d/ref/pid")"
	stop_daemon "$(cat "$d/dut/pid")"

	(cd "$d/ref/out" && find . -type f | sort) >"$d/ref.files"
	(cd "$d/dut/out" && find . -type f | sort) >"$d/dut.files"
	if ! cmp -s "$d/ref.files" "$d/dut.files"; then
		echo "expected output files (rsyslogd) vs got ($DUT_NAME):"
		diff "$d/ref.files" "$d/dut.files" | sed -n 's/^[<>]/  &/p'
		rc=1
	fi
	while read -r f; do
		[ -f "$d/dut/out/$f" ] || continue
		if ! cmp -s "$d/ref/out/$f" "$d/dut/out/$f"; then
			echo "output ${f#./} differs:"
			show_diff "$d/ref/out/$f" "$d/dut/out/$f"
			rc=1
		fi
	done <"$d/ref.files"
	[ "$(wc -l <"$d/ref.files")" -gt 0 ] || { echo "rsyslogd wrote no output"; rc=1; }
	exit $rc
)

npass=0
nfail=0
for name in "${NAMES[@]}"; do
	out=$(run_one "$name" 2>&1)
	rc=$?
	if [ "$SELFTEST" = 1 ]; then
		# a difference is the expected outcome here
		if [ "$rc" != 0 ] && grep -q 'differs:\|expected output files' <<<"$out"; then
			echo "PASS: $name (difference caught)"
			printf '%s\n' "$out" | head -n 12 | sed 's/^/    /'
			npass=$((npass + 1))
		else
			echo "FAIL: $name (selftest: difference not caught)"
			printf '%s\n' "$out" | sed 's/^/    /'
			nfail=$((nfail + 1))
		fi
	elif [ "$rc" = 0 ]; then
		echo "PASS: $name"
		npass=$((npass + 1))
	else
		echo "FAIL: $name"
		printf '%s\n' "$out" | sed 's/^/    /'
		nfail=$((nfail + 1))
	fi
done
echo "diff: $npass passed, $nfail failed"
[ "$nfail" = 0 ]
