#!/bin/bash
# kafka_bench.sh - throughput and CPU per message of sluiced's omkafka and
# rsyslogd's omkafka (Debian package rsyslog-kafka) on the same Kafka
# broker in one run: for each daemon and each of RUNS rounds, a fresh
# 3-partition topic, NMSGS messages from tcpflood (one connection), the
# same template, key template and partitions.auto. Time runs from the
# start of tcpflood until the broker holds NMSGS messages of the topic
# (acknowledged; or until the last one that came, when some were lost).
# CPU is user+system time from /proc of the daemon ("cpu", "us/msg") and of
# the broker's JVM in the same interval ("broker"): both share the machine,
# so broker CPU near (cores - daemon CPU) means the broker is the limit.
# Runs are interleaved (sluiced, rsyslogd, sluiced, ...) and both daemons
# get the same config file text and the same tcpflood input.
# The broker is warmed up first (3,000,000 messages from kafka_floor); the topic
# is counted every 50 ms (two kcat calls each), which bounds the time
# resolution: use 3,000,000 messages or more for figures.
# Not a test (not run by run-all.sh): figures for doc/benchmarks.md.
#
#   tests/services/kafka_bench.sh [NMSGS] [RUNS]      (default 3000000 3)
#
# KAFKA_BENCH_DUTS="sluiced rsyslogd": the daemons, in this order per round;
#   "floor" is tests/bench/kafka_floor.c (librdkafka alone producing the
#   same messages, no daemon, no tcpflood: the most any daemon producing
#   through librdkafka can send here, and the least CPU it can spend);
#   KAFKA_FLOOR_ARGS="PRODUCERS [WINDOW [NAME=VALUE ...]]" (default
#   "2 10000": omkafka's two workers and asyncWindow) for it;
#   "sluiced@DIR" is sluiced with its modules from DIR first (SLUICE_MODDIR),
#   to compare two builds of omkafka.so in one run.
#   "sluiced:K" is sluiced with the omkafka parameters of KAFKA_BENCH_VK
#   (K a digit) added, to compare settings in one interleaved run.
# KAFKA_BENCH_ACTION='...': more omkafka parameters (both daemons), e.g.
#   'confParam=["linger.ms=5"]' to compare with librdkafka settings.
# KAFKA_BENCH_GLOBAL='...': statements before the modules (both daemons),
#   e.g. 'main_queue(queue.dequeueBatchSize="1024")'.
# KAFKA_BENCH_PERF=DIR: record a profile of each daemon during its runs
# (perf record -e cpu-clock -g, DIR/DUT-RUN.data).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$srcdir/tests/services/kafka.sh"

NMSGS=${1:-3000000}
RUNS=${2:-3}
require_tool tcpflood "$TCPFLOOD"
kafka_start

# cpu_ticks PID: utime + stime in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)

# report DUT GOT SECONDS CPU_SECONDS BROKER_TICKS: the result line of a run
report() {
	awk -v d="$1" -v n="$NMSGS" -v got="$2" -v s="$3" -v cpu="$4" -v b="$5" -v hz="$HZ" 'BEGIN {
		bcpu = b / hz
		printf "kafka-bench: %-8s %8d msgs  %8d in topic  %6.2f s  %9.0f msg/s  cpu %5.2f s  %5.2f us/msg  broker %5.2f s (%3.0f%% of a core)\n",
			d, n, got, s, got / s, cpu, cpu * 1e6 / got, bcpu, bcpu * 100 / s }'
}

