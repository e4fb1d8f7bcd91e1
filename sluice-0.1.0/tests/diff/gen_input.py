#!/usr/bin/env python3
"""Writes the input corpus of the differential tests (tests/diff/input/).

The files are committed; this script documents how they were made and
regenerates them byte for byte (it is deterministic). Every file ends with
LF, and no line starts with a digit (that would switch imtcp to
octet-counted framing). Files whose names start with "notime" hold messages
whose timereported is the reception time (no or invalid timestamp, invalid
PRI, the rest of a truncated over-long line): only configs whose templates
print no time may use them.
"""

import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "input")

PROGRAMS = [
    ("sshd", True), ("su", False), ("sudo", False), ("CRON", True),
    ("cron", True), ("kernel", False), ("systemd", True),
    ("systemd-logind", True), ("postfix/smtpd", True), ("postfix/qmgr", True),
    ("dhclient", True), ("NetworkManager", True), ("named", True),
    ("nginx", False), ("haproxy", True), ("java", True), ("app.exe", False),
    ("my_prog", True), ("prog-1.2", True), ("a", False),
    ("averyveryverylongprogramnamethatexceedsthirtytwochars", True),
]
HOSTS = ["host1", "web-01.example.com", "192.0.2.10", "UPPER-Host",
         "db_2", "h"]
TIMES_3164 = [
    "Mar  1 01:02:03", "Dec 31 23:59:59", "Jan  5 00:00:00",
    "Oct 10 10:10:10", "Feb 29 12:00:00", "Jul  4 04:04:04",
    "Aug 15 15:15:15", "Nov 30 08:00:01", "Mar 1 01:00:00",
    "mar  1 01:00:00", "Mar  1 01:00:00.123", "Mar  1 01:00:00.123456",
    "Sep  9 09:09:09:", "2019 Mar  1 01:02:03", "Mar  1 2019 01:02:03",
    "2019-03-01T01:02:03Z", "2019-03-01T01:02:03.123456+02:00",
    "2019-03-01T01:02:03-05:30", "2021-12-31T23:59:59.9Z",
]
PRIS = [0, 1, 7, 8, 13, 14, 15, 22, 27, 30, 33, 38, 46, 59, 78, 85, 86, 87,
        110, 134, 142, 150, 158, 163, 166, 174, 182, 187, 191]
TEXTS = [
    "Accepted publickey for alice from 192.0.2.1 port 50022 ssh2",
    "session opened for user root by (uid=0)",
    "pam_unix(cron:session): session closed for user root",
    "(root) CMD (run-parts /etc/cron.hourly)",
    "Started Session 42 of user bob.",
    "connect from unknown[198.51.100.7]",
    "error: disk full on /var",
    "warning: deprecated option 'x' used",
    "GET /index.html HTTP/1.1 200 512 \"-\" \"curl/7.88\"",
    "   leading spaces kept",
    "key=value other=\"quoted value\" x=1",
    "message with trailing spaces   ",
    "percent %s and backslash \\ and quotes \"'",
    "{\"json\":\"looking\",\"but\":\"not cee\"}",
    "contains x marks the spot",
    "UPPER lower MiXeD",
]


