#!/bin/bash
# run-all.sh - runs `make check`
# in the top build dir (unit tests and tests/integration/*.sh), then the
# differential tests (tests/diff/run_diff.sh, real rsyslogd vs sluiced),
# then the service tests (tests/services/*_test.sh, real Kafka and
# Elasticsearch on 127.0.0.1, fetched with mvn; each counts as one test).
# Builds nothing beyond what `make check` builds; run it from the top build
# dir (or set top_builddir). Prints the per-suite output, then a closing line
# "N passed, N failed" counting automake tests, diff configs and service
# tests; exits
# non-zero if anything failed. Skipped tests count in neither number.
set -u
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
export srcdir
cd "$top_builddir" || { echo "run-all: no build dir $top_builddir"; exit 2; }

LOG=$(mktemp "${TMPDIR:-/tmp}/sluice-run-all.XXXXXX")
trap 'rm -f "$LOG"' EXIT

passed=0
failed=0
skipped=0

# summary_field NAME: the number on automake's "# NAME: N" summary line
summary_field() {
	sed -n "s/^# $1: *\\([0-9][0-9]*\\).*/\\1/p" "$LOG" | tail -n 1
}

echo "=== make check"
make check 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
sed -i 's/\x1b\[[0-9;]*m//g' "$LOG"
total=$(summary_field TOTAL)
if [ -n "$total" ]; then
	passed=$((passed + $(summary_field PASS) + $(summary_field XFAIL)))
	failed=$((failed + $(summary_field FAIL) + $(summary_field ERROR) + $(summary_field XPASS)))
	skipped=$((skipped + $(summary_field SKIP)))
	if [ "$rc" != 0 ] && [ -f test-suite.log ]; then
		echo "=== test-suite.log (first 300 lines)"
		head -n 300 test-suite.log
	fi
fi
if [ "$rc" != 0 ] && [ -z "$total" ]; then
	echo "run-all: make check failed before running tests (status $rc)"
	failed=$((failed + 1))
elif [ "$rc" != 0 ] && [ "$(summary_field FAIL)$(summary_field ERROR)$(summary_field XPASS)" = 000 ]; then
	echo "run-all: make check failed (status $rc) with no failed test"
	failed=$((failed + 1))
fi

# Check's own summary line of each unit test ("100%: Checks: N, Failures: 0,
# Errors: 0"): automake keeps it in the test's .log file
echo "=== unit tests (Check summaries)"
for f in tests/unit/test_*.log; do
	[ -f "$f" ] && echo "$(basename "$f" .log): $(grep -E 'Checks: [0-9]+' "$f" | tail -n 1)"
done

echo "=== differential tests"
"$srcdir/tests/diff/run_diff.sh" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
line=$(grep -E '^diff: [0-9]+ passed, [0-9]+ failed$' "$LOG" | tail -n 1)
if [ "$rc" = 77 ]; then
	echo "run-all: differential tests skipped"
	skipped=$((skipped + 1))
elif [ -n "$line" ]; then
	p=${line#diff: }
	p=${p%% *}
	f=${line##*passed, }
	f=${f%% *}
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		failed=$((failed + 1))
	fi
else
	echo "run-all: run_diff.sh ended without a summary (status $rc)"
	failed=$((failed + 1))
fi

echo "=== service tests"
# tests/services/*_test.sh: real Kafka / Elasticsearch servers on 127.0.0.1
# (see tests/services/*.sh); exit 0 = pass, 77 = skip, anything else = fail.
for t in "$srcdir"/tests/services/*_test.sh; do
	[ -e "$t" ] || continue
	echo "--- $(basename "$t")"
	bash "$t"
	rc=$?
	case $rc in
	0) passed=$((passed + 1)); echo "PASS: $(basename "$t")" ;;
	77) skipped=$((skipped + 1)); echo "SKIP: $(basename "$t")" ;;
	*) failed=$((failed + 1)); echo "FAIL: $(basename "$t") (status $rc)" ;;
	esac
done

[ "$skipped" = 0 ] || echo "run-all: $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
