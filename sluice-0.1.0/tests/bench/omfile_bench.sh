#!/bin/bash
# omfile_bench.sh — omfile throughput of sluiced and rsyslogd, interleaved
# run by run, with the same configuration files
# (tests/bench/configs-omfile/SCENARIO.conf) and the same input.
#
#   tests/bench/omfile_bench.sh SCENARIO [N] [RUNS]
#   SCENARIO: static | dynafile | dynafile-small-cache | gzip
#
# One tcpflood connection sends N messages (lines of 1,000 hosts, so the
# dynaFile scenarios write 1,000 files); the clock runs from the start of
# tcpflood until the output has its expected size (gzip: until it stopped
# growing); CPU is the daemon's user+system time (/proc/PID/stat) over that
# span. After the daemon stopped the lines are counted (lines=). Prints one line per run and the
# medians. Threading: sequential shell; daemons are stopped by PID.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
scenario=${1:?scenario: static, dynafile, dynafile-small-cache or gzip}
n=${2:-2000000}
runs=${3:-3}
conf_in=$top/tests/bench/configs-omfile/$scenario.conf
[ -f "$conf_in" ] || { echo "no config $conf_in" >&2; exit 2; }
SLUICED=${SLUICED:-$top/tools/sluiced}
RSYSLOGD=${RSYSLOGD:-/usr/sbin/rsyslogd}
TCPFLOOD=${TCPFLOOD:-$top/tools/tcpflood}
work=$(mktemp -d "${BENCH_TMP:-/var/tmp}/omfile-bench.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$work"' EXIT
clk=$(getconf CLK_TCK)

# 10,000 distinct lines of 1,000 hosts, cycled by tcpflood; the output of
# RSYSLOG_TraditionalFileFormat is each line without its "<PRI>", so the
# expected output size is known in advance (polling sizes is cheap, reading
# 1,000 files is not)
expect_bytes=$(python3 - "$work/input.txt" "$n" <<'PY'
import sys
lines = []
for i in range(10000):
    lines.append("<%d>Mar  1 01:%02d:%02d host%04d prog[%d]: message %d with some "
                 "ordinary payload text for the benchmark\n"
                 % (8 + i % 160, i % 60, i % 59, i % 1000, i % 999, i))
open(sys.argv[1], "w").write("".join(lines))
n = int(sys.argv[2])
out = [len(l) - l.index(">") - 1 for l in lines]
print(sum(out) * (n // len(lines)) + sum(out[: n % len(lines)]))
PY
)

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
bytes_now() { find "$work/out" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
lines_now() {
	if [ "$scenario" = gzip ]; then
		zcat "$work/out"/*.gz 2>/dev/null | wc -l
	else
		find "$work/out" -type f -name '*.log' -print0 | xargs -0 -r cat | wc -l
	fi
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run_one() { # $1 = rsyslog|sluice
	local port out conf t0 t1 c0 c1 got
	port=$(free_port)
	rm -rf "$work/out" "$work/rs"
	mkdir -p "$work/out" "$work/rs"
	conf=$work/$1.conf
	sed -e "s|@PORT@|$port|g" -e "s|@OUT@|$work/out|g" "$conf_in" >"$conf"
	if [ "$1" = rsyslog ]; then
		printf 'global(workDirectory="%s")\ninclude(file="%s")\n' "$work/rs" "$conf" >"$work/rs/w.conf"
		"$RSYSLOGD" -n -f "$work/rs/w.conf" -i "$work/rs/pid" >"$work/daemon.log" 2>&1 &
	else
		"$SLUICED" -n -f "$conf" -i NONE >"$work/daemon.log" 2>&1 &
	fi
	pid=$!
	for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
	c0=$(cpu_ticks "$pid")
	t0=$(date +%s.%N)
	"$TCPFLOOD" -p "$port" -I "$work/input.txt" -m "$n" -q >/dev/null
	if [ "$scenario" = gzip ]; then
		# compressed size is not known: wait until it stops growing
		local last=-1 cur same=0
		while [ "$same" -lt 10 ]; do
			cur=$(bytes_now)
			if [ "$cur" = "$last" ]; then
				same=$((same + 1))
			else
				same=0
				last=$cur
				t1=$(date +%s.%N)
				c1=$(cpu_ticks "$pid")
			fi
			sleep 0.05
		done
	else
		while [ "$(bytes_now)" -lt "$expect_bytes" ]; do
			kill -0 "$pid" || { echo "$1 died" >&2; return 1; }
			sleep 0.02
		done
		t1=$(date +%s.%N)
		c1=$(cpu_ticks "$pid")
	fi
	kill -TERM "$pid"
	wait "$pid" || true
	pid=
	got=$(lines_now)
	python3 - "$1" "$scenario" "$n" "$t0" "$t1" "$c0" "$c1" "$clk" "$got" <<'PY'
import sys
d, sc, n, t0, t1, c0, c1, clk, got = sys.argv[1:]
n = int(n); wall = float(t1) - float(t0); cpu = (int(c1) - int(c0)) / int(clk)
print("RESULT daemon=%s scenario=%s n=%d wall_s=%.2f msgs_per_s=%.0f cpu_s=%.2f cpu_s_per_1M=%.2f lines=%s"
      % (d, sc, n, wall, n / wall, cpu, cpu / n * 1e6, got))
PY
}

for ((i = 1; i <= runs; i++)); do
	for d in rsyslog sluice; do
		run_one "$d" | tee -a "$work/results"
	done
done
python3 - "$work/results" <<'PY'
import re, statistics, sys
rows = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in open(sys.argv[1]) if l.startswith("RESULT")]
med = {}
for d in ("rsyslog", "sluice"):
    r = [x for x in rows if x["daemon"] == d]
    med[d] = (statistics.median(float(x["msgs_per_s"]) for x in r),
              statistics.median(float(x["cpu_s_per_1M"]) for x in r))
    print("MEDIAN daemon=%s msgs_per_s=%.0f cpu_s_per_1M=%.2f runs=%d" % (d, med[d][0], med[d][1], len(r)))
print("RATIO sluice/rsyslog msgs_per_s=%.2fx cpu_per_msg=%.2fx" %
      (med["sluice"][0] / med["rsyslog"][0], med["sluice"][1] / med["rsyslog"][1]))
PY
