# tests/services/kafka.sh - start and stop a real Kafka 3.9 broker (one
# combined broker+controller node, KRaft, no ZooKeeper) on 127.0.0.1 for
# the omkafka service tests. Sourced (never executed) after tests/lib.sh:
#
#   . "$srcdir/tests/lib.sh"
#   . "$srcdir/tests/services/kafka.sh"
#   kafka_start                 -> KAFKA_PORT, KAFKA_BROKER (127.0.0.1:PORT), KAFKA_PID
#   kafka_create_topic T N      -> topic T with N partitions (TopicCommand)
#   kafka_consume T FILE [N] [TIMEOUT]
#                               -> kcat reads T from the beginning into FILE,
#                                  one "KEY<TAB>PARTITION<TAB>PAYLOAD" line per
#                                  message, until N messages or TIMEOUT s
#   kafka_stop / kafka_restart  -> by the saved PID; same port and data
#
# The broker is Apache Kafka from Maven Central (see ../shared/SERVICES.md):
# kafka_2.13, kafka-tools and slf4j-reload4j with their dependencies,
# fetched once with mvn into a cache under /var/tmp/sluice-services. Each
# test gets a fresh data directory inside its TESTDIR. When Java, Maven or
# kcat are missing, or the download fails, the test is skipped (exit 77)
# with the reason.
#
# Threading model: plain sequential shell. The broker is a background
# process of the test shell; its PID is stopped by kafka_stop, and by the
# EXIT trap of tests/lib.sh (kill_daemons) when a test dies early, so no
# broker outlives its test.

KAFKA_CACHE=${KAFKA_CACHE:-/var/tmp/sluice-services}
KAFKA_VERSION=${KAFKA_VERSION:-3.9.1}
KAFKA_START_TIMEOUT=${KAFKA_START_TIMEOUT:-120}
KAFKA_HEAP=${KAFKA_HEAP:-512m}
KAFKA_PID=
KAFKA_PORT=
KAFKA_BROKER=
KCAT=${KCAT:-$(command -v kcat 2>/dev/null || command -v kafkacat 2>/dev/null || echo /usr/bin/kcat)}

# _kafka_fetch: makes sure the jars are in the cache; prints their dir.
_kafka_fetch() {
	local dir="$KAFKA_CACHE/kafka-$KAFKA_VERSION"
	if [ -f "$dir/.complete" ]; then
		echo "$dir"
		return 0
	fi
	command -v mvn >/dev/null 2>&1 || { echo "mvn not installed" >&2; return 1; }
	command -v java >/dev/null 2>&1 || { echo "java not installed" >&2; return 1; }
	mkdir -p "$KAFKA_CACHE" && chmod 755 "$KAFKA_CACHE" || return 1
	# the lock keeps two tests from fetching at once
	(
		flock 9
		[ -f "$dir/.complete" ] && exit 0
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" || exit 1
		cat >"$dir.tmp/pom.xml" <<-EOF
		<project xmlns="http://maven.apache.org/POM/4.0.0">
		  <modelVersion>4.0.0</modelVersion>
		  <groupId>sluice</groupId><artifactId>kafka-jars</artifactId><version>1</version>
		  <dependencies>
		    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
		    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
		    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
		  </dependencies>
		</project>
		EOF
		(cd "$dir.tmp" && mvn -q -B dependency:copy-dependencies -DoutputDirectory="$dir.tmp/libs" >&2) ||
			exit 1
		rm -rf "$dir" && mv "$dir.tmp/libs" "$dir" && rm -rf "$dir.tmp" || exit 1
		chmod -R a+rX "$dir"
		touch "$dir/.complete"
	) 9>"$KAFKA_CACHE/.kafka.lock" || {
		echo "could not fetch org.apache.kafka:kafka_2.13:$KAFKA_VERSION with mvn" >&2; return 1; }
	echo "$dir"
}

# kafka_require_dut: skip unless the daemon under test can run omkafka
# (for sluiced: omkafka was built, i.e. librdkafka-dev was there at
# configure time).
kafka_require_dut() {
	[ "$DUT_NAME" != sluiced ] || [ -e "$top_builddir/plugins/omkafka/omkafka.la" ] ||
		skip "omkafka not built (librdkafka-dev missing at configure time)"
}

