#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""docs/measured.json: the oracle's runs, their counted sites, and
trapcheck's rates per operation against the counts; docs/measured.md's
generated tables come from it.

  record.py x86 MEASURED.json VARIANT ORACLE-DIR TREE STATIC.json
      Puts the runs of one x86 oracle (tests/oracle/run-qemu-x86.sh
      ORACLE-DIR, the kernel TREE, VARIANT "shipped" or a
      tests/oracle/variant.sh name) into MEASURED.json, replacing runs of
      the same variant, with trapcheck's findings on TREE (STATIC.json:
      trapcheck -p TREE --format=json), then compares again.

  record.py kvm MEASURED.json ORACLE-DIR TREE STATIC.json
      The same for the nested oracle (tests/oracle/run-qemu-kvm.sh
      ORACLE-DIR, the kernel TREE of scripts/kernel-tree.sh 6.12
      qemu-kvm): its VHE and nVHE runs, each compared with the findings
      whose chains run in that mode (or any). STATIC.json must be
      trapcheck's run with the machine's features, --features="$(
      tests/oracle/features.py TREE ORACLE-DIR/vhe-boot.console
      ORACLE-DIR/nvhe-boot.console)": its rates are for that machine.

  record.py guest MEASURED.json CPU ORACLE-DIR TREE STATIC.json
      The same for the plugin oracle's guest runs (tests/oracle/
      run-qemu-kvm.sh ORACLE-DIR with TRAPCHECK_ORACLE_MODES=guest and
      TRAPCHECK_ORACLE_CPU=CPU: the qemu-kvm kernel booted at EL1, init
      "boot", "workload" and "exec"), variant guest-CPU; STATIC.json with
      the features of that machine (features.py TREE
      ORACLE-DIR/guest-boot.console).

  record.py single MEASURED.json CPU ORACLE-DIR TREE STATIC.json
      The same for the single-stepped oracle (tests/oracle/run-qemu.sh
      ORACLE-DIR with TRAPCHECK_ORACLE_CPU=CPU, TRAPCHECK_ORACLE_CLASSES=
      all and TRAPCHECK_ORACLE_RUNS="boot workload exec": the plain qemu
      kernel), variant single-CPU; STATIC.json with the features of that
      machine (features.py TREE ORACLE-DIR/boot.console).

  record.py fix MEASURED.json NAME BASE-DIR FIX-DIR BASE-TREE FIX-TREE
                PATCH...
      A fix proven in the nested oracle: BASE-DIR and FIX-DIR are
      tests/oracle/run-qemu-kvm.sh's runs of the kernel TREE before and
      after the PATCHes (trapcheck --fix-dir's, applied: the copy of
      tests/oracle/variant.sh trapcheck-fix qemu-kvm). Stores, as
      MEASURED.json's fixes[NAME], per run: each fixed site's ID-register
      reads before and after (the sites its patches name, by file and
      function), every other function whose count changed, and the
      decisions the kernel logged (CPU features detected, the
      vulnerabilities sysfs reports, KVM's own lines, the VM's exits)
      compared line for line. The same for the x86 oracle's runs
      (tests/oracle/run-qemu-x86.sh, of the x86 qemu tree and its
      trapcheck-fix copy): CPUID executions, per site where a function
      has several (by function and line), and the io run's results
      (squashfs bytes read, zram pages) and "x86/fpu:" lines among the
      decisions.

  record.py console CONSOLE
      Prints an oracle's console with init's lines joined again where a
      kernel line (with its timestamp: printk.time=1) came between two
      chunks of one.

  record.py md MEASURED.json MEASURED.md [--check]
      Writes the tables between MEASURED.md's "<!-- measured.json: NAME
      -->" and "<!-- end measured.json -->" lines from MEASURED.json;
      with --check, writes nothing and exits 1 if they differ.

A run's site is an address where the counted instruction executed, placed
at the innermost line of addr2line's inline chain, or a call of an
out-of-line function that holds one (its executions inside are its
callers': counted at the call). A finding of trapcheck
matches a site when any line of that chain is the finding's line (by
file and line, or by function and line: the DWARF of nVHE's objects
names the .c file for the lines of the headers they inline). Steady
counts are a run's count minus the boot's (each run is a boot of its
own); a finding's operations are the calls of the roots of its chains
(the oracle counts every function the root sets name) in that run, minus
the boot's. The comparison takes every finding with a rate whose roots
ran, in the run that ran it most (then the one with most operations);
Spearman's rho is over those, None with fewer than 3 or when either
side has no spread (all ties).
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402  (tests/oracle/measure.py: spearman())
import features  # noqa: E402  (tests/oracle/features.py)

RULES = ('trapping-idreg-read', 'trapping-msr-read', 'local-cap-check',
         'slow-entropy')


def spearman(xs, ys):
    """measure.py's rank correlation, to three places (None: undefined)."""
    rho = measure.spearman(xs, ys)
    return round(rho, 3) if rho is not None else None