def rfc3164():
    lines = []
    i = 0
    for prog, pid in PROGRAMS:
        for variant in range(6):
            pri = PRIS[(i * 7) % len(PRIS)]
            ts = TIMES_3164[i % len(TIMES_3164)]
            host = HOSTS[i % len(HOSTS)]
            text = TEXTS[i % len(TEXTS)]
            tag = "%s[%d]:" % (prog, 100 + i) if pid and variant % 2 == 0 \
                else prog + ":"
            if variant == 3:
                # without hostname: the tag follows the timestamp
                line = "<%d>%s %s %s" % (pri, ts, tag, text)
            elif variant == 5:
                # tag without colon
                line = "<%d>%s %s %s %s" % (pri, ts, host, prog, text)
            else:
                line = "<%d>%s %s %s %s" % (pri, ts, host, tag, text)
            lines.append(line.encode())
            i += 1
    extra = [
        "<13>Mar  1 01:00:00 host prog[12]:no space after colon",
        "<13>Mar  1 01:00:00 host prog[12] no colon after pid",
        "<13>Mar  1 01:00:00 host prog[12 unclosed pid: text",
        "<13>Mar  1 01:00:00 host : empty tag",
        "<13>Mar  1 01:00:00 host  two spaces before tag",
        "<13>Mar  1 01:00:00 host prog:",
        "<13>Mar  1 01:00:00 host prog: ",
        "<13>Mar  1 01:00:00 host",
        "<13>Mar  1 01:00:00 host.with.dots. prog: host ends in dot",
        "<13>Mar  1 01:00:00 [host] prog: bracketed host",
        "<13>Mar  1 01:00:00 host@site prog: at sign host",
        "<13>Mar  1 01:00:00 fe80::1 prog: ipv6 host",
        "<13>Mar  1 01:00:00 host /usr/sbin/cron[5]: slash tag",
        "<13>Mar  1 01:00:00 host prog:with:colons: text",
        "<13>Mar  1 01:00:00 host " + "t" * 40 + ": long tag",
        "<13>Mar  1 01:00:00 host [bracket-first] text",
        "<13>Mar  1 01:00:00 host {brace-first} text",
        "<13> Mar  1 01:00:00 host prog: space before timestamp",
        "<013>Mar  1 01:00:00 host prog: leading zero pri",
        "<0>Mar  1 01:00:00 host prog: pri zero",
        "<191>Mar  1 01:00:00 host prog: pri max",
        "<>Mar  1 01:00:00 host prog: empty pri",
        "Mar  1 01:00:00 host prog: no pri at all",
        "<13>Mar  1 01:00:00 host prog: msgnum:00000001: flood-like",
        "<166>Mar  1 01:00:00 host prog: contains error and x",
        "<165>Mar  1 01:00:00 host prog: startswith test",
    ]
    lines += [e.encode() for e in extra]
    return lines


