#!/usr/bin/env python3
"""report.py - Markdown tables and PNG plots from run_suite.py's results.

  tests/bench/report.py [RESULTS.jsonl ...] [--suite-id ID[,ID]] \\
        [--doc doc/benchmarks.md] [--png-dir doc/benchmarks] [--no-plots]

Reads the JSON lines that tests/bench/run_suite.py appended (default
/var/tmp/bench-results/suite.jsonl; --suite-id keeps only those suites,
"latest" the newest one), and writes:
  * a Markdown block: conditions (date, commit, machine, load average), the
    command, per scenario and daemon the median messages/s, the median
    CPU-seconds per million messages, the peak memory (VmHWM), lost and
    duplicated messages, sluice's ratios against rsyslogd, and the UDP rate
    search; printed on stdout, and with --doc put between the markers
    <!-- suite:begin --> and <!-- suite:end --> of that file (appended at
    its end if the markers are missing; the rest of the file is untouched);
  * with --png-dir (and matplotlib, Debian python3-matplotlib):
    suite-throughput.png, suite-cpu.png, suite-memory.png, suite-udp.png,
    linked from the block (paths relative to the doc file).
Single-threaded; matplotlib only for the plots.
"""
import argparse
import json
import os
import statistics
import sys

BEGIN, END = "<!-- suite:begin -->", "<!-- suite:end -->"
DAEMONS = ("rsyslog", "sluice")
LABEL = {"rsyslog": "rsyslogd 8.2302", "sluice": "sluiced"}
TITLES = {
    "tcp": "one TCP client into one file (tcpflood, RFC3164, imtcp)",
    "tls": "RFC5424 over TLS into one file (tcpflood -T tls -5 -F oc, imtcp+gtls)",
    "conn": "many TCP connections at once into one file (tcpflood -c, imtcp)",
    "udp": "UDP: highest rate with at most 0.1% loss (tcpflood -T udp, imudp)",
    "bench-bsd-tcp": "BSD-Throughput: one TCP client into one file (shared bench, socat, imtcp)",
    "bench-ietf-tls": "IETF-Throughput: RFC5424 over TLS into one file (shared bench, socat)",
    "bench-filter": "Filter-Throughput: five clients, five regex filters, five files (shared bench, imtcp)",
    "kafka": "omkafka into a real Kafka broker (tests/services/kafka_bench.sh)",
    "es": "omelasticsearch into a real Elasticsearch (tests/services/es_bench.sh)",
}
ORDER = list(TITLES)


def load(files, ids):
    rows = []
    for fn in files:
        with open(fn) as fh:
            rows += [json.loads(x) for x in fh if x.strip()]
    if ids == ["latest"] and rows:
        ids = [max(r.get("suite_id", "") for r in rows)]
    if ids:
        rows = [r for r in rows if r.get("suite_id") in ids]
    return [r for r in rows if r.get("daemon") in DAEMONS]


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def fnum(v, digits=0):
    if v is None:
        return "–"
    return "{:,.{d}f}".format(v, d=digits)


def scen_key(s):
    return ORDER.index(s) if s in ORDER else len(ORDER)


def aggregate(rows):
    """{scenario: {daemon: dict(medians)}} for the throughput scenarios."""
    agg = {}
    for r in rows:
        if r["scenario"] in ("udp-step",):
            continue
        agg.setdefault(r["scenario"], {}).setdefault(r["daemon"], []).append(r)
    out = {}
    for s, ds in agg.items():
        out[s] = {}
        for d, rs in ds.items():
            out[s][d] = {
                "runs": len(rs),
                "mps": med(r.get("msgs_per_s") for r in rs),
                "mps_all": [r.get("msgs_per_s") for r in rs if r.get("msgs_per_s")],
                "cpu": med(r.get("cpu_s_per_m") for r in rs),
                "cpu_all": [r.get("cpu_s_per_m") for r in rs if r.get("cpu_s_per_m") is not None],
                "rss": max([r["peak_rss_mb"] for r in rs if r.get("peak_rss_mb") is not None], default=None),
                "lost": sum(r.get("lost") or 0 for r in rs),
                "dup": sum(r.get("dup") or 0 for r in rs),
                "n": med(r.get("n") for r in rs),
                "conns": rs[0].get("conns"),
                "verify": sorted(set(str(r.get("verify")) for r in rs)),
                "stop": rs[0].get("stop"),
                "loss": rs[0].get("loss_pct"),
            }
    return out