def rel(path, trees):
    """PATH relative to the first of TREES it is in (a variant's copy
    keeps the DWARF paths of the objects it did not rebuild)."""
    path = os.path.normpath(path if os.path.isabs(path)
                            else os.path.join(trees[0], path))
    for t in trees:
        r = os.path.relpath(path, t)
        if not r.startswith('..'):
            return r
    return path


def pkg_version():
    try:
        return subprocess.run(['dpkg-query', '-W', '-f=${Version}',
                               'linux-source-6.12'], stdout=subprocess.PIPE,
                              text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'


def chain_roots(f):
    """The roots of a finding's chains that no other of its chains passes
    through: one operation is one call of one of them (a call of
    __do_sys_getrandom() is not also counted as its get_random_bytes_user()
    call)."""
    chains = [f['chain']] + [c for c in f.get('other_chains') or [] if c]
    inner = {step['function'] for c in chains for step in c[1:]}
    roots = []
    for c in chains:
        fn = c[0]['function']
        if fn not in roots and fn not in inner:
            roots.append(fn)
    return roots


def root_sets():
    """{set: [function, ...]} of the shipped roots/*.roots."""
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                       '..', 'roots')
    sets = {}
    for name in sorted(os.listdir(top)):
        if not name.endswith('.roots'):
            continue
        fns = sets.setdefault(name[:-6], [])
        for line in open(os.path.join(top, name)):
            w = line.split('#')[0].split()
            if w and re.fullmatch(r'[A-Za-z_]\w*', w[0]):
                fns.append(w[0])
    return sets


def load_runs(odir, prefix, whats, trees, label, fields):
    """The run entries of one oracle directory: PREFIX+WHAT.sites.json for
    each of WHATS, the first of them the boot the others subtract."""
    seconds = dict(l.split() for l in open(os.path.join(odir, 'seconds')))
    data = {w: json.load(open(os.path.join(odir, prefix + w +
                                           '.sites.json')))
            for w in whats}
    boot = data[whats[0]]
    boot_at = {(s['pc'], s['kind']): s['count'] for s in boot['sites']}
    boot_at.update({(s['pc'], 'call'): s['count'] for s in boot['calls']})
    runs = []
    for what, d in data.items():
        sites = []
        for s in d['sites'] + d['calls']:
            inner = s['inline'][0] if s['inline'] else \
                {'function': '??', 'file': '??', 'line': 0}
            b = boot_at.get((s['pc'], s['kind']), 0)
            site = {
                'pc': s['pc'], 'kind': s['kind'], 'count': s['count'],
                'steady': s['count'] - b if what != whats[0] else 0,
                'file': rel(inner['file'], trees), 'line': inner['line'],
                'function': inner['function'],
                'in': s['inline'][-1]['function'] if s['inline'] else '??',
                'chain': ['%s:%d' % (rel(fr['file'], trees), fr['line'])
                          for fr in s['inline']],
                'lines': ['%s:%d' % (fr['function'], fr['line'])
                          for fr in s['inline']]}
            if 'ran_at' in s:
                site['ran_at'] = s['ran_at']
            if s['kind'] == 'call':
                site['callee'] = s['callee']
            sites.append(site)
        runs.append(dict(fields, **{
            'name': '%s %s' % (label, what),
            'run': 'boot' if what == whats[0] else what,
            'seconds': int(seconds.get(prefix + what, 0)),
            # Every function counted, 0 included: a name missing here is
            # not a symbol of the vmlinux (inlined, or not built).
            'operations': dict(sorted(d['ops'].items())),
            'sites': sorted(sites, key=lambda s: (-s['count'], s['pc']))}))
    return runs


def store(measured, arch, variants, runs, static):
    """Runs and trapcheck's findings (STATIC.json) into MEASURED.json,
    replacing those of the same arch and VARIANTS; compared again."""
    st = json.load(open(static))
    findings = [{'rule': f['rule'], 'file': f['file'], 'line': f['line'],
                 'function': f['function'], 'root': f['root'],
                 'phase': f.get('phase'), 'mode': f.get('mode'),
                 'modes': [{'mode': x['mode'], 'root': x['root'],
                            'per': x['per']} for x in f.get('modes') or []],
                 'rate': f.get('rate'), 'roots_of_chains': chain_roots(f),
                 'subset_function': subset_function(f),
                 # The other root sets' rates (one finding per site).
                 'also': {a['root']: {'rate': a.get('rate'),
                                      'roots_of_chains': chain_roots(a)}
                          for a in f.get('also_reached') or []
                          if a.get('rate')}}
                for f in st['findings'] if f['rule'] in RULES]
    try:
        m = json.load(open(measured))
    except FileNotFoundError:
        m = {'runs': [], 'findings': {}}
    m['runs'] = [r for r in m['runs'] if not (r['arch'] == arch and
                                              r['variant'] in variants)]
    m['runs'] += runs
    m['runs'].sort(key=lambda r: (r['arch'], r['variant'] != 'shipped',
                                  r['variant'], r['run'] != 'boot',
                                  r['run']))
    for v in variants:
        m.setdefault('findings', {})['%s %s' % (arch, v)] = findings
        # The machine the rates are for (trapcheck --features), or None.
        m.setdefault('features', {})['%s %s' % (arch, v)] = \
            st['summary'].get('features')
    m['root_sets'] = root_sets()
    m['comparison'] = compare(m)
    tmp = measured + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(m, f, indent=1, sort_keys=True)
        f.write('\n')
    os.replace(tmp, measured)


