#!/usr/bin/python3
"""Checks that every UI text in src/app has a Chinese translation in src/app/text/i18n*.cpp.

    check_i18n.py SRC_APP_DIR [--list]

Texts are the string literals passed to T(...), N_(...) and help_marker(...); adjacent
literals are joined as the compiler joins them. Each translation must keep the English text's
printf conversions (%d, %s, ...) in the same order, and no text may be translated twice.
--list prints the texts instead.
"""
import glob
import os
import re
import sys

LIT = r'"(?:[^"\\\n]|\\.)*"'
GROUP = r'(' + LIT + r'(?:\s*' + LIT + r')*)'
CALL = re.compile(r'(?:\bT|\bN_|\bhelp_marker)\(\s*' + GROUP + r'\s*[,)]')
PAIR = re.compile(r'\{\s*' + GROUP + r'\s*,\s*' + GROUP + r'\s*\}')
CONV = re.compile(r'%[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]')


def decode(group):
    raw = b''
    for body in re.findall(r'"((?:[^"\\\n]|\\.)*)"', group):
        i = 0
        while i < len(body):
            c = body[i]
            if c == '\\':
                n = body[i + 1]
                if n == 'x':
                    m = re.match(r'[0-9a-fA-F]+', body[i + 2:])
                    raw += bytes([int(m.group(0), 16)])
                    i += 2 + len(m.group(0))
                    continue
                raw += {'n': b'\n', 't': b'\t', '"': b'"', '\\': b'\\', "'": b"'"}[n]
                i += 2
                continue
            raw += c.encode('utf-8')
            i += 1
    return raw.decode('utf-8')


def main():
    src = sys.argv[1]
    texts = {}
    for path in sorted(glob.glob(os.path.join(src, '**', '*.cpp'), recursive=True) +
                       glob.glob(os.path.join(src, '**', '*.h'), recursive=True)):
        if os.path.basename(path).startswith('i18n') and path.endswith('.cpp'):
            continue
        code = open(path, encoding='utf-8').read()
        for m in CALL.finditer(code):
            texts.setdefault(decode(m.group(1)), os.path.basename(path))
    if '--list' in sys.argv:
        for t in sorted(texts):
            print(repr(t))
        return 0
    table = {}
    problems = []
    code = ''.join(open(path, encoding='utf-8').read()
                   for path in sorted(glob.glob(os.path.join(src, 'text', 'i18n*.cpp'))))
    for m in PAIR.finditer(code):
        key = decode(m.group(1))
        if key in table:
            problems.append(f'translated twice (the first one wins): {key!r}')
        table[key] = decode(m.group(2))
    for text, where in sorted(texts.items()):
        if text not in table:
            problems.append(f'missing translation ({where}): {text!r}')
        elif CONV.findall(text) != CONV.findall(table[text]):
            problems.append(f'conversions differ: {text!r} vs {table[text]!r}')
        elif not table[text].strip():
            problems.append(f'empty translation: {text!r}')
    for p in problems:
        print(p)
    print(f'{len(texts)} texts, {len(table)} translations, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
