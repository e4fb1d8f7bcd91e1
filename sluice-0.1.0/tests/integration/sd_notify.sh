#!/bin/bash
# sd_notify.sh - the systemd protocols, checked with sockets this test
# opens (no systemd needed):
#  1. $NOTIFY_SOCKET as a path: READY=1 (with MAINPID) arrives only once
#     the TCP port accepts connections; WATCHDOG=1 comes at half of
#     $WATCHDOG_USEC; STOPPING=1 comes on SIGTERM, before the exit.
#  2. $NOTIFY_SOCKET in the abstract namespace ('@...'): READY=1 arrives.
#  3. socket activation: imuxsock's system socket is taken from fd 3 when
#     $LISTEN_FDS/$LISTEN_PID say so (not bound again: same inode, still
#     there after the stop), and a datagram sent to it is written out.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

require_tool sluiced "$SLUICED"
[ "$DUT_NAME" = sluiced ] || skip "sluice-specific (systemd protocol)"

OUT="$TESTDIR/out.log"
SOCK="$TESTDIR/devlog"
cat >"$TESTDIR/test.conf" <<EOF
module(load="imtcp")
module(load="imuxsock" SysSock.Name="$SOCK")
input(type="imtcp" port="$PORT" address="127.0.0.1")
template(name="t" type="string" string="%syslogtag%|%msg%\n")
action(type="omfile" file="$OUT" template="t")
EOF

python3 - "$SLUICED" "$TESTDIR" "$PORT" "$SOCK" "$OUT" <<'EOF' || fail "systemd protocol check failed (see above)"
import os, socket, sys, time, signal
sluiced, tdir, port, sockpath, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
conf = os.path.join(tdir, "test.conf")

def port_open():
    s = socket.socket()
    s.settimeout(0.5)
    try:
        s.connect(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()

def fail(msg):
    print("sd_notify: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)

def start(env_extra, pass_fd=None):
    """fork+exec sluiced so that LISTEN_PID can be the child's own pid"""
    logf = open(os.path.join(tdir, "sluiced.%d.log" % time.monotonic_ns()), "w")
    pid = os.fork()
    if pid == 0:
        try:
            env = dict(os.environ)
            env.update(env_extra)
            if pass_fd is not None:
                os.dup2(pass_fd, 3)
                os.set_inheritable(3, True)
                env["LISTEN_FDS"] = "1"
                env["LISTEN_PID"] = str(os.getpid())
            os.dup2(logf.fileno(), 1)
            os.dup2(logf.fileno(), 2)
            os.execve(sluiced, [sluiced, "-n", "-f", conf, "-i", "NONE"], env)
        finally:
            os._exit(127)
    return pid, logf.name

def recv_until(ns, want, deadline):
    got = []
    while time.monotonic() < deadline:
        ns.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            d = ns.recv(4096).decode()
        except socket.timeout:
            break
        got.append(d)
        if want in d:
            return d, got
    return None, got

def stop(pid):
    os.kill(pid, signal.SIGTERM)
    for _ in range(300):
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            return os.waitstatus_to_exitcode(st)
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    fail("sluiced did not stop within 30 s")

# 1. path socket, watchdog, stopping
npath = os.path.join(tdir, "notify")
ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
ns.bind(npath)
pid, log1 = start({"NOTIFY_SOCKET": npath, "WATCHDOG_USEC": "400000"})
try:
    msg, got = recv_until(ns, "READY=1", time.monotonic() + 20)
    if msg is None:
        fail("expected READY=1 within 20 s, got %r" % got)
    if not port_open():
        fail("expected port %d to accept connections when READY=1 arrived, got refused" % port)
    if "MAINPID=%d" % pid not in msg:
        fail("expected MAINPID=%d with READY=1, got %r" % (pid, msg))
    t0 = time.monotonic()
    n_wd = 0
    while time.monotonic() - t0 < 1.2:
        m, _ = recv_until(ns, "WATCHDOG=1", time.monotonic() + 0.5)
        if m:
            n_wd += 1
    # every 200 ms: about 6 in 1.2 s
    if n_wd < 4 or n_wd > 8:
        fail("expected about 6 WATCHDOG=1 in 1.2 s (WATCHDOG_USEC=400000), got %d" % n_wd)
finally:
    os.kill(pid, signal.SIGTERM)
msg, got = recv_until(ns, "STOPPING=1", time.monotonic() + 10)
if msg is None:
    fail("expected STOPPING=1 after SIGTERM, got %r" % got)
rc = stop(pid)
if rc != 0:
    fail("expected exit status 0, got %d" % rc)
ns.close()

# 2. abstract namespace
aname = "@sluice-test-%d" % os.getpid()
ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
ns.bind("\0" + aname[1:])
pid, log2 = start({"NOTIFY_SOCKET": aname})
msg, got = recv_until(ns, "READY=1", time.monotonic() + 20)
if msg is None:
    stop(pid)
    fail("expected READY=1 on the abstract socket %s, got %r" % (aname, got))
if not port_open():
    stop(pid)
    fail("expected the port open at READY=1 (abstract socket)")
if stop(pid) != 0:
    fail("expected exit status 0 (abstract socket run)")
ns.close()

# 3. socket activation of the system socket
ls = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
ls.bind(sockpath)
ino = os.stat(sockpath).st_ino
pid, log3 = start({}, pass_fd=ls.fileno())
for _ in range(200):
    if port_open():
        break
    time.sleep(0.1)
else:
    stop(pid)
    fail("expected sluiced to start with an activated socket")
if os.stat(sockpath).st_ino != ino:
    stop(pid)
    fail("expected the activated socket to be used, got %s bound again" % sockpath)
c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
c.sendto(b"<13>act: hello from an activated socket", sockpath)
c.close()
for _ in range(100):
    if os.path.exists(out) and b"hello from an activated socket" in open(out, "rb").read():
        break
    time.sleep(0.1)
rc = stop(pid)
lines = open(out).read().splitlines() if os.path.exists(out) else []
if lines != ["act:| hello from an activated socket"]:
    fail("expected one line 'act:| hello from an activated socket', got %r" % lines)
if "using the socket passed by systemd" not in open(log3).read():
    fail("expected sluiced to log that it uses the socket passed by systemd")
if not os.path.exists(sockpath) or os.stat(sockpath).st_ino != ino:
    fail("expected the activated socket %s to stay after the stop" % sockpath)
if rc != 0:
    fail("expected exit status 0 (activation run), got %d" % rc)
print("sd_notify: READY after listen, %d watchdog pings, STOPPING, abstract socket, activation: ok" % n_wd)
EOF
