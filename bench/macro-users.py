#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How many TUs of a facts database depend on each macro named: the
stored macro sets (include/trapcheck/model/macroset.h), decoded.

    bench/macro-users.py DB NAME...

One line per NAME: the count, of how many TUs have a set."""
import sqlite3
import sys

TAG = 'm1:'


def fnv1a(name):
    h = 2166136261
    for b in name.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h


def decode(text):
    if not text.startswith(TAG):
        raise ValueError('not a macro set')
    v = d = shift = 0
    for c in text[len(TAG):]:
        o = ord(c)
        if 0x21 <= o < 0x41:
            d |= (o - 0x21) << shift
            shift += 5
            continue
        d |= (o - 0x41) << shift
        v = (v + d) & 0xffffffff
        yield v
        d = shift = 0


def main():
    db = sqlite3.connect(sys.argv[1])
    sets = [set(decode(t)) for (t,) in db.execute('SELECT names FROM macro')]
    for name in sys.argv[2:]:
        h = fnv1a(name)
        print('%s %d of %d' % (name, sum(h in s for s in sets), len(sets)))


if __name__ == '__main__':
    main()