def x86(measured, variant, odir, tree, static):
    tree = os.path.realpath(tree)
    trees = [tree]
    if variant != 'shipped' and tree.endswith('-' + variant):
        trees.append(tree[:-len(variant) - 1])
    fields = {
        'arch': 'x86_64', 'variant': variant,
        'kernel': 'Linux 6.12 (Debian linux-source-6.12 %s)' % pkg_version(),
        'config': 'TRAPCHECK_KERNEL_ARCH=x86 scripts/kernel-tree.sh 6.12 '
                  'qemu' + ('' if variant == 'shipped' else
                            ', then tests/oracle/variant.sh ' + variant),
        'machine': 'qemu-system-x86_64 7.2 -M pc -cpu max -smp 2 -m 512M, '
                   'TCG, tests/oracle/insn-count.c'}
    runs = load_runs(odir, '', ('boot', 'workload', 'io'), trees,
                     'x86_64 6.12 ' + variant, fields)
    store(measured, 'x86_64', [variant], runs, static)


def guest(measured, cpu, odir, tree, static):
    """The plugin oracle's guest runs (run-qemu-kvm.sh with
    TRAPCHECK_ORACLE_MODES=guest, TRAPCHECK_ORACLE_CPU=CPU): the kernel
    booted at EL1, a guest of the machine, boot, workload and exec."""
    tree = os.path.realpath(tree)
    want = features.features(tree, [os.path.join(odir, 'guest-boot.console')])
    got = json.load(open(static))['summary'].get('features')
    if got != want:
        sys.exit('%s: not trapcheck --features of the oracle machine '
                 '(tests/oracle/features.py): %s' % (static, got))
    variant = 'guest-' + cpu
    fields = {
        'arch': 'arm64', 'variant': variant,
        'kernel': 'Linux 6.12 (Debian linux-source-6.12 %s)' % pkg_version(),
        'config': 'scripts/kernel-tree.sh 6.12 qemu-kvm',
        'machine': 'qemu-system-aarch64 7.2 -M virt,gic-version=3 -cpu %s '
                   '-smp 2 -m 512M, TCG, tests/oracle/insn-count.c; the '
                   'kernel at EL1, a guest' % cpu}
    runs = load_runs(odir, 'guest-', ('boot', 'workload', 'exec'), [tree],
                     'arm64 6.12 guest ' + cpu, fields)
    store(measured, 'arm64', [variant], runs, static)


def single(measured, cpu, odir, tree, static):
    """The single-stepped oracle's runs (run-qemu.sh): the plain qemu
    kernel (scripts/kernel-tree.sh 6.12 qemu) on CPU, every trapped class
    counted per PC from QEMU's -d exec log under -singlestep when the run
    had TRAPCHECK_ORACLE_CLASSES=all (its sites.json says), else the ID
    group 3 only; the runs ODIR has (boot, workload, exec)."""
    tree = os.path.realpath(tree)
    want = features.features(tree, [os.path.join(odir, 'boot.console')])
    got = json.load(open(static))['summary'].get('features')
    if got != want:
        sys.exit('%s: not trapcheck --features of the oracle machine '
                 '(tests/oracle/features.py): %s' % (static, got))
    whats = tuple(w for w in ('boot', 'workload', 'exec')
                  if os.path.exists(os.path.join(odir, w + '.sites.json')))
    found = json.load(open(os.path.join(odir, 'sites.json')))
    kinds = sorted({s.get('kind', 'idreg') for s in found.values()
                    if 'reg' in s})
    # Every class is counted when the disassembly's sites had any but
    # the ID group 3 (a kernel without such a read would say so too).
    classes = 'all' if kinds != ['idreg'] else 'idreg'
    variant = 'single-' + cpu
    fields = {
        'arch': 'arm64', 'variant': variant, 'classes': classes,
        'kernel': 'Linux 6.12 (Debian linux-source-6.12 %s)' % pkg_version(),
        'config': 'scripts/kernel-tree.sh 6.12 qemu',
        'machine': 'qemu-system-aarch64 7.2 -M virt -cpu %s -smp 2 '
                   '-m 512M, TCG -singlestep, tests/oracle/mrs-trace.py '
                   '(-d exec); the kernel at EL1, a guest' % cpu}
    runs = load_runs(odir, '', whats, [tree],
                     'arm64 6.12 single-stepped ' + cpu, fields)
    store(measured, 'arm64', [variant], runs, static)


