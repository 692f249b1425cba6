#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The layers of checker/LAYERS, written once and checked here for every
# folder (docs/design.md):
# - every folder of checker/ (checker/arch/<name>/ for the arch layer)
#   and of include/trapcheck/ is a layer, and every layer has its folder;
# - what each source and header includes, directly or not (gcc -MM), is
#   of its own layer or of one listed before it;
# - libclang's headers only in the layers LAYERS marks "clang";
# - no two modules of one layer call each other, directly or in a loop
#   (nm of the built objects; the files of one family are one module);
# - linked symbols run one way too (nm): an object refers to its own
#   layer's and lower ones' only, and nothing outside checker/arch/ to a
#   symbol of an architecture;
# - every exported name has its module's prefix (checker/NAMES), and the
#   family-internal headers declare at most 30 functions;
# - outside checker/arch/, at most three files (named, each for a reason)
#   spell an architecture's concepts in code;
# - struct finding has at most 30 fields, and no hub struct gathers
#   every stage's figures (struct run_summary is gone);
# - files over 700 lines and functions over 100 are noted (a smell);
# - docs/design.md names every layer, in order, and every module.
. "$(dirname "$0")/../tap.sh"
cd "$TOP" || exit 1
LLVM_CONFIG=$(command -v llvm-config-14 || command -v llvm-config)
CLANG_INC=$($LLVM_CONFIG --includedir)
make -s all > "$SCRATCH/make.log" 2>&1 ||
	{ fail "the library builds (make)"; cat "$SCRATCH/make.log"; }

python3 - "$CLANG_INC" > "$SCRATCH/layers.out" <<'PY'
import glob, os, re, subprocess, sys

clang_inc = sys.argv[1]
layers, clang_ok = [], set()
for line in open('checker/LAYERS'):
    if not line.strip() or line.startswith('#'):
        continue
    name, lib = line.split()[:2]
    layers.append(name)
    if lib == 'clang':
        clang_ok.add(name)
rank = {l: i for i, l in enumerate(layers)}
out = []

def ok(cond, what):
    out.append(('ok' if cond else 'not ok') + ' ' + what)

# Folders.
dirs = sorted(d for d in os.listdir('checker')
              if os.path.isdir('checker/' + d) and d != 'arch')
arches = sorted(d for d in os.listdir('checker/arch')
                if os.path.isdir('checker/arch/' + d))
hdirs = sorted(os.listdir('include/trapcheck'))
ok(set(dirs) | {'arch'} == set(layers),
   'the folders of checker/ are the layers of LAYERS (%s)' % ' '.join(dirs))
ok(set(hdirs) <= set(layers) - {'arch', 'programs'},
   'the folders of include/trapcheck/ are layers with public headers')
ok(bool(arches), 'checker/arch/ holds the architectures (%s)' % ' '.join(arches))

def layer_of(path):
    p = path.split('/')
    if p[0] == 'checker':
        return 'arch' if p[1] == 'arch' else p[1]
    if p[:2] == ['include', 'trapcheck']:
        return p[2]
    return None

files = sorted(glob.glob('checker/*/*.[ch]') + glob.glob('checker/arch/*/*.[ch]') +
               glob.glob('include/trapcheck/*/*.h'))
bad = []
for f in files:
    me = layer_of(f)
    r = subprocess.run(['gcc', '-MM', '-Iinclude', '-Ichecker', '-I' + clang_inc,
                        '-D_GNU_SOURCE', '-x', 'c', f],
                       capture_output=True, text=True)
    if r.returncode:
        bad.append('%s: gcc -MM failed: %s' % (f, r.stderr.strip()[:200]))
        continue
    deps = r.stdout.replace('\\\n', ' ').split(':', 1)[1].split()
    for d in deps:
        d = os.path.normpath(d)
        if 'clang-c/' in d and me not in clang_ok:
            bad.append('%s (%s) includes libclang (%s)' % (f, me, d))
        l = layer_of(d)
        if l is None or l == me:
            continue
        if rank[l] > rank[me]:
            bad.append('%s (%s) includes %s (%s)' % (f, me, d, l))
