#!/usr/bin/env python3
"""Medians of interleaved bench runs: msgs/s, CPU-seconds per million
messages, peak RSS, and sluice's ratios against rsyslogd.

Usage: summarize.py RESULTS.jsonl [...]  -> a Markdown table on stdout.
"""
import json
import statistics
import sys


def main():
    rows = []
    for fn in sys.argv[1:]:
        with open(fn) as fh:
            rows += [json.loads(l) for l in fh if l.strip()]
    by = {}
    for r in rows:
        by.setdefault((r["scenario"], r.get("variant") or "-"), {}).setdefault(r["daemon"], []).append(r)
    print("| scenario | daemon | runs | msgs/s (median) | CPU s per 1M msgs | peak RSS MB | lost/dup |")
    print("|---|---|---|---|---|---|---|")
    summary = []
    for (sc, var), ds in by.items():
        med = {}
        for d, rs in ds.items():
            mps = statistics.median(r["msgs_per_s"] for r in rs)
            cpu = statistics.median(r["daemon_cpu_s"] * 1e6 / r["n"] for r in rs)
            rss = statistics.median(r.get("peak_rss_mb") or 0 for r in rs)
            lost = sum(r.get("lost") or 0 for r in rs)
            dup = sum(r.get("dup") or 0 for r in rs)
            med[d] = (mps, cpu)
            print("| %s%s | %s | %d | %s | %.2f | %.0f | %d/%d |" % (
                sc, "" if var == "-" else " (%s)" % var, d, len(rs), "{:,}".format(int(mps)), cpu, rss, lost, dup))
        if "sluice" in med and "rsyslog" in med:
            summary.append("%s%s: sluice %.2fx rsyslogd's msgs/s, %.2fx its CPU per message" % (
                sc, "" if var == "-" else " (%s)" % var, med["sluice"][0] / med["rsyslog"][0],
                med["sluice"][1] / med["rsyslog"][1]))
    print()
    for s in summary:
        print("- " + s)


if __name__ == "__main__":
    main()
