#!/usr/bin/env python3
"""Message-modification benchmark: mmnormalize and mmjsonparse, sluiced
against rsyslogd with the same configuration and input, interleaved.

Each run: start the daemon (imtcp -> mm module -> omfile writing the parsed
fields), send N messages with tools/tcpflood over one connection, wait until
N lines are in the output, record wall time and the daemon's CPU time
(user+sys from /proc/PID/stat), stop it with SIGTERM.

Usage: tests/bench/mm_bench.py [--n N] [--runs R] [--module mmnormalize|mmjsonparse|both]
Prints one line per run and a Markdown table of medians.
"""
import argparse
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLK = os.sysconf("SC_CLK_TCK")

SNORT = ("<33>Nov 25 17:37:12 ids4 snort[776]: [1:%d:%d] WEB-MISC apache directory disclosure "
         "attempt [Classification: Attempted Denial of Service] [Priority: %d]: {TCP} "
         "10.2.%d.%d:%d -> 192.168.1.1:80")
SSHD = "<38>Nov 25 17:37:12 srv sshd[%d]: Failed password for invalid user u%d from 203.0.113.%d port %d ssh2"
CEE = '<13>Nov 25 17:37:12 app1 app[%d]: @cee:{"user":"u%d","n":%d,"ok":true,"path":"/a/b/%d","tags":["x","y"]}'

CONF = {
    "mmnormalize": """
module(load="imtcp")
module(load="mmnormalize")
template(name="t" type="string" string="%$!%\\n")
input(type="imtcp" address="127.0.0.1" port="{port}")
main_queue(queue.type="FixedArray" queue.size="100000" queue.dequeueBatchSize="1024")
if $programname == "snort" then
    action(type="mmnormalize" ruleBase="{top}/contrib/rulebases/snort.rb")
else
    action(type="mmnormalize" ruleBase="{top}/contrib/rulebases/sshd.rb")
action(type="omfile" file="{out}" template="t" ioBufferSize="256k")
""",
    "mmjsonparse": """
module(load="imtcp")
module(load="mmjsonparse")
template(name="t" type="string" string="%$!%\\n")
input(type="imtcp" address="127.0.0.1" port="{port}")
main_queue(queue.type="FixedArray" queue.size="100000" queue.dequeueBatchSize="1024")
action(type="mmjsonparse")
action(type="omfile" file="{out}" template="t" ioBufferSize="256k")
""",
}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def cpu_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / CLK


def count_lines(path):
    try:
        with open(path, "rb") as f:
            return sum(buf.count(b"\n") for buf in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def make_input(path, module, n):
    rnd = random.Random(7)
    with open(path, "w") as f:
        for i in range(min(n, 100000)):
            if module == "mmnormalize":
                if i % 2:
                    f.write(SNORT % (1000 + i % 500, 1 + i % 20, 1 + i % 3, i % 250, rnd.randrange(250),
                                     1024 + i % 60000) + "\n")
                else:
                    f.write(SSHD % (i % 30000, i, i % 250, 1024 + i % 60000) + "\n")
            else:
                f.write(CEE % (i % 30000, i, i, i) + "\n")


def run_once(daemon, module, n, inp, tmp):
    port = free_port()
    out = os.path.join(tmp, "out-%s.log" % daemon)
    if os.path.exists(out):
        os.unlink(out)
    conf = os.path.join(tmp, "%s.conf" % daemon)
    text = CONF[module].format(port=port, out=out, top=TOP)
    if daemon == "rsyslog":
        work = os.path.join(tmp, "rswork")
        os.makedirs(work, exist_ok=True)
        text = 'global(workDirectory="%s")\n' % work + text
        cmd = ["rsyslogd", "-n", "-f", conf, "-i", os.path.join(tmp, "rs.pid")]
    else:
        cmd = [os.path.join(TOP, "tools", "sluiced"), "-n", "-f", conf, "-i", "NONE"]
    with open(conf, "w") as f:
        f.write(text)
    log = open(os.path.join(tmp, "%s.log" % daemon), "w")
    p = subprocess.Popen(cmd, stdout=log, stderr=log)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    time.sleep(0.3)
    c0 = cpu_of(p.pid)
    t0 = time.time()
    subprocess.run([os.path.join(TOP, "tools", "tcpflood"), "-p", str(port), "-m", str(n), "-I", inp, "-q"],
                   check=True, stdout=subprocess.DEVNULL)
    last, last_t = -1, time.time()
    while True:
        k = count_lines(out)
        if k >= n:
            break
        if k != last:
            last, last_t = k, time.time()
        elif time.time() - last_t > 30:
            break
        time.sleep(0.05)
    wall = time.time() - t0
    cpu = cpu_of(p.pid) - c0
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=60)
    log.close()
    got = count_lines(out)
    return {"daemon": daemon, "module": module, "n": n, "wall": wall, "cpu": cpu, "lines": got,
            "rate": n / wall}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--module", default="both")
    a = ap.parse_args()
    mods = ["mmnormalize", "mmjsonparse"] if a.module == "both" else [a.module]
    tmp = tempfile.mkdtemp(prefix="sluice-mmbench.")
    rows = []
    try:
        for m in mods:
            inp = os.path.join(tmp, "%s.in" % m)
            make_input(inp, m, a.n)
            for _ in range(a.runs):
                for d in ("rsyslog", "sluice"):
                    r = run_once(d, m, a.n, inp, tmp)
                    print("RESULT %(module)s %(daemon)s n=%(n)d lines=%(lines)d wall=%(wall).2fs "
                          "rate=%(rate).0f/s cpu=%(cpu).2fs" % r, flush=True)
                    rows.append(r)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    print("| module | daemon | runs | msgs/s (median) | CPU s per 1M msgs | lines |")
    print("|---|---|---|---|---|---|")
    for m in mods:
        med = {}
        for d in ("rsyslog", "sluice"):
            rs = [r for r in rows if r["module"] == m and r["daemon"] == d]
            rate = statistics.median(r["rate"] for r in rs)
            cpu = statistics.median(r["cpu"] * 1e6 / r["n"] for r in rs)
            med[d] = (rate, cpu)
            print("| %s | %s | %d | %s | %.2f | %s |" % (m, d, len(rs), "{:,}".format(int(rate)), cpu,
                                                      "/".join(str(r["lines"]) for r in rs)))
        print("| %s | sluice / rsyslog | | %.2fx | %.2fx | |" % (m, med["sluice"][0] / med["rsyslog"][0],
                                                            med["sluice"][1] / med["rsyslog"][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