def kvm(measured, odir, tree, static):
    tree = os.path.realpath(tree)
    want = features.features(tree, [os.path.join(odir, m + '-boot.console')
                                     for m in ('vhe', 'nvhe')])
    got = json.load(open(static))['summary'].get('features')
    if got != want:
        sys.exit('%s: not trapcheck --features of the oracle machine '
                 '(tests/oracle/features.py): %s' % (static, got))
    runs = []
    for mode in ('vhe', 'nvhe'):
        fields = {
            'arch': 'arm64', 'variant': 'nested-' + mode,
            'kernel': 'Linux 6.12 (Debian linux-source-6.12 %s)'
                      % pkg_version(),
            'config': 'scripts/kernel-tree.sh 6.12 qemu-kvm',
            'machine': 'qemu-system-aarch64 7.2 -M virt,virtualization=on '
                       '-cpu max -smp 2 -m 512M, TCG, tests/oracle/'
                       'insn-count.c; a KVM host (%s) running one vCPU'
                       % ('VHE' if mode == 'vhe' else
                          'nVHE, kvm-arm.mode=nvhe')}
        runs += load_runs(odir, mode + '-', ('boot', 'kvm', 'kvm-debug'),
                          [tree],
                          'arm64 6.12 nested ' + mode, fields)
    store(measured, 'arm64', ['nested-vhe', 'nested-nvhe'], runs, static)


# What a kernel decided, as its console says it (timestamps dropped).
DECISIONS = re.compile(r'(CPU features: detected|oracle: vulnerabilities: |'
                       r'oracle: kvm: MMIO exits|kvm \[\d+\]: |'
                       r'oracle: io: |x86/fpu: )')
STAMP = re.compile(r'^\[\s*\d+\.\d+\]\s*')
KSTAMP = re.compile(r'\[\s*\d+\.\d+\] ')
# A terminal's control sequences (the firmware clears the screen).
ESCAPE = re.compile(r'\x1b(?:\[[0-9;?]*[A-Za-z]|[A-Za-z])')
PATCH_SITE = re.compile(r'^  (\S+):(\d+) \(rule ([\w-]+)\)$')


def console_lines(console):
    """CONSOLE's lines, init's and the kernel's apart. The kernel prints
    each of its lines whole, but between two chunks of init's output (a
    write() of its own, or the UART's next FIFO load): "oracle: io:
    squashfs bytes read [ 2.1] input: ...", then "8388608" on the next
    line. With timestamps (printk.time=1) the kernel's line is found
    where its stamp begins, and init's is joined again; what comes before
    the kernel's first line is the firmware's ("Booting from ROM.."), a
    line of its own. Terminal control sequences are dropped. Without
    timestamps, each line is as the console has it."""
    out, pending, kernel = [], '', False
    for raw in open(console, errors='replace'):
        raw = ESCAPE.sub('', raw.replace('\r', '').rstrip('\n'))
        m = KSTAMP.search(raw)
        if m and m.start() > 0 and not kernel:
            out.append(raw[:m.start()].strip())
        elif m and m.start() > 0:
            # init's text, then a whole kernel line; init goes on below.
            pending += raw[:m.start()]
        if m:
            kernel = True
            out.append(raw[m.start():].strip())
            continue
        out.append((pending + raw).strip())
        pending = ''
    if pending:
        out.append(pending.strip())
    return [STAMP.sub('', x) for x in out]


def decisions(console):
    return sorted(x for x in console_lines(console) if DECISIONS.search(x))


def by_function(path, trees, kind='idreg'):
    """(file, function, kind) -> executions of a run's sites.json, each
    site at its innermost inline frame; and (file, line) -> function of
    its sites of KIND (ID-register reads, or x86's CPUID); and (function,
    line) -> executions of KIND there."""
    d = json.load(open(path))
    out, at, lines = {}, {}, {}
    for s in d['sites'] + d['calls']:
        inner = s['inline'][0] if s['inline'] else \
            {'function': '??', 'file': '??', 'line': 0}
        file = rel(inner['file'], trees)
        key = (file, inner['function'], s['kind'])
        out[key] = out.get(key, 0) + s['count']
        if s['kind'] == kind:
            at[(file, inner['line'])] = inner['function']
            # By function and line too: one site of several in a
            # function (the file may be the .c that inlined a header).
            k = (inner['function'], inner['line'])
            lines[k] = lines.get(k, 0) + s['count']
    return out, at, lines


