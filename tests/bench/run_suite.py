#!/usr/bin/env python3
"""run_suite.py - the project's benchmark suite: sluiced against rsyslogd.

Each scenario runs against both daemons with the same configuration file
and the same input, interleaved (run 1: rsyslog then sluice, run 2: sluice
then rsyslog, ...), and appends one JSON line per run to --results:

  tcp        one tcpflood connection, RFC3164, into imtcp, one file
  tls        one tcpflood connection, RFC5424 over TLS (octet-counted), one file
  conn       --conns tcpflood connections at once (default 1,000), one file
  udp        rate search: tcpflood -T udp at rising rates until more than
             --udp-loss % (0.1) is lost; per daemon the highest rate that kept
             within it ("udp" record) plus one "udp-step" record per step
  bench-bsd-tcp, bench-ietf-tls, bench-filter
             ../shared/bench/bench.py (realistic message mix from its
             gen_messages.py, socat as sender, imtcp variant; bench-filter is
             five clients through five regex filters into five files)
  kafka, es  hooks: tests/services/kafka_bench.sh and es_bench.sh (real
             broker / Elasticsearch on 127.0.0.1), their result lines parsed

Every record has: scenario, daemon, run, n, wall_s, msgs_per_s,
daemon_cpu_s, cpu_s_per_m (CPU seconds per million messages), peak_rss_mb
(VmHWM), lost, dup, verify, plus the engine, the git commit, the load
average and a suite id. tests/bench/report.py turns the results into the
Markdown tables and PNG plots of doc/benchmarks.md.

The tcpflood scenarios measure from the start of tcpflood until the output
file holds all N lines (polled every 20 ms, reading only new bytes), CPU
(user+sys, all threads) from /proc/PID/stat over that time, and check every
sequence number with tests/check_seq.py after the daemon stopped (SIGTERM).

  tests/bench/run_suite.py                      # all but kafka/es, N=5M, 3 runs
  tests/bench/run_suite.py --n 20000000 --runs 3 --scenarios tcp,tls,udp
  tests/bench/run_suite.py --quick --daemons sluice   # < 1 min, for CI smoke

Environment: SLUICED (daemon binary, default tools/sluiced of this tree;
its modules are found relative to it), RSYSLOGD (/usr/sbin/rsyslogd),
TCPFLOOD (tools/tcpflood), BENCH_DIR (../shared/bench), BENCH_TMP (/var/tmp).
Only 127.0.0.1; each daemon in the foreground with its own run directory;
only the PIDs started here are signalled; run directories are removed.

Threading model: sequential; one daemon and its sender(s) at a time.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CLK = os.sysconf("SC_CLK_TCK")
TCPFLOOD_SCEN = ("tcp", "tls", "conn", "udp")
BENCH_SCEN = {"bench-bsd-tcp": ("bsd-tcp", "imtcp"), "bench-ietf-tls": ("ietf-tls", None),
              "bench-filter": ("filter", "imtcp")}
HOOK_SCEN = ("kafka", "es")
ALL = TCPFLOOD_SCEN + tuple(BENCH_SCEN) + HOOK_SCEN
DEFAULT = TCPFLOOD_SCEN + tuple(BENCH_SCEN)
DAEMONS = ("rsyslog", "sluice")


def log(msg):
    sys.stderr.write("[suite] %s\n" % msg)
    sys.stderr.flush()


# ------------------------------------------------------------ /proc helpers
def proc_cpu(pid):
    """user+sys seconds of a whole process (all threads), or None."""
    try:
        with open("/proc/%d/stat" % pid) as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / CLK
    except (OSError, IndexError, ValueError):
        return None


def proc_hwm_mb(pid):
    try:
        with open("/proc/%d/status" % pid) as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def listening(port, proto):
    files = {"tcp": ["/proc/net/tcp", "/proc/net/tcp6"], "udp": ["/proc/net/udp", "/proc/net/udp6"]}[proto]
    hexport = ":%04X" % port
    for fn in files:
        try:
            with open(fn) as fh:
                next(fh)
                for line in fh:
                    f = line.split()
                    if f[1].endswith(hexport) and (proto == "udp" or f[3] == "0A"):
                        return True
        except OSError:
            pass
    return False


def free_port(proto):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def load1():
    try:
        with open("/proc/loadavg") as fh:
            return float(fh.read().split()[0])
    except (OSError, ValueError):
        return None


class LineCounter:
    """Counts LF in a growing file, reading only the bytes added since."""

    def __init__(self, path):
        self.path, self.fh, self.lines = path, None, 0

    def poll(self):
        if self.fh is None:
            try:
                self.fh = open(self.path, "rb", buffering=0)
            except FileNotFoundError:
                return 0
        while True:
            b = self.fh.read(4 << 20)
            if not b:
                return self.lines
            self.lines += b.count(b"\n")

    def close(self):
        if self.fh:
            self.fh.close()
            self.fh = None


# ------------------------------------------------------------ daemons
def daemon_argv(args, daemon, conf, run):
    if daemon == "rsyslog":
        return [args.rsyslogd, "-n", "-f", conf, "-i", os.path.join(run, "rsyslogd.pid")]
    return [args.sluiced, "-n", "-f", conf, "-i", os.path.join(run, "sluiced.pid")]


def make_cert(d):
    key, cert, tpl = (os.path.join(d, x) for x in ("key.pem", "cert.pem", "cert.tpl"))
    with open(tpl, "w") as fh:
        fh.write('cn = "localhost"\ndns_name = "localhost"\nip_address = "127.0.0.1"\nserial = 1\n'
                 'expiration_days = 30\nca\nsigning_key\nencryption_key\ntls_www_server\ntls_www_client\n')
    q = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": True}
    subprocess.run(["certtool", "--generate-privkey", "--key-type=rsa", "--bits=2048", "--outfile", key], **q)
    subprocess.run(["certtool", "--generate-self-signed", "--load-privkey", key, "--template", tpl,
                    "--outfile", cert], **q)
    return {"CERT": cert, "KEY": key, "CA": cert}


def parse_tcpflood(text):
    m = re.search(r"tcpflood: sent (\d+) messages \((\d+) bytes\) over (\d+) connections in ([\d.]+) s", text)
    if not m:
        return {}
    sent, secs = int(m.group(1)), float(m.group(4))
    return {"sent": sent, "send_s": secs, "send_rate": round(sent / secs) if secs > 0 else None}


def check_seq(args, out_file, n):
    """Runs tests/check_seq.py; returns (missing, dups, ok, summary)."""
    r = subprocess.run([sys.executable, args.check_seq, out_file, "--expect", str(n)],
                       capture_output=True, text=True)
    line = (r.stdout + r.stderr).strip().splitlines()[-1:] or [""]
    m = re.search(r"(\d+) missing.* (\d+) duplicates", line[0])
    if not m:
        return None, None, False, line[0]
    return int(m.group(1)), int(m.group(2)), r.returncode == 0, line[0]


def flood_run(args, scen, daemon, run_no, n, rate=0, certs=None):
    """One tcpflood-driven run of daemon; returns the result record."""
    tmp = tempfile.mkdtemp(prefix="suite-run.", dir=args.tmp_dir)
    try:
        return _flood_run(args, scen, daemon, run_no, n, rate, certs or {}, tmp)
    finally:
        if args.keep:
            log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _flood_run(args, scen, daemon, run_no, n, rate, certs, tmp):
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    os.makedirs(os.path.join(tmp, "work"))
    proto = "udp" if scen == "udp" else "tcp"
    port = free_port(proto)
    ph = dict(certs, RUN=tmp, OUT=out, PORT=port)
    with open(os.path.join(HERE, "configs", scen + ".conf")) as fh:
        conf_text = fh.read()
    for k, v in ph.items():
        conf_text = conf_text.replace("@%s@" % k, str(v))
    conf = os.path.join(tmp, "daemon.conf")
    with open(conf, "w") as fh:
        fh.write(conf_text)
    conns = args.conns if scen == "conn" else 1
    flood = [args.tcpflood, "-t", "127.0.0.1", "-p", str(port), "-m", str(n), "-c", str(conns),
             "-X", "-R", args.sizes, "-q"]
    if scen == "tls":
        flood += ["-T", "tls", "-5", "-F", "oc"]
    elif scen == "udp":
        flood += ["-T", "udp", "-r", str(rate)]
    rec = {"scenario": "udp-step" if scen == "udp" else scen, "daemon": daemon, "engine": "tcpflood",
           "run": run_no, "n": n, "conns": conns, "load1_start": load1()}
    if scen == "udp":
        rec["rate"] = rate
    dlog = open(os.path.join(tmp, "daemon.log"), "w")
    dproc = subprocess.Popen(daemon_argv(args, daemon, conf, tmp), stdout=dlog, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True, cwd=tmp)
    sender = None
    counter = LineCounter(os.path.join(out, "all.log"))
    try:
        t_start = time.monotonic()
        while not listening(port, proto):
            if dproc.poll() is not None:
                raise RuntimeError("%s exited (rc=%s) during startup:\n%s" % (
                    daemon, dproc.returncode, open(os.path.join(tmp, "daemon.log")).read()[-2000:]))
            if time.monotonic() - t_start > 30:
                raise RuntimeError("%s did not listen on %s/%d within 30 s" % (daemon, proto, port))
            time.sleep(0.05)
        time.sleep(args.settle)
        cpu0 = proc_cpu(dproc.pid)
        t0 = time.monotonic()
        s_out = open(os.path.join(tmp, "sender.out"), "w+")
        sender = subprocess.Popen(flood, stdout=s_out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  start_new_session=True)
        s_ru = None
        t_done = None
        last, last_growth = -1, t0
        cpu_at_growth = cpu0
        quiet = args.udp_quiet if scen == "udp" else args.stall
        while True:
            time.sleep(0.02)
            now = time.monotonic()
            if s_ru is None:
                pid, st, ru = os.wait4(sender.pid, os.WNOHANG)
                if pid:
                    sender.returncode = os.waitstatus_to_exitcode(st)
                    s_ru = ru
                    t_sent = now
            lines = counter.poll()
            if lines != last:
                last, last_growth = lines, now
                cpu_at_growth = proc_cpu(dproc.pid)
            if lines >= n:
                t_done = now
                break
            if dproc.poll() is not None:
                raise RuntimeError("%s died during the run (rc=%s)" % (daemon, dproc.returncode))
            if s_ru is not None and sender.returncode != 0:
                break   # sender failed: no point waiting
            if s_ru is not None and now - max(last_growth, t_sent) > quiet:
                break   # incomplete (loss)
            if now - t0 > args.timeout:
                log("timeout after %.0f s" % args.timeout)
                break
        cpu1 = proc_cpu(dproc.pid) if t_done else cpu_at_growth
        t_end = t_done or last_growth
        hwm = proc_hwm_mb(dproc.pid)
        if s_ru is None:   # output complete before tcpflood's linger ended
            pid, st, s_ru = os.wait4(sender.pid, 0)
            sender.returncode = os.waitstatus_to_exitcode(st)
        s_out.seek(0)
        s_text = s_out.read()
        s_out.close()
        if sender.returncode != 0:
            log("tcpflood failed (rc=%d): %s" % (sender.returncode, s_text.strip()[-800:]))
        wall = t_end - t0
        rec.update({"wall_s": round(wall, 3), "msgs_per_s": round(n / wall) if wall > 0 and t_done else None,
                    "daemon_cpu_s": round(cpu1 - cpu0, 2), "peak_rss_mb": hwm,
                    "sender_cpu_s": round(s_ru.ru_utime + s_ru.ru_stime, 2), "sender_rc": sender.returncode,
                    "complete": t_done is not None, "load1_end": load1()})
        rec.update(parse_tcpflood(s_text))
    finally:
        if sender is not None and sender.returncode is None:
            try:
                os.killpg(sender.pid, signal.SIGKILL)
                sender.wait()
            except (ProcessLookupError, ChildProcessError):
                pass
        counter.close()
        if dproc.poll() is None:
            dproc.send_signal(signal.SIGTERM)
            try:
                dproc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                log("%s did not stop in 60 s, SIGKILL" % daemon)
                dproc.kill()
                dproc.wait()
        dlog.close()
    # after the daemon flushed and exited: every number exactly once?
    sent = rec.get("sent", n if rec.get("sender_rc") == 0 else None)
    missing, dups, ok, summary = check_seq(args, os.path.join(out, "all.log"), n)
    received = LineCounter(os.path.join(out, "all.log"))
    rec["received"] = received.poll()
    received.close()
    rec["lost"], rec["dup"] = missing, dups
    rec["verify"] = "ok" if ok else ("FAIL: " + summary)
    if scen == "udp":
        rec["sent"] = sent
        rec["loss_pct"] = round(100.0 * (missing or 0) / n, 4) if n else None
        if missing and dups == 0:
            rec["verify"] = "loss"
        if rec["daemon_cpu_s"] is not None and rec["received"]:
            rec["cpu_s_per_m"] = round(rec["daemon_cpu_s"] * 1e6 / rec["received"], 3)
    elif rec["daemon_cpu_s"] is not None:
        rec["cpu_s_per_m"] = round(rec["daemon_cpu_s"] * 1e6 / n, 3)
    if rec["verify"] != "ok" and scen != "udp":
        log("%s %s run %d: %s" % (scen, daemon, run_no, rec["verify"]))
        try:
            log("daemon log tail: %s" % open(os.path.join(tmp, "daemon.log")).read()[-1000:])
        except OSError:
            pass
    return rec


# ------------------------------------------------------------ scenarios
def order(i, daemons):
    return list(daemons) if i % 2 == 1 else list(reversed(daemons))


def run_flood_scenario(args, scen, emit):
    certs, certdir = None, None
    if scen == "tls":
        certdir = tempfile.mkdtemp(prefix="suite-cert.", dir=args.tmp_dir)
        certs = make_cert(certdir)
    try:
        for i in range(1, args.runs + 1):
            for d in order(i, args.daemons):
                n = args.conn_n if scen == "conn" else args.n
                emit(flood_run(args, scen, d, i, n, certs=certs))
    finally:
        if certdir:
            shutil.rmtree(certdir, ignore_errors=True)


def run_udp_search(args, emit):
    """Steps the rate up (x --udp-factor) until loss > --udp-loss for every daemon."""
    best, active, rate, step = {}, list(args.daemons), args.udp_start, 0
    stop_reason, short = {}, {}
    while active and step < args.udp_steps:
        step += 1
        n = max(1000, min(args.n, int(rate * args.udp_seconds)))
        for d in order(step, active):
            r = flood_run(args, "udp", d, step, n, rate=rate)
            r["step_s"] = args.udp_seconds
            emit(r)
            achieved = r.get("send_rate") or 0
            ok = r.get("loss_pct") is not None and r["loss_pct"] <= args.udp_loss and r.get("sender_rc") == 0
            if not ok:
                stop_reason[d] = "loss %.3f%% at %d/s" % (r.get("loss_pct") or 100.0, rate)
                active.remove(d)
                continue
            if d not in best or achieved > (best[d].get("send_rate") or 0):
                best[d] = r
            # the sender (sharing the cores) fell short of the rate twice in a row: asking
            # for more would not send more
            short[d] = short.get(d, 0) + 1 if achieved < 0.9 * rate else 0
            if short[d] >= 2:
                stop_reason[d] = "sender-bound: asked %d/s, tcpflood reached %d/s" % (rate, achieved)
                active.remove(d)
        rate = int(rate * args.udp_factor)
    for d in args.daemons:
        b = best.get(d)
        rec = {"scenario": "udp", "daemon": d, "engine": "tcpflood", "run": 1,
               "stop": stop_reason.get(d, "step limit (%d steps)" % args.udp_steps)}
        if b:
            rec.update({k: b.get(k) for k in ("n", "rate", "send_rate", "loss_pct", "daemon_cpu_s",
                                              "cpu_s_per_m", "peak_rss_mb", "lost", "dup", "wall_s")})
            rec["msgs_per_s"] = b.get("send_rate")   # highest rate kept within the loss bound
        else:
            rec.update({"msgs_per_s": None, "n": 0})
        rec["verify"] = "ok" if b else "none within %.2f%% loss" % args.udp_loss
        emit(rec)


def run_bench_scenario(args, scen, emit):
    """Delegates to ../shared/bench/bench.py, one run per daemon in turn."""
    bench = os.path.join(args.bench_dir, "bench.py")
    if not os.path.exists(bench):
        log("%s: skipped, no %s (set BENCH_DIR)" % (scen, bench))
        return
    bscen, variant = BENCH_SCEN[scen]
    env = dict(os.environ, SLUICED=args.sluiced)
    for i in range(1, args.runs + 1):
        for d in order(i, args.daemons):
            fd, tmpres = tempfile.mkstemp(prefix="suite-bench.", suffix=".jsonl", dir=args.tmp_dir)
            os.close(fd)
            argv = [sys.executable, bench, "--daemon", d, "--scenario", bscen, "--n", str(args.n),
                    "--runs", "1", "--results", tmpres, "--verify", "first" if i == 1 else "none",
                    "--tmp-dir", args.tmp_dir]
            if variant:
                argv += ["--variant", variant]
            l0 = load1()
            r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                with open(tmpres) as fh:
                    rows = [json.loads(x) for x in fh if x.strip()]
            finally:
                os.unlink(tmpres)
            if not rows:
                log("%s %s: bench.py failed (rc=%d): %s" % (scen, d, r.returncode, r.stderr[-1500:]))
                emit({"scenario": scen, "daemon": d, "engine": "bench.py", "run": i, "n": args.n,
                      "msgs_per_s": None, "verify": "FAIL: bench.py rc=%d" % r.returncode})
                continue
            b = rows[-1]
            rec = {"scenario": scen, "daemon": d, "engine": "bench.py", "run": i, "load1_start": l0,
                   "load1_end": load1()}
            for k in ("n", "wall_s", "msgs_per_s", "daemon_cpu_s", "peak_rss_mb", "sender_cpu_s", "received",
                      "lost", "dup", "verify", "complete", "per_file", "variant", "sender"):
                if k in b:
                    rec[k] = b[k]
            if b.get("daemon_cpu_s") is not None:
                rec["cpu_s_per_m"] = round(b["daemon_cpu_s"] * 1e6 / b["n"], 3)
            if rec.get("verify") == "counts-only":
                rec["verify"] = "ok" if not (b.get("lost") or b.get("dup")) else "FAIL(counts)"
            emit(rec)


KAFKA_RE = re.compile(r"kafka-bench:\s+(\S+)\s+(\d+) msgs\s+(\d+) in topic\s+([\d.]+) s\s+([\d.]+) msg/s"
                      r"\s+cpu\s+([\d.]+) s")
# es_bench.sh: distinct documents, the time to the last one's first
# arrival, distinct docs/s and the daemon's CPU up to its last operation
ES_RE = re.compile(r"RESULT (\S+) (\d+) msgs: (\d+) distinct \((\d+) docs, .*?\); "
                   r"last distinct first arrival ([\d.]+) s: ([\d.]+) distinct docs/s; "
                   r"last operation [\d.]+ s, CPU ([\d.]+) s")


def run_hook(args, scen, emit):
    """Runs tests/services/{kafka,es}_bench.sh and turns its result lines into records."""
    script = os.path.join(TOP, "tests", "services", "kafka_bench.sh" if scen == "kafka" else "es_bench.sh")
    if not os.path.exists(script):
        log("%s: skipped, no %s" % (scen, script))
        return
    n = args.kafka_n if scen == "kafka" else args.service_n
    env = dict(os.environ, SLUICED=args.sluiced, TCPFLOOD=args.tcpflood, ES_BENCH_NMSGS=str(n))
    if scen == "es" and "ES_BENCH_DAEMONS" not in env:
        # one Elasticsearch for all runs, the daemons alternating
        # (ABBA...): the first run of all meets a cold server
        order = []
        for i in range(args.runs):
            order += ["sluiced", "rsyslogd"] if i % 2 == 0 else ["rsyslogd", "sluiced"]
        env["ES_BENCH_DAEMONS"] = " ".join(order)
    argv = ["bash", script] + ([str(n), str(args.runs)] if scen == "kafka" else [])
    log("%s: %s" % (scen, " ".join(argv)))
    r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       cwd=args.build_dir)
    if r.returncode == 77:
        log("%s: skipped by the script: %s" % (scen, r.stdout.strip()[-300:]))
        return
    runs = {}
    seen = set()
    for line in r.stdout.splitlines():
        m = (KAFKA_RE if scen == "kafka" else ES_RE).search(line)
        if not m or line in seen:
            continue  # es_bench.sh repeats its result lines at the end
        seen.add(line)
        if scen == "kafka":
            dname, n_, got, secs, rate, cpu = m.groups()
            docs = got
        else:
            # got: distinct documents; docs: all of them (duplicates too)
            dname, n_, got, docs, secs, rate, cpu = m.groups()
        d = {"sluiced": "sluice", "rsyslogd": "rsyslog"}.get(dname, dname)
        runs[d] = runs.get(d, 0) + 1
        n_, got, docs = int(n_), int(got), int(docs)
        emit({"scenario": scen, "daemon": d, "engine": os.path.basename(script), "run": runs[d], "n": n_,
              "wall_s": float(secs), "msgs_per_s": round(float(rate)), "daemon_cpu_s": float(cpu),
              "cpu_s_per_m": round(float(cpu) * 1e6 / max(got, 1), 3), "peak_rss_mb": None,
              "received": docs, "lost": max(0, n_ - got), "dup": max(0, docs - got, got - n_),
              "verify": "ok" if got == n_ and docs == n_ else "count %d distinct, %d in all, of %d"
              % (got, docs, n_)})
    if not runs:
        log("%s: no result lines (rc=%d): %s" % (scen, r.returncode, r.stdout[-1500:]))


# ------------------------------------------------------------ main
def git_commit():
    try:
        return subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or None
    except OSError:
        return None


def summarize(rows):
    by = {}
    for r in rows:
        if r["scenario"] == "udp-step":
            continue
        by.setdefault(r["scenario"], {}).setdefault(r["daemon"], []).append(r)
    for scen, ds in by.items():
        for d, rs in sorted(ds.items()):
            mps = [r["msgs_per_s"] for r in rs if r.get("msgs_per_s")]
            cpu = [r["cpu_s_per_m"] for r in rs if r.get("cpu_s_per_m") is not None]
            rss = [r["peak_rss_mb"] for r in rs if r.get("peak_rss_mb") is not None]
            print("SUITE %-15s %-8s runs=%d msgs_per_s=%s cpu_s_per_m=%s peak_rss_mb=%s verify=%s" % (
                scen, d, len(rs), round(statistics.median(mps)) if mps else None,
                round(statistics.median(cpu), 3) if cpu else None, max(rss) if rss else None,
                ",".join(str(r.get("verify")) for r in rs)), flush=True)


def main():
    # SIGTERM (a test's timeout) unwinds through the finally blocks that stop the daemons
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="scenarios: " + ", ".join(ALL))
    ap.add_argument("--quick", action="store_true",
                    help="small figures for a smoke run: n=20000, 1 run, 50 connections, 2 UDP steps; "
                         "default scenarios tcp,tls,conn,udp")
    ap.add_argument("--n", type=int, help="messages per run (default 5000000; --quick 20000)")
    ap.add_argument("--runs", type=int, help="runs per daemon (default 3; --quick 1)")
    ap.add_argument("--scenarios", help="comma-separated, or 'all' (default: all but kafka,es)")
    ap.add_argument("--daemons", default="rsyslog,sluice", help="comma-separated subset of rsyslog,sluice")
    ap.add_argument("--conns", type=int, help="connections of the conn scenario (default 1000; --quick 50)")
    ap.add_argument("--conn-n", type=int, help="messages of the conn scenario (default --n)")
    ap.add_argument("--sizes", default="100:200", help="tcpflood -R MIN:MAX message sizes (random text)")
    ap.add_argument("--udp-start", type=int, help="first rate of the UDP search, msgs/s (default 50000)")
    ap.add_argument("--udp-factor", type=float, default=1.3, help="rate multiplier per step")
    ap.add_argument("--udp-steps", type=int, help="at most this many steps (default 12; --quick 2)")
    ap.add_argument("--udp-seconds", type=float, help="seconds of sending per step (default 5; --quick 1)")
    ap.add_argument("--udp-loss", type=float, default=0.1, help="loss bound in percent (default 0.1)")
    ap.add_argument("--udp-quiet", type=float, default=3.0, help="UDP: stop this long after the last growth")
    ap.add_argument("--service-n", type=int, default=1000000, help="messages for the es hook")
    ap.add_argument("--kafka-n", type=int, default=3000000,
                    help="messages for the kafka hook (its time resolution is 50 ms)")
    ap.add_argument("--stall", type=float, default=30.0, help="give up a TCP run after this long without growth")
    ap.add_argument("--settle", type=float, default=0.5, help="idle seconds after the port opens")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--results", default=os.environ.get("BENCH_RESULTS", "/var/tmp/bench-results/suite.jsonl"))
    ap.add_argument("--bench-dir", default=os.environ.get("BENCH_DIR", os.path.join(TOP, "..", "shared", "bench")))
    ap.add_argument("--build-dir", default=os.environ.get("top_builddir", TOP))
    ap.add_argument("--tmp-dir", default=os.environ.get("BENCH_TMP", "/var/tmp"))
    ap.add_argument("--commit", help="commit the measured sluiced was built from (default: this tree's HEAD)")
    ap.add_argument("--note", help="free text stored in every record (e.g. 'machine under load')")
    ap.add_argument("--keep", action="store_true", help="keep run directories")
    args = ap.parse_args()
    q = args.quick
    args.n = args.n or (20000 if q else 5000000)
    args.runs = args.runs or (1 if q else 3)
    args.conns = args.conns or (50 if q else 1000)
    args.conn_n = args.conn_n or args.n
    args.udp_start = args.udp_start or (5000 if q else 50000)
    args.udp_steps = args.udp_steps or (2 if q else 12)
    args.udp_seconds = args.udp_seconds or (1.0 if q else 5.0)
    if args.scenarios in (None, ""):
        scens = list(TCPFLOOD_SCEN if q else DEFAULT)
    elif args.scenarios == "all":
        scens = list(ALL)
    else:
        scens = args.scenarios.split(",")
    bad = [s for s in scens if s not in ALL]
    if bad:
        ap.error("unknown scenario(s) %s; known: %s" % (",".join(bad), ", ".join(ALL)))
    args.daemons = args.daemons.split(",")
    if any(d not in DAEMONS for d in args.daemons):
        ap.error("--daemons: rsyslog and/or sluice")
    b = args.build_dir
    args.sluiced = os.path.abspath(os.environ.get("SLUICED", os.path.join(b, "tools", "sluiced")))
    args.tcpflood = os.path.abspath(os.environ.get("TCPFLOOD", os.path.join(b, "tools", "tcpflood")))
    args.rsyslogd = os.environ.get("RSYSLOGD", "/usr/sbin/rsyslogd")
    args.check_seq = os.path.join(HERE, "..", "check_seq.py")
    args.bench_dir = os.path.abspath(args.bench_dir)
    for path, what in ((args.tcpflood, "tcpflood"), (args.sluiced if "sluice" in args.daemons else None, "sluiced"),
                       (args.rsyslogd if "rsyslog" in args.daemons else None, "rsyslogd")):
        if path and not os.access(path, os.X_OK):
            log("%s not found at %s" % (what, path))
            return 77
    suite_id = time.strftime("%Y%m%dT%H%M%S")
    common = {"suite_id": suite_id, "commit": args.commit or git_commit(), "quick": q, "nproc": os.cpu_count(),
              "cmd": shlex.join(["tests/bench/run_suite.py"] + sys.argv[1:])}
    if args.note:
        common["note"] = args.note
    os.makedirs(os.path.dirname(os.path.abspath(args.results)), exist_ok=True)
    rows = []

    def emit(rec):
        rec = dict(common, **rec, ts=time.strftime("%Y-%m-%dT%H:%M:%S"))
        rows.append(rec)
        with open(args.results, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        keys = ("scenario", "daemon", "run", "n", "rate", "msgs_per_s", "send_rate", "cpu_s_per_m",
                "peak_rss_mb", "lost", "dup", "loss_pct", "verify", "load1_start")
        print("RESULT " + " ".join("%s=%s" % (k, rec[k]) for k in keys if rec.get(k) is not None), flush=True)

    log("suite %s: %s against %s, n=%d, runs=%d, results -> %s" % (
        suite_id, ",".join(scens), ",".join(args.daemons), args.n, args.runs, args.results))
    failed = False
    for scen in scens:
        log("scenario %s" % scen)
        try:
            if scen == "udp":
                run_udp_search(args, emit)
            elif scen in TCPFLOOD_SCEN:
                run_flood_scenario(args, scen, emit)
            elif scen in BENCH_SCEN:
                run_bench_scenario(args, scen, emit)
            else:
                run_hook(args, scen, emit)
        except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
            log("scenario %s failed: %s" % (scen, e))
            emit({"scenario": scen, "daemon": "-", "run": 0, "n": 0, "verify": "FAIL: %s" % str(e)[:500]})
            failed = True
    summarize(rows)
    bad_rows = [r for r in rows if r["scenario"] not in ("udp-step", "udp") and r.get("verify") != "ok"]
    return 1 if failed or bad_rows else 0


if __name__ == "__main__":
    sys.exit(main())
