#!/usr/bin/env python3
"""Check that files hold the sequence of messages tcpflood sent.

Usage: check_seq.py FILE [FILE...] --expect N [--start S] [--allow-dups]
                    [--octet-counted]

Every line (with --octet-counted: every "LEN SP MSG" frame, as in a raw
capture of tcpflood -F oc) carrying "msgnum:DDDDDDDD:" contributes its
number; only the first such field of a line counts. Exit status 0 only if the numbers are
exactly S..S+N-1, each once (or at least once with --allow-dups); 1 if not;
2 on usage or read errors. Prints one summary line; "-" reads stdin.
Single-threaded, standard library only.
"""

import argparse
import re
import sys

# The tail [^\n]* eats the rest of the line: one number per line at most.
MSGNUM = re.compile(rb"msgnum:(\d{8,}):[^\n]*")
MAX_LISTED = 20


def read_file(name):
    if name == "-":
        return sys.stdin.buffer.read()
    with open(name, "rb") as fp:
        return fp.read()


def octet_frames(data):
    """Splits octet-counted data into frames joined by LF; raises ValueError."""
    frames, pos = [], 0
    while pos < len(data):
        sp = data.index(b" ", pos)
        size = int(data[pos:sp])
        frames.append(data[sp + 1:sp + 1 + size].replace(b"\n", b" "))
        pos = sp + 1 + size
        if pos > len(data):
            raise ValueError("truncated frame at end")
    return b"\n".join(frames) + (b"\n" if frames else b"")


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
    seen = bytearray(n)          # times each expected number was seen, capped
    lines = matched = dups = 0
    n_oor = 0
    out_of_range = []            # the first MAX_LISTED of them
    for name in args.files:
        try:
            data = read_file(name)
            if args.octet_counted:
                data = octet_frames(data)
        except OSError as e:
            print(f"check_seq: {name}: {e.strerror}", file=sys.stderr)
            return 2
        except ValueError as e:
            print(f"check_seq: {name}: bad octet-counted framing: {e}", file=sys.stderr)
            return 2
        lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        for num in map(int, MSGNUM.findall(data)):
            matched += 1
            idx = num - start
            if 0 <= idx < n:
                if seen[idx]:
                    dups += 1
                    if seen[idx] < 255:
                        seen[idx] += 1
                else:
                    seen[idx] = 1
            else:
                n_oor += 1
                if len(out_of_range) < MAX_LISTED:
                    out_of_range.append(num)

    unique = n - seen.count(0)
    missing_count = n - unique
    missing = []
    if missing_count:
        pos = seen.find(0)
        while pos != -1 and len(missing) < MAX_LISTED:
            missing.append(start + pos)
            pos = seen.find(0, pos + 1)

    ok = missing_count == 0 and n_oor == 0 and (dups == 0 or args.allow_dups)
    parts = [
        f"check_seq: {'OK' if ok else 'FAIL'}:",
        f"{unique} of {n} expected numbers"
        f" ({f'{start}..{start + n - 1}' if n else 'none'}) present,",
        f"{matched} matched in {lines} lines,",
        f"{missing_count} missing",
    ]
    if missing:
        more = ", ..." if missing_count > len(missing) else ""
        parts[-1] += " [" + ", ".join(str(x) for x in missing) + more + "]"
    parts[-1] += ","
    parts.append(f"{dups} duplicates" + (" (allowed)," if dups and args.allow_dups else ","))
    oor = f"{n_oor} out of range"
    if out_of_range:
        more = ", ..." if n_oor > len(out_of_range) else ""
        oor += " [" + ", ".join(str(x) for x in out_of_range) + more + "]"
    parts.append(oor)
    print(" ".join(parts))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