def rfc5424():
    base = [
        '<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 '
        '[exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] '
        'An application event log entry...',
        '<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - '
        '%% It\'s time to make the do-nuts.',
        '<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - '
        '\'su root\' failed for lonvick on /dev/pts/8',
        '<13>1 2003-10-11T22:14:15Z - - - - -',
        '<13>1 2003-10-11T22:14:15Z - - - - - msg with all nil',
        '<13>1 2003-10-11T22:14:15Z host app - - -',
        '<13>1 2003-10-11T22:14:15+01:00 host app 123 MSGID1 [a@1 x="1"][b@2 y="2"] two SD elements',
        '<13>1 2003-10-11T22:14:15+01:00 host app 123 MSGID1 [a@1 x="1"] [b@2 y="2"] space between SD',
        '<13>1 2003-10-11T22:14:15.1Z host app 123 - [a@1 x="va\\]l"] escaped bracket',
        '<13>1 2003-10-11T22:14:15.12Z host app 123 - [a@1 x="q\\"uote" z="back\\\\slash"] escaped quote',
        '<13>1 2003-10-11T22:14:15.123456Z host app 123 - [a@1 x="] "] bracket space in value',
        '<13>1 2003-10-11T22:14:15Z host app 123 - [a@1] empty SD params',
        '<13>1 2003-10-11T22:14:15Z host app 123 - [a@1 x="1"]no space after SD',
        '<13>1 2003-10-11T22:14:15Z host app 123 - [unterminated@1 x="1" msg',
        '<13>1 2003-10-11T22:14:15Z host app 123 - \xef\xbb\xbfBOM before msg',
        '<13>1 2003-10-11T22:14:15Z host app 123 - [a@1 x="1"] \xef\xbb\xbfBOM after SD',
        '<191>1 2019-03-01T01:02:03.000Z h a p m - max pri',
        '<0>1 2019-03-01T01:02:03Z h a p m - zero pri',
        '<13>1 2019-03-01T01:02:03Z ' + 'h' * 70 + ' app - - - long hostname',
        '<13>1 2019-03-01T01:02:03Z host ' + 'a' * 60 + ' - - - long app-name',
        '<13>1 2019-03-01T01:02:03Z host app ' + 'p' * 40 + ' - - long procid',
        '<13>1 2019-03-01T01:02:03Z host app - ' + 'm' * 40 + ' - long msgid',
        '<13>1 2019-03-01T01:02:03Z host app - - - contains x here',
        '<86>1 2019-03-01T01:02:03Z host sshd 77 - - Accepted password for root',
        '<22>1 2019-03-01T01:02:03Z host postfix 77 smtp [meta sequenceId="1"] mail msg',
    ]
    lines = [b.encode("latin-1") for b in base]
    # a systematic block: fields and SD varying
    for i in range(40):
        pri = PRIS[i % len(PRIS)]
        ts = "2019-%02d-%02dT%02d:%02d:%02d%s" % (
            1 + i % 12, 1 + i % 28, i % 24, (i * 7) % 60, (i * 13) % 60,
            [".%03dZ" % i, "Z", "+02:00", "-11:30", ".5+00:00"][i % 5])
        host = ["-", "host%d" % i, "h.example.org"][i % 3]
        app = ["-", "app%d" % i, "my-app"][i % 3]
        procid = ["-", str(1000 + i)][i % 2]
        msgid = ["-", "ID%d" % i, "m"][(i + 1) % 3]
        sd = ["-", '[ex@32473 i="%d"]' % i, '[ex@1 a="b"][origin ip="192.0.2.%d"]' % i,
              '[x@1 k="v\\\\"]'][i % 4]
        msg = ["", " " + TEXTS[i % len(TEXTS)], " with x"][i % 3]
        lines.append(("<%d>1 %s %s %s %s %s %s%s" %
                      (pri, ts, host, app, procid, msgid, sd, msg)).encode())
    return lines


def cee():
    base = [
        '<13>Mar  1 01:00:00 host app: @cee:{"msg":"hello","level":"info"}',
        '<13>Mar  1 01:00:00 host app: @cee: {"a":1,"b":[1,2,3],"c":{"d":null}}',
        '<13>Mar  1 01:00:00 host app[12]: @cee:{"escaped":"quote \\" and \\\\ and \\u00e9"}',
        '<13>Mar  1 01:00:00 host app: @cee:{broken json',
        '<13>Mar  1 01:00:00 host app: @cee:',
        '<13>Mar  1 01:00:00 host app: @cee:{}',
        '<13>Mar  1 01:00:00 host app: prefix @cee:{"not":"at start"}',
        '<13>1 2019-03-01T01:02:03Z host app - - - @cee:{"rfc5424":true}',
        '<13>Mar  1 01:00:00 host app: @CEE:{"upper":"case"}',
        '<13>Mar  1 01:00:00 host app:@cee:{"nospace":1}',
    ]
    return [b.encode() for b in base]


def special():
    """Timestamped messages with odd bytes."""
    hdr = b"<13>Mar  1 01:00:00 host prog: "
    return [
        hdr + b"tab\there and\ttwo",
        hdr + b"ctrl-a \x01 ctrl-b \x02 esc \x1b[0m del \x7f end",
        hdr + b"bell \x07 backspace \x08 formfeed \x0c vt \x0b",
        hdr + b"nul \x00 inside",
        hdr + b"carriage return\r",
        hdr + b"cr \r in the middle",
        hdr + b"invalid utf-8 \xff\xfe \xc3\x28 \xe2\x82 \xa0\xa1 \xf0\x28\x8c\x28",
        hdr + b"valid utf-8 \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
        hdr + b"\xef\xbb\xbfBOM after the header",
        b"<13>Mar  1 01:00:00 host \xef\xbb\xbfprog: BOM before the tag",
        b"<13>Mar  1 01:00:00 h\xc3\xb6st prog: non-ascii host",
        b"<13>Mar  1 01:00:00 host pr\xc3\xb6g: non-ascii tag",
        b"<13>Mar  1 01:00:00 host prog[1\x012]: ctrl in tag",
        hdr + b"tab at end\t",
        hdr + b"\ttab first",
        hdr + b"x" * 2000 + b" 2k line",
        hdr + b"y" * 8000 + b" near the 8k limit",
    ]