# kafka_start: formats and starts one KRaft node on free ports with its data
# in TESTDIR/kafka; waits (KAFKA_START_TIMEOUT s) until it answers metadata
# requests. Skips the test when the broker cannot be had; fails it when the
# broker does not come up.
kafka_start() {
	[ -x "$KCAT" ] || skip "kcat not installed (Debian package kcat)"
	KAFKA_LIBS=$(_kafka_fetch) || skip "no Kafka broker (see the messages above)"
	KAFKA_STATE="$TESTDIR/kafka"
	mkdir -p "$KAFKA_STATE/data" "$KAFKA_STATE/logs"
	[ -n "$KAFKA_PORT" ] || KAFKA_PORT=$(get_free_port)
	local cport
	cport=$(get_free_port)
	while [ "$cport" = "$KAFKA_PORT" ]; do cport=$(get_free_port); done
	cat >"$KAFKA_STATE/server.properties" <<-EOF
	process.roles=broker,controller
	node.id=1
	controller.quorum.voters=1@127.0.0.1:$cport
	listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$cport
	advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
	controller.listener.names=CONTROLLER
	inter.broker.listener.name=PLAINTEXT
	listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
	log.dirs=$KAFKA_STATE/data
	num.partitions=1
	offsets.topic.replication.factor=1
	transaction.state.log.replication.factor=1
	transaction.state.log.min.isr=1
	default.replication.factor=1
	group.initial.rebalance.delay.ms=0
	auto.create.topics.enable=true
	EOF
	cat >"$KAFKA_STATE/log4j.properties" <<-EOF
	log4j.rootLogger=WARN, stdout
	log4j.appender.stdout=org.apache.log4j.ConsoleAppender
	log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
	log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
	EOF
	local uuid
	uuid=$(java -cp "$KAFKA_LIBS/*" -Dlog4j.configuration="file:$KAFKA_STATE/log4j.properties" \
		kafka.tools.StorageTool random-uuid 2>>"$KAFKA_STATE/format.log") ||
		fail "expected a cluster id from StorageTool random-uuid, got an error"
	java -cp "$KAFKA_LIBS/*" -Dlog4j.configuration="file:$KAFKA_STATE/log4j.properties" \
		kafka.tools.StorageTool format -t "$uuid" -c "$KAFKA_STATE/server.properties" \
		>>"$KAFKA_STATE/format.log" 2>&1 ||
		fail "expected StorageTool format to succeed, got: $(tail -n 5 "$KAFKA_STATE/format.log")"
	_kafka_launch
}

# _kafka_launch: starts the formatted node (also used by kafka_restart) and
# waits until kcat gets metadata listing the broker.
_kafka_launch() {
	local logf="$TESTDIR/kafka.log"
	java -Xmx"$KAFKA_HEAP" -Xms"$KAFKA_HEAP" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
		-Dlog4j.configuration="file:$KAFKA_STATE/log4j.properties" \
		-Djava.io.tmpdir="$KAFKA_STATE" \
		-cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_STATE/server.properties" >>"$logf" 2>&1 &
	KAFKA_PID=$!
	_SL_PIDS="$_SL_PIDS $KAFKA_PID"
	_SL_LOGS="$_SL_LOGS $logf"
	KAFKA_BROKER="127.0.0.1:$KAFKA_PORT"
	local t0=$SECONDS deadline=$((SECONDS + KAFKA_START_TIMEOUT))
	while [ "$SECONDS" -lt "$deadline" ]; do
		kill -0 "$KAFKA_PID" 2>/dev/null ||
			fail "expected the Kafka broker to start, got an exit (see $logf)"
		if port_open "$KAFKA_PORT" &&
		   "$KCAT" -b "$KAFKA_BROKER" -L -m 2 2>/dev/null | grep -q "broker 1 at"; then
			log "Kafka up on port $KAFKA_PORT after $((SECONDS - t0)) s"
			return 0
		fi
		sleep 0.3
	done
	fail "expected the Kafka broker to answer metadata requests within $KAFKA_START_TIMEOUT s, got nothing"
}

