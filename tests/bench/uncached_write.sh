#!/bin/bash
# uncached_write.sh — the figures of doc/benchmarks.md "Uncached writes":
# the writer's system time (and the whole machine's busy time, with the
# writeback) for writing through the page cache, uncached (RWF_DONTCACHE)
# or direct (O_DIRECT, 256 KiB buffers): on memory
# left idle for a while; right after a big file was deleted (pages the
# kernel has just freed); and 10 s after a big file was deleted, which is
# how a daemon's run in ../shared/bench starts (the other daemon's output
# was deleted, then the harness verified and set up the next run).
#
#   tests/bench/uncached_write.sh [DIR]     (default /var/tmp; needs ~6 GB)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-/var/tmp}
bin=$(mktemp /tmp/uncached_write.XXXXXX)
trap 'rm -f "$bin" "$dir/uw-big.out" "$dir/uw.out"' EXIT
gcc -O2 -o "$bin" "$top/tests/bench/uncached_write.c"
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
run() { # BYTES CHUNK MODE
	local b0 b1
	b0=$(busy)
	"$bin" "$dir/uw.out" "$1" "$2" "$3"
	sync
	b1=$(busy)
	echo "  whole machine, with writeback: $(( (b1 - b0) * 10 )) ms"
	rm -f "$dir/uw.out"
}
echo "== memory idle for a while (30 s pause before each)"
for mode in 0 1 2 0 1 2; do
	sleep 30
	run 3000000000 262144 "$mode"
done
for pause in 0 10; do
	echo "== $pause s after deleting a 3.8 GB file"
	for mode in 0 1 2 0 1 2; do
		"$bin" "$dir/uw-big.out" 3800000000 262144 0 >/dev/null
		sync
		rm -f "$dir/uw-big.out"
		sleep "$pause"
		run 3800000000 "$([ "$mode" = 2 ] && echo 262144 || echo 200003)" "$mode"
	done
done
