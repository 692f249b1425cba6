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
#   (nm of the built objects);
# - no source file over 700 lines, no function over 100;
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
objs = sorted(glob.glob('checker/*/*.o') + glob.glob('checker/arch/*/*.o'))
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
edges = {o: set() for o in objs}
for o in objs:
    for s in undef[o]:
        d = defs.get(s)
        if d and d != o and os.path.dirname(d) == os.path.dirname(o):
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
   'no two modules of a layer call each other (%d objects)%s'
   % (len(objs), ''.join('\n# loop: ' + l for l in loops)))

# Sizes.
big, long_fn = [], []
for f in glob.glob('checker/*/*.c') + glob.glob('checker/arch/*/*.c'):
    lines = open(f).read().split('\n')
    if len(lines) - 1 > 700:
        big.append('%s: %d lines' % (f, len(lines) - 1))
    start = None
    for i, l in enumerate(lines):
        if l == '{':
            start = i
        elif l == '}' and start is not None:
            if i - start + 1 > 100:
                long_fn.append('%s:%d: %d lines' % (f, start, i - start + 1))
            start = None
ok(not big, 'no source file over 700 lines' + ''.join('\n# ' + b for b in big))
ok(not long_fn, 'no function over 100 lines' + ''.join('\n# ' + b for b in long_fn))

# docs/design.md.
design = open('docs/design.md').read()
m = re.search(r'<!-- BEGIN LAYERS -->\n(.*?)<!-- END LAYERS -->', design, re.S)
named = re.findall(r'^\| `(\w+)` \|', m.group(1), re.M) if m else []
ok(named == layers, "design.md's table of layers is LAYERS's, in order (%s)"
   % ' '.join(named))
missing = [f for f in glob.glob('checker/*/*.c') + glob.glob('checker/arch/*/*.c')
           if os.path.basename(f) not in design and
           not os.path.basename(f).startswith('rule-')]
ok(not missing, 'design.md names every module' + ''.join('\n# ' + f for f in missing))
missing = [d for d in dirs + ['arch/' + a for a in arches]
           if 'checker/%s/' % d not in design]
ok(not missing, 'design.md names every folder' + ''.join('\n# ' + f for f in missing))
# The architecture seam: what an architecture's kernel spells (its
# words.def, kvm-exits.def) is its data; no generic module writes one of
# those words as a string of its own (those that are kernel identifiers,
# with a capital or an underscore: "capability" is also a JSON key).
words = set()
for f in glob.glob('checker/arch/*/words.def') + glob.glob('checker/arch/*/kvm-exits.def'):
    for line in open(f):
        m = re.match(r'\s*(?:WORD|KVM_EXIT)\(\w+,\s*"([^"]+)"', line)
        if m:
            words.add(m.group(1))
spelled = []
for f in sorted(glob.glob('checker/*/*.c')):
    if f.startswith('checker/arch/'):
        continue
    text = re.sub(r'/\*.*?\*/', '', open(f).read(), flags=re.S)
    for lit in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text):
        if lit in words and re.search(r'[A-Z_]', lit):
            spelled.append('%s: "%s"' % (f, lit))
ok(words and not spelled,
   'no generic module spells an architecture word (%d words)' % len(words)
   + ''.join('\n# ' + w for w in spelled))
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
