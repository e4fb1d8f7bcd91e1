#!/usr/bin/env python3
# make_corpus.py - (re)writes the seed corpora of the parser, template and
# config harnesses from the differential tests' inputs and configurations:
#   corpus/parser/    one file per line of tests/diff/input/*.txt, after
#                     the settings byte (see fuzz_parser.c)
#   corpus/template/  the text after `$template NAME,` of every legacy
#                     template line (form byte 0), every template()
#                     statement (form byte 1), and a few of them with a
#                     message after a NUL byte
#   corpus/config/    every tests/diff/configs/*.conf and contrib example
#                     configuration, placeholders filled in
# usage: tests/fuzz/make_corpus.py   (from anywhere; writes into the tree)
# Threading: none (a one-shot script).
import glob
import hashlib
import os
import re

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
FUZZ = os.path.join(TOP, 'tests', 'fuzz', 'corpus')


def put(kind, name, data):
    d = os.path.join(FUZZ, kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def fill(text):
    return (text.replace('@PORT@', '10514').replace('@OUT@', '/tmp/out')
            .replace('@WORK@', '/tmp/work').replace('@SRCDIR@', '/src'))


def template_objects(text):
    """Every template( ... ) statement, with its { ... } body if any."""
    out = []
    for m in re.finditer(r'(?m)^\s*template\s*\(', text):
        i, depth, q = m.start(), 0, None
        j = m.end() - 1
        while j < len(text):
            c = text[j]
            if q:
                if c == '\\':
                    j += 1
                elif c == q:
                    q = None
            elif c in '"\'':
                q = c
            elif c in '({':
                depth += 1
            elif c in ')}':
                depth -= 1
                if depth == 0:
                    rest = text[j + 1:]
                    k = len(rest) - len(rest.lstrip())
                    if c == ')' and rest[k:k + 1] == '{':
                        j += k + 1
                        depth = 1
                        continue
                    break
            j += 1
        out.append(text[i:j + 1].strip())
    return out


def main():
    lines = []
    for f in sorted(glob.glob(os.path.join(TOP, 'tests', 'diff', 'input', '*.txt'))):
        base = os.path.basename(f)[:-4]
        for i, l in enumerate(open(f, 'rb').read().split(b'\n')):
            if not l:
                continue
            lines.append(l)
            # settings byte: the defaults, and some lines with other settings
            opt = 0 if i % 5 else (0x40 if i % 2 else 0x0b)
            put('parser', '%s_%03d' % (base, i + 1), bytes([opt]) + l)

    confs = sorted(glob.glob(os.path.join(TOP, 'tests', 'diff', 'configs', '*.conf')))
    confs += sorted(glob.glob(os.path.join(TOP, 'contrib', '*.conf')))
    confs += sorted(glob.glob(os.path.join(TOP, 'contrib', 'examples', '*.conf')))
    n = 0
    for f in confs:
        text = fill(open(f, encoding='utf-8', errors='replace').read())
        base = os.path.basename(f)[:-5]
        put('config', base, text.encode())
        for k, l in enumerate(re.findall(r'(?m)^\$template\s+[^,]+,(.*)$', text)):
            put('template', '%s_legacy%d' % (base, k), b'\0' + l.encode())
        for k, t in enumerate(template_objects(text)):
            data = b'\1' + t.encode()
            put('template', '%s_obj%d' % (base, k), data)
            # the same with a message to render after the NUL
            msg = lines[n % len(lines)] if lines else b''
            n += 7
            h = hashlib.sha1(data).hexdigest()[:8]
            put('template', '%s_obj%d_msg_%s' % (base, k, h), data + b'\0' + msg)


if __name__ == '__main__':
    main()
