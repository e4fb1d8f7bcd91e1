#!/bin/bash
# ab.sh — two sluiced binaries on one ../shared/bench scenario, run after
# run in turn (A, B, A, B, ...), for measuring a change: the same configs,
# the same input, the same machine state for both. Prints per run the
# messages/s, CPU (user + system) and the verification of the first run.
#
#   tests/bench/ab.sh SCENARIO VARIANT|- N RUNS BIN_A BIN_B
#   e.g. tests/bench/ab.sh bsd-tcp imtcp 10000000 3 /tmp/old/tools/sluiced tools/sluiced
#
# UDP: UDP_RATE=R sends at R datagrams/s (../shared/bench's default is
# 100,000; 0 = as fast as the sender can), as for profile.sh.
# Build the other binary in a worktree (git worktree add /tmp/old REV;
# cd /tmp/old && autoreconf -fi && ./configure && make -j2).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=${BENCH_DIR:-$top/../shared/bench}
scen=${1:?scenario} var=${2:?variant or -} n=${3:?N} runs=${4:?runs}
A=$(realpath "${5:?binary A}") B=$(realpath "${6:?binary B}")
vargs=()
[ "$var" != "-" ] && vargs=(--variant "$var")
[ -n "${UDP_RATE:-}" ] && vargs+=(--rate "$UDP_RATE")
for ((i = 1; i <= runs; i++)); do
	for bin in "$A" "$B"; do
		tag=A
		[ "$bin" = "$B" ] && tag=B
		SLUICED=$bin "$bench/run.sh" --daemon sluice "${vargs[@]}" --scenario "$scen" --n "$n" \
			--runs 1 --results /dev/null --verify "$([ "$i" = 1 ] && echo first || echo none)" \
			2>/dev/null | grep '^RESULT' |
			awk -v t="$tag" '{ printf "%s", t; for (i = 1; i <= NF; i++)
				if ($i ~ /^(msgs_per_s|daemon_cpu_s|daemon_user_s|daemon_sys_s|lost|dup|verify)=/)
					printf " %s", $i; print "" }'
	done
done