def fix(measured, name, base_dir, fix_dir, base_tree, fix_tree, *patches):
    base_tree = os.path.realpath(base_tree)
    fix_tree = os.path.realpath(fix_tree)
    fixed, subjects = [], []
    for p in patches:
        prev = subject = ''
        for line in open(p):
            if line.startswith('Subject: [PATCH] '):
                subject = line[len('Subject: [PATCH] '):].strip()
                subjects.append(subject)
            m = PATCH_SITE.match(line.rstrip('\n'))
            # The chain's last function ends the line before the site's.
            fn = re.search(r'(\w+)\(\)$', prev.rstrip())
            if m:
                fixed.append({'file': m.group(1), 'line': int(m.group(2)),
                              'rule': m.group(3), 'patch': subject,
                              'function': fn.group(1) if fn else None})
            prev = line
    if not fixed:
        sys.exit('record: %s: no site named in the patches' % name)
    # The nested arm64 oracle's runs, or the x86 oracle's: which ran.
    arm64 = os.path.exists(os.path.join(base_dir, 'vhe-boot.sites.json'))
    kind = 'idreg' if arm64 else 'cpuid'
    names = [m + '-' + w for m in ('vhe', 'nvhe')
             for w in ('boot', 'kvm', 'kvm-debug')] if arm64 else \
        ['boot', 'workload', 'io']
    runs = []
    for run in names:
        before, at, at_line = by_function(
            os.path.join(base_dir, run + '.sites.json'), [base_tree],
            kind)
        # A copy's objects it did not rebuild keep the tree's paths.
        after, _, after_line = by_function(
            os.path.join(fix_dir, run + '.sites.json'),
            [fix_tree, base_tree], kind)
        # A site's reads by its function, in any file: the DWARF of
        # nVHE's objects names the .c file for the lines of the
        # headers they inline.
        sites = []
        for f in fixed:
            fn = f['function'] or at.get((f['file'], f['line']))
            site = {'file': f['file'], 'line': f['line'], 'function': fn,
                    'patch': f['patch'],
                    'before': sum(v for k, v in before.items()
                                  if k[1] == fn and k[2] == kind),
                    'after': sum(v for k, v in after.items()
                                 if k[1] == fn and k[2] == kind)}
            # x86: several CPUID sites of one function, each its own.
            if not arm64 and sum(g['function'] == f['function']
                                 for g in fixed) > 1:
                site['before'] = at_line.get((fn, f['line']), 0)
                site['after'] = after_line.get((fn, f['line']), 0)
            sites.append(site)
        changed = []
        for key in sorted(set(before) | set(after)):
            if before.get(key, 0) != after.get(key, 0):
                changed.append({'file': key[0], 'function': key[1],
                                'kind': key[2],
                                'before': before.get(key, 0),
                                'after': after.get(key, 0)})
        db = decisions(os.path.join(base_dir, run + '.console'))
        da = decisions(os.path.join(fix_dir, run + '.console'))
        runs.append({
            'run': run, 'sites': sites, 'changed': changed,
            'decisions': {'lines': len(db), 'same': db == da,
                          'only_before': [x for x in db if x not in da],
                          'only_after': [x for x in da if x not in db]},
            'kind': kind,
            'idreg_before': sum(v for k, v in before.items()
                                if k[2] == kind),
            'idreg_after': sum(v for k, v in after.items()
                               if k[2] == kind)})
    m = json.load(open(measured))
    m.setdefault('fixes', {})[name] = {
        'subjects': subjects, 'sites': fixed,
        'kernel': 'Linux 6.12 (Debian linux-source-6.12 %s)' % pkg_version(),
        'config': 'scripts/kernel-tree.sh 6.12 qemu-kvm' if arm64 else
                  'TRAPCHECK_KERNEL_ARCH=x86 scripts/kernel-tree.sh 6.12 '
                  'qemu',
        'how': 'tests/oracle/variant.sh trapcheck-fix qemu-kvm; '
               'tests/oracle/run-qemu-kvm.sh OUT [COPY] before and after'
               if arm64 else
               'TRAPCHECK_KERNEL_ARCH=x86 tests/oracle/variant.sh '
               'trapcheck-fix; tests/oracle/run-qemu-x86.sh OUT [COPY] '
               'before and after',
        'runs': runs}
    with open(measured + '.tmp', 'w') as out:
        json.dump(m, out, indent=1, sort_keys=True)
        out.write('\n')
    os.replace(measured + '.tmp', measured)


def hits(site, f):
    """Whether SITE's inline chain passes FINDING's line: by file, or by
    function and line (the DWARF of nVHE's hypervisor objects names the
    .c file for the lines of the headers it inlined). In a .S file the
    line before counts too: arm64's SYM_FUNC_START() ends in "bti c ;",
    and gas gives the statement on the next line (a macro expanded there,
    cache.S's caches_clean_inval_pou_macro) the line of that ';'."""
    if '%s:%d' % (f['file'], f['line']) in site['chain'] or \
            '%s:%d' % (f['function'], f['line']) in site.get('lines', []):
        return True
    return f['file'].endswith('.S') and \
        '%s:%d' % (f['file'], f['line'] - 1) in site['chain'][:1]


def subset_function(f):
    """A rate per a subset of the root set's operations (a SUBSET
    condition: "executable mapping of a page written since its last cache
    maintenance"): the function of the chain entered under that condition,
    whose calls are those operations; else None."""
    chain = f.get('chain') or []
    for i, step in enumerate(chain[:-1]):
        if any(c.get('kind') == 'subset' for c in step.get('conditions')
               or []):
            return chain[i + 1]['function']
    return None


