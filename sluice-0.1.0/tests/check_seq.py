#!/usr/bin/env python3
"""Check that files hold the sequence of messages tcpflood sent.

Usage: check_seq.py FILE [FILE...] --expect N [--start S] [--allow-dups]
                    [--octet-counted]

Every line (with --octet-counted: every "LEN SP MSG" frame, as in a raw
capture of tcpflood -F oc) carrying "msgnum:DDDDDDDD:" contributes its
number; only the first such field of a line counts. Exit status 0 only if the numbers are
exactly S..S+N-1, each once (or at least once with --allow-dups); 1 if not;
2 on usage or read errors. Prints one summary line; "-" reads stdin.

Streaming: files are read in 16 MiB chunks (cut at the last LF, or at the
last whole frame), and the numbers seen are kept in a bytearray of N
counters, so memory is about N bytes plus two chunks whatever the file
size. A chunk whose numbers form one ascending run without gaps (one
sender connection, or output of several merged in order) is checked and
marked with slice operations at C speed; other chunks fall back to a loop
per number. 20,000,000 lines take a few seconds.
Single-threaded, standard library only.
"""

import argparse
import re
import sys

# The tail [^\n]* eats the rest of the line: one number per line at most.
MSGNUM = re.compile(rb"msgnum:(\d{8,}):[^\n]*")
MAX_LISTED = 20
CHUNK = 16 << 20


class Checker:
    """Counts the sequence numbers found in chunks of whole lines."""

    def __init__(self, start, n):
        self.start, self.n = start, n
        self.seen = bytearray(n)     # times each expected number was seen, capped at 255
        self.lines = self.matched = self.dups = self.n_oor = 0
        self.out_of_range = []       # the first MAX_LISTED of them

    def feed(self, data):
        """data: whole lines (the last one may lack its LF only at EOF)."""
        if not data:
            return
        self.lines += data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        nums = list(map(int, MSGNUM.findall(data)))
        if not nums:
            return
        self.matched += len(nums)
        lo, hi = nums[0] - self.start, nums[-1] - self.start
        seen = self.seen
        # fast path: one ascending run lo..hi inside the range, nothing seen yet
        if (0 <= lo and hi < self.n and hi - lo + 1 == len(nums)
                and nums == list(range(nums[0], nums[-1] + 1))
                and seen.count(0, lo, hi + 1) == len(nums)):
            seen[lo:hi + 1] = b"\x01" * len(nums)
            return
        start, n = self.start, self.n
        for num in nums:
            idx = num - start
            if 0 <= idx < n:
                v = seen[idx]
                if v:
                    self.dups += 1
                    if v < 255:
                        seen[idx] = v + 1
                else:
                    seen[idx] = 1
            else:
                self.n_oor += 1
                if len(self.out_of_range) < MAX_LISTED:
                    self.out_of_range.append(num)


def read_chunks(fp):
    """Yields chunks of whole lines from a binary file object."""
    rest = b""
    while True:
        buf = fp.read(CHUNK)
        if not buf:
            break
        cut = buf.rfind(b"\n")
        if cut < 0:
            rest += buf
            continue
        yield rest + buf[:cut + 1]
        rest = buf[cut + 1:]
    if rest:
        yield rest


def octet_chunks(fp):
    """Yields octet-counted frames, joined by LF, in chunks; raises ValueError."""
    buf = b""
    eof = False
    while not eof:
        more = fp.read(CHUNK)
        eof = not more
        buf += more
        frames, pos = [], 0
        while pos < len(buf):
            sp = buf.find(b" ", pos, pos + 12)
            if sp < 0:
                if len(buf) - pos >= 12 or eof:
                    raise ValueError("no frame length at byte offset %d of the chunk" % pos)
                break
            if not buf[pos:sp].isdigit():
                raise ValueError("bad frame length %r" % buf[pos:sp][:12])
            size = int(buf[pos:sp])
            if sp + 1 + size > len(buf):
                if eof:
                    raise ValueError("truncated frame at end")
                break
            frames.append(buf[sp + 1:sp + 1 + size].replace(b"\n", b" "))
            pos = sp + 1 + size
        buf = buf[pos:]
        if frames:
            yield b"\n".join(frames) + b"\n"


def check_file(chk, name, octet_counted):
    fp = sys.stdin.buffer if name == "-" else open(name, "rb")
    try:
        for chunk in (octet_chunks(fp) if octet_counted else read_chunks(fp)):
            chk.feed(chunk)
    finally:
        if fp is not sys.stdin.buffer:
            fp.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", metavar="FILE")
    ap.add_argument("--expect", type=int, required=True, metavar="N")
    ap.add_argument("--start", type=int, default=0, metavar="S")
    ap.add_argument("--allow-dups", action="store_true")
    ap.add_argument("--octet-counted", action="store_true",
                    help="input is octet-counted frames, not lines")
    args = ap.parse_args()
    if args.expect < 0 or args.start < 0:
        ap.error("--expect and --start must not be negative")

    start, n = args.start, args.expect
    chk = Checker(start, n)
    for name in args.files:
        try:
            check_file(chk, name, args.octet_counted)
        except OSError as e:
            print(f"check_seq: {name}: {e.strerror}", file=sys.stderr)
            return 2
        except ValueError as e:
            print(f"check_seq: {name}: bad octet-counted framing: {e}", file=sys.stderr)
            return 2

    seen = chk.seen
    missing_count = seen.count(0)
    unique = n - missing_count
    missing = []
    if missing_count:
        pos = seen.find(0)
        while pos != -1 and len(missing) < MAX_LISTED:
            missing.append(start + pos)
            pos = seen.find(0, pos + 1)

    dups, n_oor = chk.dups, chk.n_oor
    ok = missing_count == 0 and n_oor == 0 and (dups == 0 or args.allow_dups)
    parts = [
        f"check_seq: {'OK' if ok else 'FAIL'}:",
        f"{unique} of {n} expected numbers"
        f" ({f'{start}..{start + n - 1}' if n else 'none'}) present,",
        f"{chk.matched} matched in {chk.lines} lines,",
        f"{missing_count} missing",
    ]
    if missing:
        more = ", ..." if missing_count > len(missing) else ""
        parts[-1] += " [" + ", ".join(str(x) for x in missing) + more + "]"
    parts[-1] += ","
    parts.append(f"{dups} duplicates" + (" (allowed)," if dups and args.allow_dups else ","))
    oor = f"{n_oor} out of range"
    if chk.out_of_range:
        more = ", ..." if n_oor > len(chk.out_of_range) else ""
        oor += " [" + ", ".join(str(x) for x in chk.out_of_range) + more + "]"
    parts.append(oor)
    print(" ".join(parts))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