ok(not bad, 'every include of %d sources and headers is of its layer or a lower one%s'
   % (len(files), ''.join('\n# ' + b for b in bad[:20])))

# Loops between the modules of one layer, from the built objects.
objs = sorted(o for o in glob.glob('checker/*/*.o') + glob.glob('checker/arch/*.o')
              + glob.glob('checker/arch/*/*.o') if not o.startswith('checker/programs/'))
defs, undef = {}, {}
for o in objs:
    undef[o] = set()
    for l in subprocess.run(['nm', o], capture_output=True,
                            text=True).stdout.split('\n'):
        p = l.split()
        if len(p) == 3 and p[1] in 'TDBR':
            defs[p[2]] = o
        elif len(p) == 2 and p[0] == 'U':
            undef[o].add(p[1])
# A family (the files of a folder that share a name before '-', and share
# an internal header; an architecture's whole folder) is one module split
# in files: its files may call each other. Between modules, no loop.
def ofamily(o):
    if o.startswith('checker/arch/') and o.count('/') == 3:
        return os.path.dirname(o)
    d, f = os.path.split(o)
    return d + '/' + f.split('.')[0].split('-')[0]
edges = {o: set() for o in objs}
for o in objs:
    for s in undef[o]:
        d = defs.get(s)
        if d and d != o and os.path.dirname(d) == os.path.dirname(o) and \
           ofamily(d) != ofamily(o):
            edges[o].add(d)