def compare(m):
    """Each finding with a rate against its count per operation."""
    rows, seen = [], set()
    # The shipped kernel first: a variant adds only its own findings.
    for key, findings in sorted(m['findings'].items(),
                                key=lambda kv: (kv[0].split(' ')[0],
                                                not kv[0].endswith(
                                                    ' shipped'), kv[0])):
        arch, variant = key.split(' ', 1)
        runs = [r for r in m['runs'] if r['arch'] == arch and
                r['variant'] == variant]
        boot = next((r for r in runs if r['run'] == 'boot'), None)
        # A nested run is one KVM mode: a finding is compared in each
        # mode its chain runs in (trapcheck's mode, or any).
        mode = variant[len('nested-'):] if variant.startswith('nested-') \
            else None
        for f in findings:
            at = '%s:%d' % (f['file'], f['line'])
            k = (arch, f['rule'], at, mode)
            if not f.get('rate') or f.get('phase') == 'boot' or k in seen:
                continue
            root, per = f['root'], f['rate']['per']
            rate, chain_roots_ = f['rate']['value'], f['roots_of_chains']
            if mode:
                # The root set its chains start from in this mode
                # (trapcheck's "by mode" counts); none: not this mode's.
                own = [x for x in f.get('modes') or [] if not x['mode']
                       or x['mode'].lower().split()[0] == mode]
                if f.get('modes') and not own:
                    continue
                if own:
                    root, per = own[0]['root'], own[0]['per']
                if root != f['root']:
                    # Trapcheck's rate for that root set.
                    other = f.get('also', {}).get(root)
                    if not other:
                        continue
                    rate = other['rate']['value']
                    chain_roots_ = other['roots_of_chains']
            seen.add(k)
            # The oracle counts per line: a line with more than one
            # read (the sites of one assembly macro's expansion, columns
            # 1, 2, ...) is compared as the sum of their rates.
            rate += sum(g['rate']['value'] for g in findings
                        if g is not f and g['file'] == f['file'] and
                        g['line'] == f['line'] and g['rule'] == f['rule']
                        and g.get('rate') and g.get('phase') != 'boot'
                        and g['root'] == f['root'] and not mode)
            best = None
            for r in runs:
                if r['run'] == 'boot':
                    continue
                steady = lambda fn: r['operations'].get(fn, 0) - \
                    (boot['operations'].get(fn, 0) if boot else 0)
                roots = [fn for fn in chain_roots_
                         if fn in r['operations'] and
                         fn in m['root_sets'].get(root, [fn])]
                how = 'calls of the roots of its chains'
                if not sum(steady(fn) for fn in roots):
                    # No root of its chains counted: inlined where they
                    # are called, or nVHE's EL2 copy ran (at addresses of
                    # its own): the root set's busiest counted function.
                    roots = sorted((fn for fn in m['root_sets'].get(
                        root, []) if fn in r['operations']),
                        key=lambda fn: (-steady(fn), fn))[:1]
                    how = 'calls of %s, its root set\'s busiest counted ' \
                          'function (no root of its chains counted: ' \
                          'inlined, or nVHE\'s EL2 copy)' % ', '.join(roots)
                ops = sum(steady(fn) for fn in roots)
                # A rate per a subset of them: that subset's function's
                # calls, when the oracle counts it.
                sub = f.get('subset_function')
                if f['rate'].get('subset') and sub and \
                        sub in r['operations']:
                    ops = steady(sub)
                    how = 'calls of %s (the rate\'s operation: %s)' % (
                        sub, f['rate']['per'])
                if ops <= 0:
                    continue
                n = sum(s['steady'] for s in r['sites'] if hits(s, f))
                # The run that exercised the chain most (a guard the
                # workload decides, such as a guest's debug use), then
                # the one with most operations.
                if not best or (n, ops) > (best['count'],
                                           best['operations']):
                    best = {'run': r['name'], 'operations': ops,
                            'count': n, 'operation': how}
            if not best:
                continue
            rows.append(dict(best, rule=f['rule'], file=f['file'],
                             line=f['line'], function=f['function'],
                             root=root, per=per, estimate=rate,
                             measured=round(best['count'] /
                                            best['operations'], 4)))
    rows.sort(key=lambda r: (-r['measured'], r['file'], r['line']))
    return {'sites': rows, 'n': len(rows),
            'rho': spearman([r['estimate'] for r in rows],
                            [r['measured'] for r in rows])}


def fmt(n):
    return '{:,}'.format(n) if isinstance(n, int) else \
        ('%.4g' % n if isinstance(n, float) else str(n))


