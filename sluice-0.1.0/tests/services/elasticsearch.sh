# tests/services/elasticsearch.sh - start and stop a real Elasticsearch 8.19
# or OpenSearch 2.19 on 127.0.0.1 for the omelasticsearch service tests.
# Sourced (never executed) after tests/lib.sh:
#
#   . "$srcdir/tests/lib.sh"
#   . "$srcdir/tests/services/elasticsearch.sh"
#   es_start [elasticsearch|opensearch]   -> ES_PORT, ES_URL, ES_PID, ES_FLAVOR
#   es_curl METHOD PATH [BODY]            -> response body on stdout
#   es_count INDEX_PATTERN                -> _refresh, then the _count
#   es_stop / es_restart                  -> by the saved PID
#
# The server is the vendors' test distribution from Maven Central (see
# ../shared/SERVICES.md), fetched once with mvn into a cache under
# /var/tmp/sluice-services (readable by the unprivileged system user the
# server must run as; it refuses to run as root). Each test gets a fresh
# data directory inside its TESTDIR. When Java or Maven are missing, or the
# download fails, the test is skipped (exit 77) with the reason.
#
# Threading model: plain sequential shell. The server runs as a background
# process of the test shell (through runuser, which does not take its
# children down when it is killed), so the server's own PID is taken from
# the pidfile it writes (-p) and stopped by es_stop, which this file also
# runs from the test's EXIT trap (before tests/lib.sh's cleanup): no server
# outlives its test, whether the test passes, fails or is interrupted.

ES_CACHE=${ES_CACHE:-/var/tmp/sluice-services}
ES_VERSION=${ES_VERSION:-8.19.0}
OS_VERSION=${OS_VERSION:-2.19.3}
ES_USER=${ES_USER:-sluice-es}
ES_START_TIMEOUT=${ES_START_TIMEOUT:-240}
ES_PID=
ES_PORT=
ES_URL=
ES_STATE=

# the EXIT trap of tests/lib.sh, with the server stopped first
_es_exit() {
	local rc=$?
	es_stop_quiet
	(exit "$rc")
	_sl_cleanup
}
trap _es_exit EXIT