index, low, stack, on, loops = {}, {}, [], set(), []
def scc(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            scc(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            loops.append(' '.join(sorted(comp)))
sys.setrecursionlimit(10000)
for v in objs:
    if v not in index:
        scc(v)
ok(len(objs) > 60 and not loops,
   'no two modules of a layer call each other in a loop (%d objects)%s'
   % (len(objs), ''.join('\n# loop: ' + l for l in loops)))

# Linked symbols run the way includes do: an object refers only to
# symbols of its own layer or of one before it; and no object outside
# checker/arch/ refers to a symbol defined inside it (the registry,
# checker/arch/arches.c, gives every struct arch to the generic layers:
# the seam runs one way in symbols too).
def olayer(o):
    p = o.split('/')
    return 'arch' if p[1] == 'arch' else p[1]
up, into_arch = [], []
for o in objs:
    for s in undef[o]:
        d = defs.get(s)
        if not d:
            continue
        if rank[olayer(d)] > rank[olayer(o)]:
            up.append('%s (%s) refers to %s of %s (%s)'
                      % (o, olayer(o), s, d, olayer(d)))
        if d.startswith('checker/arch/') and not o.startswith('checker/arch/'):
            into_arch.append('%s refers to %s of %s' % (o, s, d))
prog_objs = sorted(glob.glob('checker/programs/*.o'))
for o in prog_objs:
    for l in subprocess.run(['nm', o], capture_output=True,
                            text=True).stdout.split('\n'):
        p = l.split()
        if len(p) == 2 and p[0] == 'U' and (defs.get(p[1]) or '').startswith('checker/arch/'):
            into_arch.append('%s refers to %s of %s' % (o, p[1], defs[p[1]]))
ok(not up, 'every object refers to symbols of its layer or a lower one'
   + ''.join('\n# ' + u for u in up[:20]))
ok(len(prog_objs) > 3 and not into_arch,
   'no object outside checker/arch/ refers to a symbol defined in it'
   + ''.join('\n# ' + u for u in into_arch[:20]))

# Exported names (checker/NAMES): every symbol a module defines for
# others starts with one of its module's prefixes, the longest prefix
# that matches is its own module's (or its family's: the files of one
# folder that share a name before '-'), every module that exports is
# listed, and the family-internal headers (*-internal.h, an
# architecture's <name>.h) declare at most 30 functions between them.
import fnmatch
names = {}
for line in open('checker/NAMES'):
    if not line.strip() or line.startswith('#'):
        continue
    mod, *prefixes = line.split()
    names[mod] = prefixes
def family(mod):
    d, f = os.path.split(mod)
    return d + '/' + f.split('.')[0].split('-')[0]
def listed(mod):
    for pat in names:
        if fnmatch.fnmatch(mod, pat):
            return pat
    return None
bad_names = []
owners = [(p, pat) for pat, ps in names.items() for p in ps]
for o in objs + sorted(glob.glob('checker/programs/*.o')):
    if o.startswith('checker/programs/'):
        continue
    mod = o[len('checker/'):-2] + '.c'
    exported = sorted(s for s, d in defs.items() if d == o)
    pat = listed(mod)
    if exported and not pat:
        bad_names.append('%s exports %s but checker/NAMES lists it not'
                         % (mod, ' '.join(exported[:5])))
        continue
    for s in exported:
        mine = [p for p in names[pat] if s.startswith(p)]
        if not mine:
            bad_names.append('%s: %s has none of its prefixes (%s)'
                             % (mod, s, ' '.join(names[pat])))
            continue
        best = max((p for p, _ in owners if s.startswith(p)), key=len)
        who = [m for p, m in owners if p == best]
        if not any(family(m.replace('*', 'x')) == family(mod) or m == pat
                   for m in who):
            bad_names.append('%s: %s is %s\'s by its prefix %s'
                             % (mod, s, ' '.join(who), best))
for pat in names:
    if not any(fnmatch.fnmatch(o[len('checker/'):-2] + '.c', pat)
               for o in objs):
        bad_names.append('checker/NAMES lists %s, which is no module' % pat)
ok(len(names) > 40 and not bad_names,
   'every exported name has its module\'s prefix (checker/NAMES, %d modules)'
   % len(names) + ''.join('\n# ' + b for b in bad_names[:20]))
internal = {}
for h in glob.glob('checker/*/*-internal.h') + glob.glob('checker/arch/*/*.h'):
    text = re.sub(r'/\*.*?\*/', '', open(h).read(), flags=re.S)
    fns = re.findall(r'^(?!static|typedef|#|\s)[\w \*]*?\b(\w+)\s*\([^;{]*\)\s*;',
                     text, re.M | re.S)
    internal[h] = fns
total = sum(len(v) for v in internal.values())
ok(0 < total <= 30,
   'the family-internal headers declare %d functions (at most 30): %s'
   % (total, ', '.join('%s %d' % (h, len(v)) for h, v in sorted(internal.items()))))

# No hub structs: a finding is what a rule makes (at most 30 fields,
# its parts' counted), and no struct gathers every stage's figures.
def struct_fields(text, name):
    m = re.search(r'^struct %s \{(.*?)^\};' % name, text, re.M | re.S)
    body = re.sub(r'/\*.*?\*/', '', m.group(1), flags=re.S) if m else ''
    n = 0
    for decl in body.split(';'):
        decl = decl.strip()
        if not decl:
            continue
        part = re.match(r'struct (finding_\w+) \w+$', decl)
        n += struct_fields(text, part.group(1)) if part else \
            decl.count(',') + 1
    return n
fh = open('include/trapcheck/finding/finding.h').read()
nf = struct_fields(fh, 'finding')
hubs = subprocess.run(['grep', '-rlw', 'run_summary', 'checker', 'include'],
                      capture_output=True, text=True).stdout.split()
ok(10 < nf <= 30 and not hubs,
   'struct finding has %d fields (at most 30); no struct run_summary%s'
   % (nf, ''.join('\n# run_summary in ' + h for h in hubs)))

# What an architecture is: its concepts (registers, instructions, tables,
# modes, hypervisor controls, as its kernel and trapcheck name them) are
# spelled in code (identifiers and string literals, not comments) under
# checker/arch/ only, but in the files allowed below, each for a reason.
ARCH_WORDS = re.compile(r'(?i)((?:^|[^a-z])ftr(?:[^a-z]|$)|msr|cpuid|sysreg|(?:^|[^a-z])n?vhe(?:[^a-z]|$)|vmx|svm|arm64|aarch64|x86|hcr_el|(?:^|[^a-z])tid[0-9]|_el[0-3](?:[^a-z0-9]|$)|(?:^|[^a-z])hyp(?:[^a-z]|$)|rdrand|rdseed|rndr|(?:^|[^a-z])mrs(?:[^a-z]|$)|sanitis|errata|midr|riscv)')
ARCH_ALLOWED = {
    # sparse's CHECKFLAGS as kbuild passes them for every architecture
    # (trapcheck check drops them): the kernel's build protocol.
    'checker/input/checkflags.def',
    # The JSON output's documented keys ("sanitised",
    # "sanitised_registers"): an interface, not knowledge.
    'checker/output/emit.c',
    # slow-entropy's commit message names the instructions of both
    # architectures ("RDRAND/RNDR class"), as its patches say.
    'checker/rules/rule-slow-entropy.c',
}
def code_only(src):
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * src.count('\n', i, j))
            i = j
        elif src.startswith('//', i):
            j = src.find('\n', i)
            i = n if j < 0 else j
        else:
            out.append(src[i])
            i += 1
    return ''.join(out)
speaking = {}
for f in sorted(glob.glob('checker/*/*.[ch]') + glob.glob('checker/*/*.def') +
                glob.glob('checker/*/*.h') + glob.glob('include/trapcheck/*/*.h')):
    if f.startswith('checker/arch/'):
        continue
    for i, line in enumerate(code_only(open(f).read()).split('\n'), 1):
        m = ARCH_WORDS.search(line)
        if m:
            speaking.setdefault(f, '%s:%d: %s' % (f, i, line.strip()[:100]))
ok(len(speaking) <= 3 and set(speaking) <= ARCH_ALLOWED,
   'outside checker/arch/, %d files spell an architecture\'s concepts in code, each allowed (%s)'
   % (len(speaking), ', '.join(sorted(speaking)))
   + ''.join('\n# ' + speaking[f] for f in sorted(set(speaking) - ARCH_ALLOWED)))

# Sizes: a smell to look at, not a rule that forces a split.
for f in glob.glob('checker/*/*.c') + glob.glob('checker/arch/*/*.c'):
    lines = open(f).read().split('\n')
    if len(lines) - 1 > 700:
        out.append('# smell: %s: %d lines' % (f, len(lines) - 1))
    start = None
    for i, l in enumerate(lines):
        if l == '{':
            start = i
        elif l == '}' and start is not None:
            if i - start + 1 > 100:
                out.append('# smell: %s:%d: a function of %d lines'
                           % (f, start, i - start + 1))
            start = None

# docs/design.md.
design = open('docs/design.md').read()
m = re.search(r'<!-- BEGIN LAYERS -->\n(.*?)<!-- END LAYERS -->', design, re.S)
named = re.findall(r'^\| `(\w+)` \|', m.group(1), re.M) if m else []
ok(named == layers, "design.md's table of layers is LAYERS's, in order (%s)"
   % ' '.join(named))
missing = [f for f in glob.glob('checker/*/*.c') + glob.glob('checker/arch/*/*.c')
           + glob.glob('checker/arch/*.c')
           if os.path.basename(f) not in design and
           not os.path.basename(f).startswith('rule-')]
ok(not missing, 'design.md names every module' + ''.join('\n# ' + f for f in missing))
missing = [d for d in dirs + ['arch/' + a for a in arches]
           if 'checker/%s/' % d not in design]
ok(not missing, 'design.md names every folder' + ''.join('\n# ' + f for f in missing))
print('\n'.join(out))
PY
n=0
while IFS= read -r line; do
	case $line in
	'ok '*) ok "${line#ok }" ;;
	'not ok '*) fail "${line#not ok }" ;;
	'# '*) echo "$line" ;;
	esac
	n=$((n + 1))
done < "$SCRATCH/layers.out"
check "the layer checks ran" [ $n -gt 5 ]
done_testing