def tables(m):
    """NAME -> the Markdown of that generated block."""
    out = {}
    lines = ['| run | seconds | operations counted (minus the boot\'s) | '
             'CPUID | RDMSR | RDRAND | RDSEED | RDPMC |',
             '|---|---:|---|---:|---:|---:|---:|---:|']
    boots = {r['variant']: r for r in m['runs'] if r['run'] == 'boot'}
    for r in m['runs']:
        if r['arch'] != 'x86_64':
            continue
        b = boots.get(r['variant'])
        ops = ', '.join(
            '`%s` %s' % (k, fmt(v - (b['operations'].get(k, 0)
                                     if b and r is not b else 0)))
            for k, v in sorted(r['operations'].items())
            if v - (b['operations'].get(k, 0) if b and r is not b else 0))
        by = {}
        for s in r['sites']:
            by[s['kind']] = by.get(s['kind'], 0) + s['count']
        lines.append('| %s | %d | %s | %s | %s | %s | %s | %s |' % (
            r['name'], r['seconds'], ops or '-',
            *(fmt(by.get(k, 0)) for k in ('cpuid', 'rdmsr', 'rdrand',
                                          'rdseed', 'rdpmc'))))
    out['x86-runs'] = '\n'.join(lines)
    lines = ['| run | site (innermost line) | in | instruction | steady '
             'count |', '|---|---|---|---|---:|']
    for r in m['runs']:
        if r['arch'] != 'x86_64' or r['run'] == 'boot':
            continue
        for s in r['sites']:
            if s['steady'] > 0:
                what = s['kind'] if s['kind'] != 'call' else \
                    'call of `%s()`' % s['callee']
                lines.append('| %s | `%s:%d` | `%s()` | %s | %s |' % (
                    r['name'], s['file'], s['line'], s['in'], what,
                    fmt(s['steady'])))
    out['x86-steady'] = '\n'.join(lines)
    # arm64's guest runs: every trapped class, and each steady site.
    lines = ['| run | seconds | operations counted (minus the boot\'s) | '
             'ID group 3 (TID3) | cache ID (TID2) | REVIDR, AIDR (TID1) | '
             'GMID (TID5) |', '|---|---:|---|---:|---:|---:|---:|']
    steady = ['| run | site (innermost line) | in | class | steady count |',
              '|---|---|---|---|---:|']
    for r in m['runs']:
        if r['arch'] != 'arm64' or not r['variant'].startswith(
                ('guest-', 'single-')):
            continue
        b = boots.get(r['variant'])
        ops = ', '.join(
            '`%s` %s' % (k, fmt(v - (b['operations'].get(k, 0)
                                     if b and r is not b else 0)))
            for k, v in sorted(r['operations'].items())
            if v - (b['operations'].get(k, 0) if b and r is not b else 0))
        by = {}
        for s in r['sites']:
            by[s['kind']] = by.get(s['kind'], 0) + s['count']
        # A class the run did not count is "-", not 0.
        lines.append('| %s | %d | %s | %s | %s | %s | %s |' % (
            r['name'], r['seconds'], ops or '-',
            *(fmt(by.get(k, 0)) if r.get('classes', 'all') == 'all' or
              k == 'idreg' else '-'
              for k in ('idreg', 'tid2', 'tid1', 'tid5'))))
        for s in r['sites']:
            if r['run'] != 'boot' and s['steady'] > 0 and \
                    s['kind'] != 'call':
                steady.append('| %s | `%s:%d` | `%s()` | %s | %s |' % (
                    r['name'], s['file'], s['line'], s['in'], s['kind'],
                    fmt(s['steady'])))
    out['arm64-guest-runs'] = '\n'.join(lines)
    out['arm64-guest-steady'] = '\n'.join(steady)
    lines = ['| finding | trapcheck: root set by mode | run | VHE: count / '
             'operations | nVHE: count / operations |',
             '|---|---|---|---:|---:|']
    for f in m['findings'].get('arm64 nested-vhe', []):
        if f['root'] not in ('kvm-run', 'kvm-load'):
            continue
        at = '%s:%d' % (f['file'], f['line'])
        modes = '; '.join('%s: %s' % (x['mode'] or 'any', x['root'])
                          for x in f['modes']) or f['root']
        for what in ('kvm', 'kvm-debug'):
            cells = []
            for mode in ('vhe', 'nvhe'):
                r = next(x for x in m['runs']
                         if x['variant'] == 'nested-' + mode and
                         x['run'] == what)
                b = next(x for x in m['runs']
                         if x['variant'] == r['variant'] and
                         x['run'] == 'boot')
                own = [x['root'] for x in f['modes'] if not x['mode'] or
                       x['mode'].lower().split()[0] == mode]
                ops = {fn: r['operations'][fn] - b['operations'].get(fn, 0)
                       for fn in m['root_sets'].get(
                           own[0] if own else f['root'], [])
                       if fn in r['operations']}
                fn = max(sorted(ops), key=lambda k: ops[k])
                n = sum(s['steady'] for s in r['sites'] if hits(s, f))
                cells.append('%s / %s `%s`' % (fmt(n), fmt(ops[fn]), fn)
                             if own else '%s (not this mode\'s)' % fmt(n))
            lines.append('| `%s` `%s()` | %s | %s | %s | %s |' % (
                at, f['function'], modes, what, cells[0], cells[1]))
    out['kvm'] = '\n'.join(lines)
    c = m['comparison']
    lines = ['| finding | rule | root, per | trapcheck | measured per '
             'operation | run: count / operations |',
             '|---|---|---|---:|---:|---|']
    for r in c['sites']:
        lines.append('| `%s:%d` `%s()` | %s | %s, %s | %s | **%s** | %s: '
                     '%s / %s %s |' % (
                         r['file'], r['line'], r['function'], r['rule'],
                         r['root'], r['per'], fmt(r['estimate']),
                         fmt(r['measured']), r['run'], fmt(r['count']),
                         fmt(r['operations']), r['operation']))
    lines.append('')
    lines.append('Spearman\'s rho over these %d: %s.' % (
        c['n'], c['rho'] if c['rho'] is not None else
        'not defined (fewer than 3, or no spread on one side)'))
    out['comparison'] = '\n'.join(lines)
    lines = ['| patch | site | run | reads before | reads after | '
             'decisions compared |', '|---|---|---|---:|---:|---|']
    notes = []
    for name, fx in sorted(m.get('fixes', {}).items()):
        ran = {(st['file'], st['line']) for r in fx['runs']
               for st in r['sites'] if st['before'] or st['after']}
        idle = ['`%s:%d` `%s()` (%s)' % (f['file'], f['line'],
                                         f['function'], f['patch'])
                for f in fx['sites'] if (f['file'], f['line']) not in ran]
        if idle:
            notes.append('- %s: no read at these sites in any run, before '
                         'or after: %s' % (name, ', '.join(idle)))
        for r in fx['runs']:
            d = r['decisions']
            same = ('%d lines, identical' % d['lines'] if d['same'] else
                    '**differ**: %s' % '; '.join(
                        ['-' + x for x in d['only_before']] +
                        ['+' + x for x in d['only_after']]))
            for st in r['sites']:
                if not st['before'] and not st['after']:
                    continue
                lines.append('| %s | `%s:%d` `%s()` | %s | %s | **%s** | '
                             '%s |' % (st['patch'], st['file'], st['line'],
                                       st['function'], r['run'],
                                       fmt(st['before']), fmt(st['after']),
                                       same))
            fixed = {st['function'] for st in r['sites']}
            other = ['`%s` `%s()` %s %s -> %s' % (
                c['file'], c['function'], c['kind'], fmt(c['before']),
                fmt(c['after'])) for c in r['changed']
                if c['function'] not in fixed]
            notes.append('- %s, %s: every %s %s -> %s; '
                         'other counts that changed: %s' % (
                             name, r['run'],
                             'CPUID' if r.get('kind') == 'cpuid' else
                             'ID-register read', fmt(r['idreg_before']),
                             fmt(r['idreg_after']),
                             ', '.join(other) if other else 'none'))
    out['fixes'] = '\n'.join(lines + [''] + notes)
    return out


