#!/bin/bash
# callgrind.sh — instructions per message of sluiced (user space), counted
# by callgrind: the same figure run after run, so two builds can be
# compared on a busy machine where CPU seconds are too noisy.
#
#   tests/bench/callgrind.sh SCENARIO [SLUICED] [N]
#   SCENARIO: bsd (RFC3164, one TCP client, one file), tls (RFC5424 over TLS,
#             octet-counted, SyslogProtocol23Format) or filter (five clients
#             through the five filters of ../shared/bench's filter.conf)
#
# Prints the program total, instructions per message and the 15 functions
# with the most instructions; keeps the run directory (output files and
# callgrind.out) and says where. The total includes start-up (about 30M
# instructions; more with TLS). Under valgrind gnutls does not use AES-NI,
# so the TLS scenario over-counts the decryption.
# Input: the first N (default 200,000) lines of ../shared/bench's generated
# data in $BENCH_DATA (default /var/tmp/bench-data; run ../shared/bench once).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
scen=${1:?scenario: bsd, tls or filter}
bin=${2:-$top/tools/sluiced}
n=${3:-200000}
data=${BENCH_DATA:-/var/tmp/bench-data}
tcpflood=${TCPFLOOD:-$top/tools/tcpflood}
d=$(mktemp -d /var/tmp/sluice-cg.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
src=$(ls "$data"/bsd-*-s42.log 2>/dev/null | head -1)
[ "$scen" = tls ] && src=$(ls "$data"/ietf-*-s42.log 2>/dev/null | head -1)
[ -n "$src" ] || { echo "callgrind.sh: no generated data in $data (run ../shared/bench first)" >&2; exit 2; }
head -n "$n" "$src" >"$d/in.txt"

case $scen in
tls)
	certtool --generate-privkey --key-type=rsa --bits=2048 --outfile "$d/key.pem" 2>/dev/null
	printf 'cn = "127.0.0.1"\nip_address = "127.0.0.1"\nexpiration_days = 30\ntls_www_server\n' >"$d/tpl"
	certtool --generate-self-signed --load-privkey "$d/key.pem" --template "$d/tpl" \
		--outfile "$d/cert.pem" 2>/dev/null
	cat >"$d/c.conf" <<-EOF
	global(workDirectory="$d" maxMessageSize="64k" defaultNetstreamDriver="gtls"
	       defaultNetstreamDriverCAFile="$d/cert.pem" defaultNetstreamDriverCertFile="$d/cert.pem"
	       defaultNetstreamDriverKeyFile="$d/key.pem")
	main_queue(queue.type="FixedArray" queue.size="100000" queue.dequeueBatchSize="1024" queue.workerThreads="1")
	module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
	input(type="imtcp" address="127.0.0.1" port="$port" supportOctetCountedFraming="on")
	action(type="omfile" file="$d/all.log" template="RSYSLOG_SyslogProtocol23Format"
	       ioBufferSize="256k" flushOnTXEnd="off" flushInterval="1")
	EOF
	send=(-T tls -F oc -I "$d/in.txt");;
bsd)
	cat >"$d/c.conf" <<-EOF
	global(workDirectory="$d" maxMessageSize="64k")
	main_queue(queue.type="FixedArray" queue.size="100000" queue.dequeueBatchSize="1024" queue.workerThreads="1")
	module(load="imtcp")
	input(type="imtcp" address="127.0.0.1" port="$port")
	action(type="omfile" file="$d/all.log" template="RSYSLOG_TraditionalFileFormat"
	       ioBufferSize="256k" flushOnTXEnd="off" flushInterval="1")
	EOF
	send=(-I "$d/in.txt");;
filter)
	sed -e "s|@RUN@/work|$d|; s|@PORT@|$port|; s|@OUT@|$d|g" \
		"${BENCH_DIR:-$top/../shared/bench}/configs/sluice/filter.conf" >"$d/c.conf"
	send=(-c 5 -I "$d/in.txt");;
*)
	echo "callgrind.sh: unknown scenario $scen" >&2; exit 2;;
esac

valgrind --tool=callgrind --callgrind-out-file="$d/callgrind.out" "$bin" -n -f "$d/c.conf" -i NONE \
	>"$d/daemon.log" 2>&1 &
vp=$!
for _ in $(seq 150); do
	ss -ltn | grep -q "127.0.0.1:$port " && break
	sleep 0.2
done
"$tcpflood" -p "$port" "${send[@]}" -m "$n" -q >/dev/null
# wait until the output stops growing (valgrind is slow), then stop
prev=-1
while :; do
	sleep 3
	cur=$(cat "$d"/*.log 2>/dev/null | wc -l)
	[ "$cur" = "$prev" ] && break
	prev=$cur
done
kill "$vp"
wait "$vp" || true
total=$(callgrind_annotate "$d/callgrind.out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
echo "program total: $total instructions; per message: $((total / n))"
echo "output lines: $(cat "$d"/f*.log "$d"/all.log 2>/dev/null | wc -l)"
callgrind_annotate "$d/callgrind.out" 2>/dev/null | sed -n '/file:function/,$p' | sed -n 3,17p
echo "kept: $d"
