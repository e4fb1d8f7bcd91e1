#!/usr/bin/env python3
# es_bench_sampler.py - the sampler of tests/services/es_bench.sh: every
# INTERVAL seconds one JSON line on OUT with the time (epoch ms), the CPU
# ticks (user + system) of the process PID, and the max_seq_no of the
# primary shard of each index matching PATTERN, from _stats (which needs
# no refresh). Runs until SIGTERM or until PID is gone. Each index must
# have one shard: es_bench.sh maps _seq_no to time per index.
#
#   es_bench_sampler.py ES_URL PATTERN PID INTERVAL OUT
#
# Threading model: one thread, a plain loop.
import json
import signal
import sys
import time
import urllib.request

url, pattern, pid, interval, out = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
stats = "%s/%s/_stats/docs?level=shards&filter_path=indices.*.shards.*.seq_no.max_seq_no," \
        "indices.*.shards.*.routing.primary" % (url, pattern)


def ticks():
    with open("/proc/%s/stat" % pid) as f:
        # the command may hold spaces: count fields after its ")"
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


with open(out, "w") as o:
    while True:
        t = time.time_ns() // 1000000
        try:
            c = ticks()
        except OSError:
            break
        seq = {}
        try:
            with urllib.request.urlopen(stats, timeout=5) as f:
                r = json.load(f)
            for index, v in r.get("indices", {}).items():
                shards = v["shards"]
                if list(shards) != ["0"]:
                    sys.exit("es_bench_sampler: %s has shards %s, expected one" % (index, list(shards)))
                for copy in shards["0"]:
                    if copy["routing"]["primary"]:
                        seq[index] = copy["seq_no"]["max_seq_no"]
        except (OSError, ValueError, KeyError) as e:
            print("es_bench_sampler: %s" % e, file=sys.stderr)
            seq = None
        if seq is not None:
            o.write(json.dumps({"t": t, "c": c, "s": seq}) + "\n")
            o.flush()
        time.sleep(max(0.0, interval - (time.time_ns() // 1000000 - t) / 1000))