def conditions(rows):
    ts = sorted(r["ts"] for r in rows if r.get("ts"))
    loads = [x for r in rows for x in (r.get("load1_start"), r.get("load1_end")) if x is not None]
    commits = sorted(set(r.get("commit") or "?" for r in rows))
    notes = sorted(set(r["note"] for r in rows if r.get("note")))
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as fh:
            mem = int(fh.readline().split()[1]) / 1024 / 1024
    except (OSError, ValueError):
        mem = 0
    nproc = rows[0].get("nproc") if rows else None
    return ts, loads, commits, notes, cpu, mem, nproc


def markdown(rows, png_rel, command=None):
    agg = aggregate(rows)
    ts, loads, commits, notes, cpu, mem, nproc = conditions(rows)
    ids = sorted(set(r.get("suite_id") for r in rows))
    L = []
    L.append("## The project's benchmark suite (tests/bench/run_suite.py)")
    L.append("")
    L.append("Generated by `tests/bench/report.py` from the raw results of `tests/bench/run_suite.py`; "
             "do not edit by hand.")
    L.append("")
    if ts:
        L.append("- taken %s to %s (suite %s), commit %s" % (ts[0], ts[-1], ", ".join(ids), ", ".join(commits)))
    L.append("- machine: %s cores (%s), %.0f GiB; rsyslogd 8.2302 (Debian 12) and sluiced, the same "
             "configuration file for both (`tests/bench/configs/`, `../shared/bench/configs/`), "
             "the same input, interleaved run by run" % (nproc or "?", cpu, mem))
    if loads:
        L.append("- load average (1 min) around the runs: min %.1f, median %.1f, max %.1f%s" % (
            min(loads), statistics.median(loads), max(loads),
            " — **the machine was shared with other builds and tests while these figures were taken, "
            "so messages/s are noisy; CPU per message is the steadier figure**"
            if max(loads) > (nproc or 2) * 0.75 else ""))
    for n in notes:
        L.append("- note: %s" % n)
    L.append("- messages/s: N / (time from the sender's start until the output holds all N lines, the "
             "daemon's flush included); CPU: the daemon's user+system seconds over that time per "
             "1,000,000 messages; memory: the daemon's peak RSS (VmHWM); lost/dup: "
             "every sequence number checked (`tests/check_seq.py`) or, for the shared bench, line "
             "counts plus a byte-exact comparison in the first run")
    L.append("")
    cmds = sorted(set(r["cmd"] for r in rows if r.get("cmd")))
    L.append("Commands (from the top build dir):")
    L.append("")
    L.append("```sh")
    for c in ([command] if command else []) or cmds or ["tests/bench/run_suite.py --n N --runs R"]:
        L.append(c)
    L.append("tests/bench/report.py RESULTS.jsonl --doc doc/benchmarks.md --png-dir doc/benchmarks")
    L.append("```")
    L.append("")
    L.append("| scenario | daemon | runs | N | msgs/s (median) | CPU s per 1M msgs (median) | "
             "peak RSS MB | lost/dup | check |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for s in sorted(agg, key=scen_key):
        if s == "udp":
            continue
        ds = agg[s]
        name = s + (" (%d conns)" % ds[next(iter(ds))]["conns"] if s == "conn" and ds[next(iter(ds))].get("conns")
                    else "")
        for d in DAEMONS:
            if d not in ds:
                continue
            a = ds[d]
            L.append("| %s | %s | %d | %s | %s | %s | %s | %d/%d | %s |" % (
                name, d, a["runs"], fnum(a["n"]), fnum(a["mps"]), fnum(a["cpu"], 2), fnum(a["rss"]),
                a["lost"], a["dup"], ", ".join(a["verify"])))
        if all(d in ds and ds[d]["mps"] and ds[d]["cpu"] is not None for d in DAEMONS) and ds["rsyslog"]["cpu"]:
            ratios.append("- %s: sluiced **%.2f×** rsyslogd's messages/s at **%.2f×** its CPU per message "
                          "(%.2f vs %.2f CPU s per 1M)" % (
                              TITLES.get(s, s), ds["sluice"]["mps"] / ds["rsyslog"]["mps"],
                              ds["sluice"]["cpu"] / ds["rsyslog"]["cpu"], ds["sluice"]["cpu"],
                              ds["rsyslog"]["cpu"]))
    L.append("")
    L += ratios
    missing = [s for s in ("kafka", "es") if s not in agg]
    if missing:
        L.append("- not in this run: %s (`tests/bench/run_suite.py --scenarios %s` runs "
                 "tests/services/kafka_bench.sh / es_bench.sh against the real servers and records "
                 "their results the same way)" % (", ".join(TITLES[s] for s in missing), ",".join(missing)))
    L.append("")
    steps = [r for r in rows if r["scenario"] == "udp-step"]
    if "udp" in agg or steps:
        L.append("### UDP rate search")
        L.append("")
        secs = sorted(set(r.get("step_s") for r in steps if r.get("step_s")))
        L.append("tcpflood -T udp sends at a target rate for %s s per step (N = rate × seconds), the rate "
                 "rising step by step while loss stays at or below 0.1%%; loss is counted per sequence "
                 "number after the daemon stopped." % ("/".join("%g" % x for x in secs) or "?"))
        L.append("")
        L.append("| daemon | highest rate with ≤ 0.1% loss (msgs/s) | loss there | CPU s per 1M msgs there | "
                 "peak RSS MB | why the search stopped |")
        L.append("|---|---|---|---|---|---|")
        for d in DAEMONS:
            a = agg.get("udp", {}).get(d)
            if a:
                L.append("| %s | %s | %s | %s | %s | %s |" % (
                    d, fnum(a["mps"]), "–" if a["loss"] is None else "%.3f%%" % a["loss"], fnum(a["cpu"], 2),
                    fnum(a["rss"]), a["stop"] or ""))
        L.append("")
        rates = sorted(set(r["rate"] for r in steps))
        if rates:
            L.append("| target rate | " + " | ".join("%s loss / sent rate / CPU s per 1M" % d for d in DAEMONS
                                                   if any(r["daemon"] == d for r in steps)) + " |")
            present = [d for d in DAEMONS if any(r["daemon"] == d for r in steps)]
            L.append("|---|" + "---|" * len(present))
            for rate in rates:
                cells = []
                for d in present:
                    rs = [r for r in steps if r["rate"] == rate and r["daemon"] == d]
                    cells.append("; ".join("%.3f%% / %s / %s" % (r.get("loss_pct") or 0.0, fnum(r.get("send_rate")),
                                                                 fnum(r.get("cpu_s_per_m"), 2)) for r in rs) or "–")
                L.append("| %s | %s |" % (fnum(rate), " | ".join(cells)))
            L.append("")
    if png_rel:
        L.append("![messages/s](%s/suite-throughput.png) ![CPU per message](%s/suite-cpu.png)" % (png_rel, png_rel))
        L.append("")
        L.append("![peak memory](%s/suite-memory.png) ![UDP loss by rate](%s/suite-udp.png)" % (png_rel, png_rel))
        L.append("")
    return "\n".join(L).rstrip() + "\n", agg


def plots(rows, agg, png_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(png_dir, exist_ok=True)
    scens = [s for s in sorted(agg, key=scen_key) if s != "udp"]
    colors = {"rsyslog": "#888888", "sluice": "#1f77b4"}
    meta = {"Software": None}

    def bars(key, allkey, ylabel, title, fn, scale=1.0):
        fig, ax = plt.subplots(figsize=(9, 4.2))
        w = 0.38
        for k, d in enumerate(DAEMONS):
            xs, ys = [], []
            for i, s in enumerate(scens):
                a = agg[s].get(d)
                if a and a.get(key) is not None:
                    xs.append(i + (k - 0.5) * w)
                    ys.append(a[key] / scale)
                    if allkey:
                        pts = [v / scale for v in a[allkey]]
                        ax.plot([i + (k - 0.5) * w] * len(pts), pts, "k.", markersize=3)
            ax.bar(xs, ys, w, label=LABEL[d], color=colors[d])
        ax.set_xticks(range(len(scens)))
        ax.set_xticklabels(scens, rotation=20, ha="right")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend()
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(png_dir, fn), dpi=90, metadata=meta)
        plt.close(fig)

    bars("mps", "mps_all", "messages/s (thousands), median; dots: runs", "Throughput", "suite-throughput.png", 1e3)
    bars("cpu", "cpu_all", "daemon CPU s per 1M messages (median)", "CPU per message (lower is better)",
         "suite-cpu.png")
    bars("rss", None, "peak RSS (MB)", "Peak memory (VmHWM)", "suite-memory.png")
    steps = [r for r in rows if r["scenario"] == "udp-step"]
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for d in DAEMONS:
        pts = sorted((r["rate"], r.get("loss_pct") or 0.0) for r in steps if r["daemon"] == d)
        if pts:
            ax.plot([p[0] / 1e3 for p in pts], [max(p[1], 1e-3) for p in pts], "o-", label=LABEL[d], color=colors[d])
    ax.axhline(0.1, color="red", linestyle="--", linewidth=1, label="0.1% loss bound")
    ax.set_yscale("log")
    ax.set_xlabel("target rate (thousand msgs/s)")
    ax.set_ylabel("loss % (0 drawn at 0.001%)")
    ax.set_title("UDP loss by sending rate")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(png_dir, "suite-udp.png"), dpi=90, metadata=meta)
    plt.close(fig)


