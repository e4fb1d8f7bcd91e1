#!/bin/bash
# side_by_side.sh — runs ../shared/bench for rsyslogd and sluiced
# interleaved (one run of each in turn), then prints the medians, the
# throughput ratio and CPU-seconds per million messages.
#
#   tests/bench/side_by_side.sh SCENARIO [VARIANT|-] [N] [RUNS] [extra bench.py args]
#   e.g. tests/bench/side_by_side.sh bsd-tcp imtcp 20000000 3
#
# Needs ../shared/bench (beside the checkout) and its setup-anchors.sh run
# once. Results are appended to $BENCH_RESULTS (default
# /var/tmp/bench-results/side-by-side-SCENARIO.jsonl).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=${BENCH_DIR:-$top/../shared/bench}
scenario=${1:?scenario}
variant=${2:--}
n=${3:-5000000}
runs=${4:-3}
shift $(( $# < 4 ? $# : 4 ))
res=${BENCH_RESULTS:-/var/tmp/bench-results/side-by-side-$scenario.jsonl}
mkdir -p "$(dirname "$res")"
: > "$res"
vargs=()
[ "$variant" != "-" ] && vargs=(--variant "$variant")
export SLUICED=${SLUICED:-$top/tools/sluiced}
for ((i = 1; i <= runs; i++)); do
	for d in rsyslog sluice; do
		"$bench/run.sh" --daemon "$d" "${vargs[@]}" --scenario "$scenario" --n "$n" --runs 1 \
			--results "$res" --verify "$([ "$i" = 1 ] && echo first || echo none)" "$@" \
			| grep -E '^RESULT' || true
	done
done
python3 "$top/tests/bench/summarize.py" "$res"