run_one() { # DUT TOPIC
	local dut=$1 topic=$2 t0 t1 c0 c1 b0 b1 port variant=
	if [ "${dut#sluiced:}" != "$dut" ]; then
		variant=KAFKA_BENCH_V${dut#sluiced:}
		variant=${!variant:-}
	fi
	port=$(get_free_port)
	kafka_create_topic "$topic" 3
	cat >"$TESTDIR/$topic.conf" <<-EOF
	${KAFKA_BENCH_GLOBAL:-}
	module(load="imtcp")
	module(load="omkafka")
	template(name="kvalue" type="string" string="v1|%hostname%|%syslogtag%|%msg%|%pri%")
	template(name="kkey" type="string" string="%msg:F,58:2%")
	input(type="imtcp" port="$port" address="127.0.0.1" ruleset="flood")
	ruleset(name="flood") {
		action(type="omkafka" broker=["$KAFKA_BROKER"] topic="$topic" template="kvalue"
		       key="kkey" dynaKey="on" partitions.auto="on"
		       action.resumeRetryCount="-1" action.resumeInterval="1" ${KAFKA_BENCH_ACTION:-} $variant)
	}
	EOF
	if [ "$dut" = rsyslogd ]; then
		start_rsyslogd "$TESTDIR/$topic.conf" "$port"
	elif [ "${dut#sluiced@}" != "$dut" ]; then
		SLUICE_MODDIR=${dut#sluiced@} start_sluiced "$TESTDIR/$topic.conf" "$port"
	else
		start_sluiced "$TESTDIR/$topic.conf" "$port"
	fi
	local perf_pid=
	if [ -n "${KAFKA_BENCH_PERF:-}" ]; then
		mkdir -p "$KAFKA_BENCH_PERF"
		perf record -q -e cpu-clock -g -p "$DAEMON_PID" \
			-o "$KAFKA_BENCH_PERF/$topic.data" >/dev/null 2>&1 &
		perf_pid=$!
		sleep 0.5
	fi
	c0=$(cpu_ticks "$DAEMON_PID")
	b0=$(cpu_ticks "$KAFKA_PID")
	t0=$(date +%s%N)
	"$TCPFLOOD" -p "$port" -m "$NMSGS" -q || fail "tcpflood failed"
	# until all are there, or nothing new for 10 s; t1/c1 at the last
	# increase (a daemon that lost messages is not charged the wait)
	local last=-1 cur since=$SECONDS
	t1=$t0
	c1=$c0
	b1=$b0
	while [ $((SECONDS - since)) -lt 10 ]; do
		cur=$(kafka_count "$topic")
		if [ "$cur" != "$last" ]; then
			last=$cur
			since=$SECONDS
			t1=$(date +%s%N)
			c1=$(cpu_ticks "$DAEMON_PID")
			b1=$(cpu_ticks "$KAFKA_PID")
		fi
		[ "$cur" -ge "$NMSGS" ] && break
		sleep 0.05
	done
	if [ -n "$perf_pid" ]; then
		kill -INT "$perf_pid" 2>/dev/null
		wait "$perf_pid" 2>/dev/null
	fi
	stop_daemon
	local got
	got=$(kafka_count "$topic")
	if [ "$got" -lt "$NMSGS" ]; then
		# why: the daemon's own log (rsyslogd logs librdkafka's errors)
		local dlog="$TESTDIR/${dut%%@*}.$port.log"
		echo "kafka-bench: $dut lost $((NMSGS - got)); its log says:" \
			"$(grep -i -m 3 -E 'queue full|fail|error' "$dlog" 2>/dev/null | tr '\n' ' ')"
	fi
	report "$dut" "$got" "$(awk -v ns=$((t1 - t0)) 'BEGIN { print ns / 1e9 }')" \
		"$(awk -v c=$((c1 - c0)) -v hz="$HZ" 'BEGIN { print c / hz }')" $((b1 - b0))
}

build_floor() {
	cc -O2 -o "$TESTDIR/kafka_floor" "$srcdir/tests/bench/kafka_floor.c" -lrdkafka -lpthread ||
		fail "expected tests/bench/kafka_floor.c to build (cc, librdkafka-dev), it did not"
}

# run_floor TOPIC: tests/bench/kafka_floor.c instead of a daemon and
# tcpflood; it times itself (first produce call to last delivery report)
# and counts its CPU (librdkafka's threads included).
run_floor() {
	local topic=$1 b0 b1 out
	kafka_create_topic "$topic" 3
	b0=$(cpu_ticks "$KAFKA_PID")
	out=$("$TESTDIR/kafka_floor" "$KAFKA_BROKER" "$topic" "$NMSGS" ${KAFKA_FLOOR_ARGS:-2 10000}) || fail "kafka_floor: $out"
	b1=$(cpu_ticks "$KAFKA_PID")
	# "acked N failed N  S s  R msg/s  cpu C s  U us/msg"
	set -- $out
	report floor "$(kafka_count "$topic")" "$5" "${10}" $((b1 - b0))
}

# A freshly started broker is slow at first (its JVM compiles the produce
# path): KAFKA_BENCH_WARMUP (default 3,000,000) messages of the bench's
# shape from kafka_floor into a topic of their own first, so that no
# daemon's first run pays for the warm-up (500,000 from kcat, keys and
# timestamps of another shape, left the first run 25-35 % slower).
build_floor
kafka_create_topic bench-warmup 3
"$TESTDIR/kafka_floor" "$KAFKA_BROKER" bench-warmup "${KAFKA_BENCH_WARMUP:-3000000}" 2 >/dev/null ||
	echo "kafka-bench: warm-up through kafka_floor failed (runs go on)"

for ((r = 1; r <= RUNS; r++)); do
	nd=0
	for dut in ${KAFKA_BENCH_DUTS:-sluiced rsyslogd}; do
		if [ "$dut" = floor ]; then
			run_floor "bench-f$((++nd))-$r"
		else
			run_one "$dut" "bench-${dut:0:1}$((++nd))-$r"
		fi
	done
done
kafka_stop
exit 0