def put_block(doc, block):
    text = open(doc).read() if os.path.exists(doc) else ""
    new = BEGIN + "\n" + block + END + "\n"
    if BEGIN in text and END in text and text.index(BEGIN) < text.index(END):
        a = text.index(BEGIN)
        b = text.index(END) + len(END)
        if text[b:b + 1] == "\n":
            b += 1
        text = text[:a] + new + text[b:]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + new
    with open(doc, "w") as fh:
        fh.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="*", default=["/var/tmp/bench-results/suite.jsonl"])
    ap.add_argument("--suite-id", help="comma-separated suite ids to keep, or 'latest'")
    ap.add_argument("--doc", help="Markdown file whose suite block is replaced")
    ap.add_argument("--png-dir", help="directory for the PNG plots")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--command", help="the suite command to quote (default: the one recorded in the results)")
    args = ap.parse_args()
    rows = load(args.results, args.suite_id.split(",") if args.suite_id else [])
    if not rows:
        print("report: no results in %s" % ", ".join(args.results), file=sys.stderr)
        return 1
    png_rel = None
    if args.png_dir and not args.no_plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            # a python3 of its own (pyenv, venv) first on PATH: Debian's has python3-matplotlib
            sysp = "/usr/bin/python3"
            if os.path.realpath(sys.executable) != os.path.realpath(sysp) and os.access(sysp, os.X_OK):
                os.execv(sysp, [sysp] + sys.argv)
            print("report: matplotlib missing (apt-get install python3-matplotlib); use --no-plots",
                  file=sys.stderr)
            return 2
        base = os.path.dirname(os.path.abspath(args.doc)) if args.doc else os.getcwd()
        png_rel = os.path.relpath(os.path.abspath(args.png_dir), base)
    block, agg = markdown(rows, png_rel, args.command)
    if png_rel:
        plots(rows, agg, args.png_dir)
    if args.doc:
        put_block(args.doc, block)
    sys.stdout.write(block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
