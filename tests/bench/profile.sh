#!/bin/bash
# profile.sh — where sluiced's CPU goes in one ../shared/bench scenario:
# runs the scenario once for sluiced under a system-wide `perf record`
# (cpu-clock; this machine kind has no hardware counters) and prints
#   - the split between sluiced's threads, and user space vs the kernel,
#   - the 30 functions with the most samples (self time), as shares of
#     sluiced's own samples.
# The figures in doc/benchmarks.md ("Where the time goes") come from it.
#
#   tests/bench/profile.sh SCENARIO [VARIANT|-] [N]
#   e.g. tests/bench/profile.sh ietf-tls - 5000000
#   UDP: UDP_RATE=R sends at R datagrams/s (default 200000; 0 = as fast
#   as the sender can).
#
# Needs perf, ../shared/bench (setup-anchors.sh run once). SLUICED picks
# the binary (default: tools/sluiced of this tree). The perf data is kept
# in $PROFILE_OUT (default /var/tmp/sluice-profile-SCENARIO.data).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=${BENCH_DIR:-$top/../shared/bench}
scenario=${1:?scenario}
variant=${2:--}
n=${3:-5000000}
out=${PROFILE_OUT:-/var/tmp/sluice-profile-$scenario.data}
export SLUICED=${SLUICED:-$top/tools/sluiced}
command -v perf >/dev/null || { echo "profile.sh: perf is not installed" >&2; exit 2; }
vargs=()
[ "$variant" != "-" ] && vargs=(--variant "$variant")
extra=()
[ "$scenario" = udp ] && extra=(--rate ${UDP_RATE:-200000})

# perf runs for the whole benchmark; the samples of other processes
# (sender, harness) are left out by --comm below.
perf record -e cpu-clock -F 2000 -a -g -o "$out" -- \
	"$bench/run.sh" --daemon sluice "${vargs[@]}" --scenario "$scenario" --n "$n" --runs 1 \
	--verify none --results /dev/null "${extra[@]}" 2>/dev/null | grep -E '^RESULT' || true

# the benchmark's daemon: the sluiced process with the most samples (other
# sluiced processes on the machine are left out)
pid=$(perf script -i "$out" --comm sluiced -F pid 2>/dev/null | sort | uniq -c | sort -rn | awk 'NR == 1 {print $2}')
report() { perf report -i "$out" --pid "$pid" --no-children --stdio -g none --percentage relative "$@" 2>/dev/null | grep -E '^\s+[0-9]'; }
all=$(perf script -i "$out" -F pid 2>/dev/null | awk -v p="$pid" '{n++} $1 == p {m++} END {printf "%.1f", 100 * m / n}')
echo "== sluiced (pid $pid): ${all}% of all samples on the machine (2 cores, whole run)"
echo "== by thread (shares of sluiced's samples)"
report --sort pid | head -8
echo "== user space vs kernel"
report --sort sym | awk '$2 == "[k]" {k += $1} $2 != "[k]" {u += $1}
	END {printf "  user %5.1f%%  kernel %5.1f%%\n", u, k}'
echo "== top functions, self"
report --sort dso,sym | head -30