def notime():
    """Messages whose timereported is the reception time, and malformed."""
    long_body = b"<13>Mar  1 01:00:00 host prog: long "
    long_line = long_body + b"L" * (10000 - len(long_body))
    return [
        b"no pri no timestamp no anything",
        b"hello world",
        b"<13>hello world",
        b"<13>host prog: no timestamp",
        b"<13>prog[1]: no timestamp no host",
        b"<13>",
        b"<13> ",
        b"<>",
        b"<>no timestamp after empty pri",
        b"<999>Mar  1 01:00:00 host prog: pri too large",
        b"<192>Mar  1 01:00:00 host prog: pri just too large",
        b"<13 Mar  1 01:00:00 host prog: pri without closing bracket",
        b"<13",
        b"<abc>Mar  1 01:00:00 host prog: non-numeric pri",
        b"<-1>Mar  1 01:00:00 host prog: negative pri",
        b"< 13>Mar  1 01:00:00 host prog: space in pri",
        b"<13>Mar 32 01:00:00 host prog: day 32",
        b"<13>Foo  1 01:00:00 host prog: bad month",
        b"<13>Mar  1 25:00:00 host prog: hour 25",
        b"<13>Mar  1 01:00 host prog: no seconds",
        b"<13>2019-13-01T01:02:03Z host prog: bad iso month",
        b"<13>1 - host app - - - nil timestamp",
        b"<13>1 - - - - - -",
        b"<13>1 2003-10-11 host app - - - date only",
        b"<13>1 2003-10-11T22:14:15 host app - - - no timezone",
        b"<13>1 notatime host app - - - bad timestamp",
        b"<13>1",
        b"<13>1 ",
        b"<13>2 2003-10-11T22:14:15Z host app - - - version 2",
        b"<13>{\"json\":\"headerless\"}",
        b"<13> [bracket headerless]",
        b"<13>@cee:{\"no\":\"header\"}",
        b"   <13>leading spaces before pri",
        b"\tleading tab",
        b"<13>\x01\x02\x03 controls only",
        b"\x01 control first no pri",
        b"\xff\xfe invalid utf-8 first",
        b"\xef\xbb\xbf<13>Mar  1 01:00:00 host prog: BOM before pri",
        b"<13>Mar  1 01:00:00\thost prog: tab after timestamp",
        b"<13>\x01Mar  1 01:00:00 host prog: ctrl before timestamp",
        b"<14>ctrl \x1b and tab\t and del \x7f without timestamp",
        b"",
        b"<13>Mar  1 01:00:00 host prog: before the long line",
        long_line,
        b"<13>Mar  1 01:00:00 host prog: after the long line",
        b"message with x but no header",
        b"<165>error and x without time",
    ]


def write(name, lines):
    for line in lines:
        if line[:1].isdigit() or b"\n" in line:
            sys.exit("bad corpus line in %s: %r" % (name, line[:40]))
    with open(os.path.join(OUT, name), "wb") as fp:
        fp.write(b"".join(l + b"\n" for l in lines))
    print("%s: %d lines" % (name, len(lines)))


def main():
    os.makedirs(OUT, exist_ok=True)
    write("rfc3164.txt", rfc3164())
    write("rfc5424.txt", rfc5424())
    write("cee.txt", cee())
    write("special.txt", special())
    write("notime.txt", notime())


if __name__ == "__main__":
    main()