# _es_fetch FLAVOR: makes sure the unpacked distribution is in the cache;
# prints its home directory.
_es_fetch() {
	local flavor=$1 group artifact ver home zipdir
	if [ "$flavor" = opensearch ]; then
		group=org.opensearch.distribution.integ-test-zip
		artifact=opensearch
		ver=$OS_VERSION
	else
		group=org.elasticsearch.distribution.integ-test-zip
		artifact=elasticsearch
		ver=$ES_VERSION
	fi
	home="$ES_CACHE/$artifact-$ver"
	if [ -x "$home/bin/$artifact" ]; then
		echo "$home"
		return 0
	fi
	command -v mvn >/dev/null 2>&1 || { echo "mvn not installed" >&2; return 1; }
	command -v java >/dev/null 2>&1 || { echo "java not installed" >&2; return 1; }
	command -v unzip >/dev/null 2>&1 || { echo "unzip not installed" >&2; return 1; }
	mkdir -p "$ES_CACHE" && chmod 755 "$ES_CACHE" || return 1
	zipdir="$ES_CACHE/zip"
	mkdir -p "$zipdir"
	# the lock keeps two tests from unpacking the same server at once
	(
		flock 9
		[ -x "$home/bin/$artifact" ] && exit 0
		if [ ! -s "$zipdir/$artifact-$ver.zip" ]; then
			mvn -q -B dependency:copy -Dartifact="$group:$artifact:$ver:zip" \
				-DoutputDirectory="$zipdir" -Dmdep.useBaseVersion=true >&2 || exit 1
		fi
		rm -rf "$home.tmp" && mkdir -p "$home.tmp" &&
			unzip -q "$zipdir/$artifact-$ver.zip" -d "$home.tmp" || exit 1
		# the zip holds one top-level folder
		mv "$home.tmp"/*/ "$home" && rm -rf "$home.tmp" || exit 1
		chmod -R a+rX "$home"
	) 9>"$ES_CACHE/.lock" || { echo "could not fetch $group:$artifact:$ver:zip" >&2; return 1; }
	echo "$home"
}

# _es_user: the unprivileged system user the server runs as.
_es_user() {
	if [ "$(id -u)" != 0 ]; then
		ES_USER=$(id -un)
		return 0
	fi
	id "$ES_USER" >/dev/null 2>&1 ||
		useradd --system --no-create-home --shell /usr/sbin/nologin "$ES_USER" 2>/dev/null ||
		id "$ES_USER" >/dev/null 2>&1
}

# es_start [FLAVOR]: starts a single-node server on a free port with a data
# dir in TESTDIR/es; waits (ES_START_TIMEOUT s) for /_cluster/health.
# FLAVOR is elasticsearch (default) or opensearch. Skips the test when the
# server cannot be had; fails it when the server does not come up.
es_start() {
	ES_FLAVOR=${1:-elasticsearch}
	local home
	home=$(_es_fetch "$ES_FLAVOR") || skip "no $ES_FLAVOR server (see the messages above)"
	_es_user || skip "cannot create the system user $ES_USER"
	ES_HOME=$home
	ES_STATE="$TESTDIR/es"
	mkdir -p "$ES_STATE/data" "$ES_STATE/logs" "$ES_STATE/tmp" "$ES_STATE/config"
	cp -r "$home/config/." "$ES_STATE/config/"
	[ -n "$ES_PORT" ] || ES_PORT=$(get_free_port)
	local tport
	tport=$(get_free_port)
	{
		echo "cluster.name: sluice-test"
		echo "node.name: n1"
		echo "network.host: 127.0.0.1"
		echo "http.port: $ES_PORT"
		echo "transport.port: $tport"
		echo "discovery.type: single-node"
		echo "path.data: $ES_STATE/data"
		echo "path.logs: $ES_STATE/logs"
		echo "cluster.routing.allocation.disk.threshold_enabled: false"
		echo "action.auto_create_index: true"
		[ "$ES_FLAVOR" = elasticsearch ] && echo "xpack.security.enabled: false"
	} >"$ES_STATE/config/$ES_FLAVOR.yml"
	# heap, and gc logs / error files inside the state dir
	sed -i -e 's/^-Xms.*/-Xms512m/' -e 's/^-Xmx.*/-Xmx512m/' \
		-e "s|logs/gc.log|$ES_STATE/logs/gc.log|g" \
		-e "s|-XX:HeapDumpPath=.*|-XX:HeapDumpPath=$ES_STATE/tmp|" \
		-e "s|-XX:ErrorFile=.*|-XX:ErrorFile=$ES_STATE/logs/hs_err_%p.log|" \
		"$ES_STATE/config/jvm.options"
	grep -q '^-Xms' "$ES_STATE/config/jvm.options" || echo "-Xms512m" >>"$ES_STATE/config/jvm.options"
	grep -q '^-Xmx' "$ES_STATE/config/jvm.options" || echo "-Xmx512m" >>"$ES_STATE/config/jvm.options"
	chmod -R a+rwX "$ES_STATE"
	chmod a+rx "$TESTDIR"
	_es_launch
}

# _es_launch: starts the configured server (also used by es_restart).
_es_launch() {
	local confvar=ES_PATH_CONF bin=elasticsearch
	[ "$ES_FLAVOR" = opensearch ] && confvar=OPENSEARCH_PATH_CONF && bin=opensearch
	local logf="$TESTDIR/$ES_FLAVOR.log"
	local -a run=()
	[ "$(id -u)" = 0 ] && run=(runuser -u "$ES_USER" --)
	# the test distributions bring no JDK: use the system's
	local jhome
	jhome=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
	env "$confvar=$ES_STATE/config" ES_TMPDIR="$ES_STATE/tmp" OPENSEARCH_TMPDIR="$ES_STATE/tmp" \
		ES_JAVA_HOME="$jhome" OPENSEARCH_JAVA_HOME="$jhome" JAVA_HOME="$jhome" \
		"${run[@]}" "$ES_HOME/bin/$bin" -p "$ES_STATE/server.pid" >>"$logf" 2>&1 &
	ES_PID=$!
	_SL_LOGS="$_SL_LOGS $logf"
	ES_URL="http://127.0.0.1:$ES_PORT"
	local deadline=$((SECONDS + ES_START_TIMEOUT))
	while [ "$SECONDS" -lt "$deadline" ]; do
		kill -0 "$ES_PID" 2>/dev/null ||
			fail "expected $ES_FLAVOR to start, got an exit (see $logf)"
		if curl -fsS -m 2 "$ES_URL/_cluster/health" >/dev/null 2>&1; then
			log "$ES_FLAVOR up on port $ES_PORT after $((SECONDS - deadline + ES_START_TIMEOUT)) s"
			return 0
		fi
		sleep 0.5
	done
	fail "expected $ES_FLAVOR to answer /_cluster/health within $ES_START_TIMEOUT s, got nothing"
}

# _es_server_pid: the JVM's PID from its pidfile (empty if none).
_es_server_pid() {
	[ -n "$ES_STATE" ] && [ -s "$ES_STATE/server.pid" ] && cat "$ES_STATE/server.pid"
}

# es_stop_quiet: stops the server (SIGTERM to the JVM by its pidfile, then
# SIGKILL after 30 s) and the runuser wrapper by its PID; never fails.
es_stop_quiet() {
	local spid i
	spid=$(_es_server_pid)
	[ -n "$spid" ] && kill -TERM "$spid" 2>/dev/null
	[ -n "$ES_PID" ] && kill -TERM "$ES_PID" 2>/dev/null
	for ((i = 0; i < 300; i++)); do
		{ [ -n "$spid" ] && kill -0 "$spid" 2>/dev/null; } ||
			{ [ -n "$ES_PID" ] && kill -0 "$ES_PID" 2>/dev/null; } || break
		sleep 0.1
	done
	[ -n "$spid" ] && kill -KILL "$spid" 2>/dev/null
	[ -n "$ES_PID" ] && { kill -KILL "$ES_PID" 2>/dev/null; wait "$ES_PID" 2>/dev/null; }
	[ -n "$ES_STATE" ] && rm -f "$ES_STATE/server.pid"
	ES_PID=
	return 0
}

# es_stop: es_stop_quiet, then fails the test if the port stays open.
es_stop() {
	es_stop_quiet
	local i
	for ((i = 0; i < 100; i++)); do
		port_open "$ES_PORT" || return 0
		sleep 0.1
	done
	fail "expected $ES_FLAVOR to release port $ES_PORT after stop, got it still open"
}

# es_restart: starts the server again on the same port and data.
es_restart() {
	_es_launch
}

# es_curl METHOD PATH [BODY]: one request; prints the body.
es_curl() {
	local method=$1 path=$2
	if [ $# -ge 3 ]; then
		curl -sS -m 60 -X "$method" -H 'Content-Type: application/json' \
			--data-binary "$3" "$ES_URL$path"
	else
		curl -sS -m 60 -X "$method" "$ES_URL$path"
	fi
}

# es_count INDEX: refreshes INDEX and prints its document count.
es_count() {
	es_curl POST "/$1/_refresh" >/dev/null
	es_curl GET "/$1/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("count", -1))'
}

# es_zero_replicas: an index template so that test indices stay green on a
# single node.
es_zero_replicas() {
	es_curl PUT /_index_template/sluice-zero-replicas \
		'{"index_patterns":["*"],"priority":1,"template":{"settings":{"number_of_replicas":0}}}' >/dev/null
}