BEGIN = re.compile(r'^<!-- measured\.json: ([\w-]+) -->$')
END = '<!-- end measured.json -->'
# The page of each generated block that is not in measured.md.
PAGE = {'fixes': 'fixes.md'}


def md(measured, mdfile, check):
    m = json.load(open(measured))
    if check and compare(m) != m['comparison']:
        sys.stderr.write('record: %s: its comparison is not what its runs '
                         'and findings give\n' % measured)
        sys.exit(1)
    gen = tables(m)
    text = open(mdfile).read().split('\n')
    res, i, seen = [], 0, set()
    while i < len(text):
        res.append(text[i])
        b = BEGIN.match(text[i])
        i += 1
        if not b:
            continue
        name = b.group(1)
        if name not in gen:
            sys.exit('record: %s: no table named %s' % (mdfile, name))
        seen.add(name)
        while i < len(text) and text[i] != END:
            i += 1
        if i == len(text):
            sys.exit('record: %s: %s has no end line' % (mdfile, name))
        res += gen[name].split('\n')
    page = os.path.basename(mdfile)
    missing = {n for n in gen
               if PAGE.get(n, 'measured.md') == page} - seen
    new = '\n'.join(res)
    if check:
        old = '\n'.join(text)
        if missing or new != old:
            sys.stderr.write('record: %s differs from %s%s (tests/oracle/'
                             'record.py md)\n' % (
                                 mdfile, measured,
                                 ': no block ' + ', '.join(sorted(missing))
                                 if missing else ''))
            sys.exit(1)
        return
    with open(mdfile + '.tmp', 'w') as f:
        f.write(new)
    os.replace(mdfile + '.tmp', mdfile)


def main():
    a = sys.argv[1:]
    if len(a) == 6 and a[0] == 'x86':
        x86(*a[1:])
    elif len(a) == 5 and a[0] == 'kvm':
        kvm(*a[1:])
    elif len(a) == 6 and a[0] == 'guest':
        guest(*a[1:])
    elif len(a) == 6 and a[0] == 'single':
        single(*a[1:])
    elif len(a) >= 8 and a[0] == 'fix':
        fix(*a[1:])
    elif len(a) == 2 and a[0] == 'console':
        for line in console_lines(a[1]):
            print(line)
    elif len(a) in (3, 4) and a[0] == 'md':
        md(a[1], a[2], len(a) == 4 and a[3] == '--check')
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
