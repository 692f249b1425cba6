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
  golden.py keys JSON [--sites]
      one line a finding (warnings, then notes of low confidence), to
      compare two runs of the same TUs (make O= and in place, C=2 and a
      compile database): file, line, column, rule, function, root set,
      chain steps, message, fingerprint and other chains; with --sites
      only file, line, rule, function, root set and the chain's
      functions, sorted (what a run of other TU keys can agree on)
"""
import argparse
import difflib
import json
import sys

# How many TUs were parsed (not read from the database); how many
# functions and edges the graph has: they count the compiler-numbered
# __compiletime_assert_N (one per BUILD_BUG_ON a TU expanded), and which
# TU's copy of a header body the graph keeps varies between runs (on the
# 1,262 TUs of 6.12, 208,277 edges in one cold run, 208,333 in the next).
RUN_KEYS = ('tus_parsed', 'functions', 'edges')


def record(path, package):
	d = json.load(open(path))
	for k in RUN_KEYS:
		d.get('summary', {}).pop(k, None)
	if package:
		d['package'] = package
	return d


def text(d):
	return json.dumps(d, indent=1, sort_keys=True).splitlines(True)


def keys(path, sites):
	d = json.load(open(path))
	fs = d['findings'] + d.get('low_confidence', [])
	if sites:
		return sorted(json.dumps([f['file'], f['line'], f['rule'],
					  f['function'], f.get('root'),
					  [s['function'] for s in f['chain']]])
			      for f in fs)
	return [json.dumps([f['file'], f['line'], f['column'], f['rule'],
			    f['function'], f.get('root'),
			    [(s['function'], s.get('file'), s.get('line'))
			     for s in f['chain']],
			    f['message'], f.get('fingerprint'),
			    f.get('other_chains')]) for f in fs]


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument('mode', choices=('record', 'compare', 'keys'))
	ap.add_argument('a')
	ap.add_argument('b', nargs='?')
	ap.add_argument('--package')
	ap.add_argument('--sites', action='store_true')
	o = ap.parse_args()
	if o.mode == 'keys':
		for k in keys(o.a, o.sites):
			print(k)
		return 0
	if not o.b:
		ap.error('%s needs two files' % o.mode)
	if o.mode == 'record':
		with open(o.b, 'w') as f:
			f.writelines(text(record(o.a, o.package)))
		return 0
	want = json.load(open(o.a))
	for k in RUN_KEYS:		# records made before a key was one
		want.get('summary', {}).pop(k, None)
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
