#!/bin/bash
# run_fuzz.sh - the CI run of the fuzz harnesses in tests/fuzz/ (framing
# now): builds each harness with libFuzzer (clang -fsanitize=fuzzer with
# ASan and UBSan) when that works, else as a standalone program
# (fuzz_main.c) with ASan/UBSan when the compiler has them, replays the
# seed corpus and fuzzes for FUZZ_SECONDS (default 15) each. Fails on any
# crash, sanitizer report or harness check; the failing input is kept in
# the test's directory (KEEP_ON_FAIL=1) to become a regression seed in
# tests/fuzz/corpus/. Longer runs: see tests/fuzz/README.md.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

SECS=${FUZZ_SECONDS:-15}
FUZZ=$srcdir/tests/fuzz
CLANG=${CLANG:-$(command -v clang 2>/dev/null)}
CC=${CC:-cc}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

for h in framing; do
	src="$FUZZ/fuzz_$h.c $srcdir/runtime/$h.c"
	bin=$TESTDIR/fuzz_$h
	mode=
	if [ -n "$CLANG" ] && "$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -I"$srcdir/runtime" $src -o "$bin" 2>"$TESTDIR/cc.log"; then
		mode=libFuzzer
	elif "$CC" -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-I"$srcdir/runtime" $src "$FUZZ/fuzz_main.c" -o "$bin" 2>"$TESTDIR/cc.log"; then
		mode="standalone+ASan"
	elif "$CC" -g -O1 -I"$srcdir/runtime" $src "$FUZZ/fuzz_main.c" -o "$bin" 2>"$TESTDIR/cc.log"; then
		mode=standalone
	else
		fail "expected the $h harness to compile, got: $(head -n5 "$TESTDIR/cc.log")"
	fi
	log "fuzzing $h for $SECS s ($mode)"
	cd "$TESTDIR" || fail "expected to enter $TESTDIR"
	if [ "$mode" = libFuzzer ]; then
		mkdir -p "$TESTDIR/corpus-$h"
		"$bin" -max_total_time="$SECS" -seed="${FUZZ_SEED:-1}" -print_final_stats=0 \
			"$TESTDIR/corpus-$h" "$FUZZ/corpus/$h" >"$TESTDIR/fuzz-$h.log" 2>&1 ||
			fail "expected no crash fuzzing $h, got: $(grep -E 'ERROR|SUMMARY|fuzz_framing|Test unit' "$TESTDIR/fuzz-$h.log" | head -n8)"
		log "$(grep -E '^Done [0-9]+ runs' "$TESTDIR/fuzz-$h.log")"
	else
		FUZZ_SECONDS=$SECS "$bin" "$FUZZ/corpus/$h" >"$TESTDIR/fuzz-$h.log" 2>&1 ||
			fail "expected no crash fuzzing $h, got: $(tail -n8 "$TESTDIR/fuzz-$h.log")"
		log "$(tail -n1 "$TESTDIR/fuzz-$h.log")"
	fi
	cd - >/dev/null || true
done
exit 0