# kafka_create_topic TOPIC PARTITIONS: creates TOPIC and waits until every
# partition has a leader.
kafka_create_topic() {
	local t=$1 n=$2 i
	java -cp "$KAFKA_LIBS/*" -Dlog4j.configuration="file:$KAFKA_STATE/log4j.properties" \
		org.apache.kafka.tools.TopicCommand --bootstrap-server "$KAFKA_BROKER" \
		--create --topic "$t" --partitions "$n" --replication-factor 1 \
		>>"$KAFKA_STATE/topics.log" 2>&1 ||
		fail "expected topic $t to be created, got: $(tail -n 5 "$KAFKA_STATE/topics.log")"
	for ((i = 0; i < 100; i++)); do
		if [ "$("$KCAT" -b "$KAFKA_BROKER" -L -t "$t" -m 2 2>/dev/null |
			grep -c 'partition [0-9]*, leader 1,')" = "$n" ]; then
			return 0
		fi
		sleep 0.2
	done
	fail "expected $n partitions with a leader in topic $t within 20 s, got fewer"
}

# kafka_consume TOPIC FILE [N] [TIMEOUT]: reads TOPIC from the beginning
# into FILE ("KEY<TAB>PARTITION<TAB>PAYLOAD" per line; a message without key
# has an empty KEY). Stops after N messages (when given) or at the end of
# every partition, bounded by TIMEOUT s (default 120); use kafka_wait_count
# first so that the end is the end of what was sent.
kafka_consume() {
	local t=$1 f=$2 n=${3:-} timeout=${4:-120}
	local -a cnt=()
	[ -n "$n" ] && cnt=(-c "$n")
	timeout "$timeout" "$KCAT" -C -b "$KAFKA_BROKER" -t "$t" -o beginning -e -q \
		-X fetch.wait.max.ms=100 "${cnt[@]}" -f '%k\t%p\t%s\n' >"$f" 2>"$f.err"
}

# kafka_count TOPIC: total messages in TOPIC (sum over its partitions of
# the end offset; the topic must be fresh, i.e. start at offset 0).
kafka_count() {
	local spec="" p
	for p in $("$KCAT" -b "$KAFKA_BROKER" -L -t "$1" -m 5 2>/dev/null |
		sed -n 's/.*partition \([0-9]*\), leader.*/\1/p'); do
		spec="$spec -t $1:$p:-1"
	done
	[ -n "$spec" ] || { echo 0; return; }
	# shellcheck disable=SC2086
	"$KCAT" -Q -b "$KAFKA_BROKER" $spec 2>/dev/null |
		awk '/offset/ {s += $NF} END {print s + 0}'
}

# kafka_wait_count TOPIC N TIMEOUT: waits until TOPIC holds at least N
# messages; returns 1 when TIMEOUT s pass first or the count did not grow
# for KAFKA_STALL (default 30) s. KAFKA_GOT holds the last count.
kafka_wait_count() {
	local t=$1 n=$2 timeout=${3:-120} last=-1 since=$SECONDS deadline
	deadline=$((SECONDS + timeout))
	while :; do
		KAFKA_GOT=$(kafka_count "$t")
		[ "$KAFKA_GOT" -ge "$n" ] && return 0
		if [ "$KAFKA_GOT" != "$last" ]; then
			last=$KAFKA_GOT
			since=$SECONDS
		elif [ $((SECONDS - since)) -ge "${KAFKA_STALL:-30}" ]; then
			return 1
		fi
		[ "$SECONDS" -ge "$deadline" ] && return 1
		sleep 0.5
	done
}

# kafka_stop: stops the broker by its PID (SIGTERM, SIGKILL after 30 s)
# and waits until its port is free.
kafka_stop() {
	[ -n "$KAFKA_PID" ] || return 0
	kill -TERM "$KAFKA_PID" 2>/dev/null
	local i
	for ((i = 0; i < 300; i++)); do
		kill -0 "$KAFKA_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$KAFKA_PID" 2>/dev/null
	wait "$KAFKA_PID" 2>/dev/null
	_SL_PIDS=$(echo "$_SL_PIDS" | tr ' ' '\n' | grep -vx "$KAFKA_PID" | tr '\n' ' ')
	KAFKA_PID=
	for ((i = 0; i < 100; i++)); do
		port_open "$KAFKA_PORT" || return 0
		sleep 0.1
	done
	fail "expected the Kafka broker to release port $KAFKA_PORT after stop, got it still open"
}

# kafka_restart: starts the broker again on the same ports and data.
kafka_restart() {
	_kafka_launch
}
