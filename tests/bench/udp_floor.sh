#!/bin/bash
# udp_floor.sh — the kernel's share of UDP reception on this machine:
# tests/bench/udp_floor.c receives datagrams and does nothing else (no
# parsing, no queue, no file), fed by ../shared/bench's udpsend with the
# shared bench's UDP input (bsd messages, one per datagram) at RATE/s.
# Its CPU per datagram is the least any daemon here can spend on UDP
# with that receive path; set sluiced's and rsyslogd's against it.
#
#   tests/bench/udp_floor.sh [N] [RATE] [RUNS]      (default 1000000 250000 3;
#                                                    RATE 0 = the sender's top rate)
#
# Needs ../shared/bench run once (its udpsend and bsd data). Prints one
# line per run and mode: recvmmsg (batches of 128, as the bench's config)
# and, when liburing is installed, io_uring multishot recvmsg.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-1000000} rate=${2:-250000} runs=${3:-3}
data=${BENCH_DATA:-/var/tmp/bench-data}
send=$data/bin/udpsend
input=$(ls "$data"/bsd-*-s42.log 2>/dev/null | head -n1 || true)
[ -x "$send" ] && [ -n "$input" ] || {
	echo "udp_floor.sh: run ../shared/bench once (udpsend and bsd data in $data)" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modes=(recvmmsg:128)
if cc -O2 -DHAVE_URING -o "$tmp/udp_floor" "$top/tests/bench/udp_floor.c" -luring 2>/dev/null; then
	modes+=(uring:4096)
else
	cc -O2 -o "$tmp/udp_floor" "$top/tests/bench/udp_floor.c"
fi
lines=$(wc -l <"$input")
[ "$n" -le "$lines" ] || n=$lines
head -n "$n" "$input" >"$tmp/in"
for ((i = 1; i <= runs; i++)); do
	for m in "${modes[@]}"; do
		port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		"$tmp/udp_floor" "$port" "$n" "${m%:*}" "${m#*:}" >"$tmp/out" &
		rx=$!
		sleep 0.3
		"$send" "$tmp/in" 127.0.0.1 "$port" "$rate" >"$tmp/send"
		# a receiver that lost datagrams never reaches N: stop it after 10 s
		for ((w = 0; w < 100; w++)); do kill -0 "$rx" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$rx" 2>/dev/null; then
			kill "$rx"
			echo "run $i ${m%:*}: fewer than $n datagrams arrived (lost; $(cat "$tmp/send"))"
			wait "$rx" || true
			continue
		fi
		wait "$rx"
		echo "run $i $(cat "$tmp/out") sender: $(cat "$tmp/send")"
	done
done
