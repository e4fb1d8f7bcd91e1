#!/bin/bash
# fuzz_smoke.sh - the CI run of the parser, template and config fuzz
# harnesses (tests/fuzz/fuzz_{parser,template,config}.c; the framing
# harness has its own CI run, tests/fuzz/run_fuzz.sh). Builds them with
# clang's libFuzzer, ASan and UBSan (tests/fuzz/build.sh, objects kept in
# the build tree's tests/fuzz/bin so `make fuzz` and later runs reuse
# them), replays every regression input (tests/fuzz/regressions/NAME/),
# then fuzzes each harness for FUZZ_SECONDS (default 20) from its seed
# corpus (tests/fuzz/corpus/NAME/) plus random mutations.
# Fails on any crash, sanitizer report, leak, timeout or harness check,
# printing the failing input (base64) and the report; the input is also
# kept in the test's directory with KEEP_ON_FAIL=1, to become a regression
# file. Exit 77 (skip) when clang or its libFuzzer runtime is missing.
# env: FUZZ_SECONDS, FUZZ_SEED (default 1), FUZZ_HARNESSES.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

SECS=${FUZZ_SECONDS:-20}
FUZZ=$srcdir/tests/fuzz
BIN=$top_builddir/tests/fuzz/bin
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

log "building the harnesses in $BIN"
rc=0
"$FUZZ/build.sh" "$BIN" ${FUZZ_HARNESSES:-parser template config} >"$TESTDIR/build.log" 2>&1 || rc=$?
[ "$rc" = 77 ] && skip "$(tail -n1 "$TESTDIR/build.log")"
[ "$rc" = 0 ] || fail "expected the harnesses to build, got: $(tail -n 15 "$TESTDIR/build.log")"

# report H LOG: what went wrong, with the input (re-run it to see the
# harness's own message, which -close_fd_mask hid)
report() {
	local h=$1 logf=$2 art
	art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$logf" | tail -n1)
	{
		grep -E 'ERROR|SUMMARY|runtime error|fuzz check|Base64|Test unit|timeout' "$logf" | head -n 12
		if [ -n "$art" ] && [ -f "$art" ]; then
			echo "--- replay of $art:"
			"$BIN/fuzz_$h" "$art" 2>&1 | grep -E 'fuzz check|ERROR|runtime error|#[0-9]+ 0x' | head -n 20
		fi
	}
}

for h in ${FUZZ_HARNESSES:-parser template config}; do
	bin=$BIN/fuzz_$h
	cd "$TESTDIR" || fail "expected to enter $TESTDIR"
	# every regression input, once each (a directory may hold none yet)
	regs=("$FUZZ/regressions/$h"/*)
	if [ -e "${regs[0]}" ]; then
		"$bin" -artifact_prefix="$TESTDIR/reg-$h-" "${regs[@]}" >"$TESTDIR/reg-$h.log" 2>&1 ||
			fail "expected the $h regression inputs to pass, got: $(report "$h" "$TESTDIR/reg-$h.log")"
		log "$h: ${#regs[@]} regression inputs pass"
	fi
	mkdir -p "$TESTDIR/corpus-$h"
	"$bin" -max_total_time="$SECS" -seed="${FUZZ_SEED:-1}" -timeout=10 -rss_limit_mb=2048 \
		-close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$TESTDIR/$h-" \
		"$TESTDIR/corpus-$h" "$FUZZ/corpus/$h" >"$TESTDIR/fuzz-$h.log" 2>&1 ||
		fail "expected no crash fuzzing $h for $SECS s, got: $(report "$h" "$TESTDIR/fuzz-$h.log")"
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TESTDIR/fuzz-$h.log")
	[ "${runs:-0}" -gt 0 ] || fail "expected $h to run inputs, got: $(tail -n 5 "$TESTDIR/fuzz-$h.log")"
	log "$h: $runs inputs in $SECS s, $(grep -E '^#[0-9]+.*DONE' "$TESTDIR/fuzz-$h.log" | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' | head -n1), no crash"
	cd - >/dev/null || true
done
exit 0
