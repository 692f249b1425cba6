#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The recorded output of trapcheck on a tree, and its comparison with a
new run: what "behaviour unchanged" means for the fixture and the real
trees (tests/e2e/golden.t, tests/kernel/golden.t).

A record is trapcheck's JSON with what depends on the run rather than on
the tree left out (how many TUs were parsed rather than read from the
database), plus, for a kernel tree, the Debian package version of its
source: a new linux-source package is a different tree.

  golden.py record JSON OUT [--package VERSION]
  golden.py compare EXPECTED JSON [--package VERSION]
      exit 0: the same; 1: different (a unified diff on stdout);
      2: recorded from another package version (nothing compared)
"""
import argparse
import difflib
import json
import sys

RUN_KEYS = ('tus_parsed',)


def record(path, package):
	d = json.load(open(path))
	for k in RUN_KEYS:
		d.get('summary', {}).pop(k, None)
	if package:
		d['package'] = package
	return d


def text(d):
	return json.dumps(d, indent=1, sort_keys=True).splitlines(True)


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument('mode', choices=('record', 'compare'))
	ap.add_argument('a')
	ap.add_argument('b')
	ap.add_argument('--package')
	o = ap.parse_args()
	if o.mode == 'record':
		with open(o.b, 'w') as f:
			f.writelines(text(record(o.a, o.package)))
		return 0
	want = json.load(open(o.a))
	got = record(o.b, o.package)
	if want.get('package') != got.get('package'):
		print('recorded from package %s, the tree is %s' %
		      (want.get('package'), got.get('package')))
		return 2
	diff = list(difflib.unified_diff(text(want), text(got), o.a, o.b))
	sys.stdout.writelines(diff[:200])
	return 1 if diff else 0


if __name__ == '__main__':
	sys.exit(main())
