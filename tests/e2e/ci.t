#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The CI templates of contrib/ci/ (docs/ci.md): each is valid for its CI
# system (GitHub's workflow parser, @actions/workflow-parser; GitLab's CI
# schema as gitlab-ci-local bundles it: both from the npm registry,
# cached), and its jobs, run step by step as the CI system would
# (tests/e2e/ci/run.py: the install step clones and builds trapcheck from
# this repository, each shard job in a checkout of its own, artifacts
# handed over), give the join job the findings of a single run over the
# fixture tree: GitHub's SARIF, GitLab's code quality report and SARIF.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
cd "$SCRATCH" || exit 1

# The validators, installed once (one npm at a time).
npmdir=${TRAPCHECK_NPM_CACHE:-/var/cache/trapcheck/npm}/ci
mkdir -p "$npmdir"
(
	flock 9
	if [ ! -d "$npmdir/node_modules/@actions/workflow-parser" ] ||
	   [ ! -d "$npmdir/node_modules/gitlab-ci-local" ]; then
		cd "$npmdir" &&
		echo '{ "private": true }' > package.json &&
		npm install --no-audit --no-fund \
			@actions/workflow-parser@0.3.61 gitlab-ci-local@4.55.0 \
			> npm.log 2>&1
	fi
) 9> "$npmdir.lock"
cp "$TOP"/tests/e2e/ci/*.mjs "$npmdir/"
node --import "$npmdir/register.mjs" "$npmdir/github-validate.mjs" \
	"$TOP/contrib/ci/github-shards.yml" > gh-valid.out 2>&1
rc=$?
check_that "github-shards.yml: valid for GitHub's workflow parser" \
	'[ $rc -eq 0 ] || { sed "s/^/# /" gh-valid.out; false; }'
sed 's/runs-on: ubuntu-latest/runs-onn: ubuntu-latest/' \
	"$TOP/contrib/ci/github-shards.yml" > bad.yml
node --import "$npmdir/register.mjs" "$npmdir/github-validate.mjs" bad.yml \
	> gh-bad.out 2>&1
rc=$?
check_that "... which refuses a misspelt key" \
	'[ $rc -eq 1 ] && grep -q "runs-onn" gh-bad.out'
# gitlab-ci-local validates .gitlab-ci.yml against GitLab's schema.
gl_valid() {
	rm -rf gl && mkdir gl && cp "$1" gl/.gitlab-ci.yml &&
	(cd gl && git init -q && git add -A &&
	 git -c user.name=t -c user.email=t@t commit -qm t &&
	 node "$npmdir/node_modules/gitlab-ci-local/src/index.js" --list)
}
gl_valid "$TOP/contrib/ci/gitlab-shards.yml" > gl-valid.out 2>&1
rc=$?
check_that "gitlab-shards.yml: valid for GitLab's CI schema" \
	'[ $rc -eq 0 ] && grep -q "json schema validated" gl-valid.out ||
	 { sed "s/^/# /" gl-valid.out | tail -n 5; false; }'
gl_valid "$TOP/contrib/ci/gitlab-mr.yml" > gl-mr-valid.out 2>&1
rc=$?
check_that "gitlab-mr.yml: valid for GitLab's CI schema" \
	'[ $rc -eq 0 ] && grep -q "json schema validated" gl-mr-valid.out ||
	 { sed "s/^/# /" gl-mr-valid.out | tail -n 5; false; }'
python3 - "$TOP/docs/ci.md" "$TOP/contrib/ci/gitlab-mr.yml" <<'PY'
import re, sys
doc = open(sys.argv[1]).read()
sec = doc[doc.index('### GitLab CI, new findings only'):]
block = re.search(r'```yaml\n(.*?)```', sec, re.S).group(1)
assert block == open(sys.argv[2]).read(), 'docs/ci.md differs'
PY
check "docs/ci.md's GitLab merge request job is contrib/ci/gitlab-mr.yml as it is" [ $? -eq 0 ]
sed 's/parallel: 4/parallel: four/' "$TOP/contrib/ci/gitlab-shards.yml" \
	> bad-gl.yml
gl_valid bad-gl.yml > gl-bad.out 2>&1
rc=$?
check_that "... which refuses a wrong type" \
	'[ $rc -ne 0 ] && grep -q "parallel" gl-bad.out'

cp -a "$FX" ref
(cd ref && "$TRAPCHECK" -p . -q --format=sarif -o ../single.sarif)
check "the single run finds something (exit 1)" [ $? -eq 1 ]

# sarif_keys FILE: one line per result: rule, file, line, fingerprint.
sarif_keys() {
	python3 - "$1" <<'PY'
import json, sys
for run in json.load(open(sys.argv[1]))['runs']:
    for r in run['results']:
        loc = r['locations'][0]['physicalLocation']
        print(r['ruleId'], loc['artifactLocation']['uri'],
              loc['region']['startLine'],
              sorted(r.get('partialFingerprints', {}).items()))
PY
}
sarif_keys single.sarif | sort > single.keys
check "... $(wc -l < single.keys) SARIF results to compare with" \
	[ "$(wc -l < single.keys)" -gt 5 ]

# The repository the pipelines run on: the fixture, then a merge
# request of two commits on it (a comment, then a second read in
# cpu_has_hw_af()). The scans run on its base, the lints on its head.
cp -a "$FX" mr
(
	cd mr && git init -q && git add -A &&
	git -c user.name=t -c user.email=t@t commit -qm base &&
	echo '/* a comment */' >> mm/memory.c &&
	git -c user.name=t -c user.email=t@t commit -qam "mm: a comment" &&
	sed -i 's/	mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);/&\n	mmfr1 |= read_cpuid(ID_AA64MMFR1_EL1);/' \
		arch/arm64/include/asm/cpufeature.h &&
	git -c user.name=t -c user.email=t@t commit -qam "arm64: read MMFR1 twice"
)
base=$(git -C mr rev-parse HEAD~2)
head=$(git -C mr rev-parse HEAD)
git clone -q mr base && git -C base checkout -q "$base"

# Where the build job clones trapcheck from (this repository, as
# committed), which commit, and where it installs it; the runner's tool
# directory (the clone, built once) is kept between the pipelines.
TRAPCHECK_REPO="file://$TOP"
TRAPCHECK_REF=$(git -C "$TOP" rev-parse HEAD)
TRAPCHECK_PREFIX="$SCRATCH/prefix"
CI_SIM_TOOLS="$SCRATCH/tools"
export TRAPCHECK_REPO TRAPCHECK_REF TRAPCHECK_PREFIX CI_SIM_TOOLS

# Each template builds trapcheck in one job; the others install its
# artifact; the matrix and the shard count agree.
python3 - "$TOP/contrib/ci/github-shards.yml" "$TOP/contrib/ci/gitlab-shards.yml" <<'PY'
import re, sys, yaml
gh, gl = (yaml.safe_load(open(p)) for p in sys.argv[1:])
builds_in = lambda t: re.search(r'\bmake\b.* install\b', t) is not None
def text(job):
    return '\n'.join(str(s.get('run', '')) for s in job.get('steps', []))
builds = [j for j, v in gh['jobs'].items() if builds_in(text(v))]
assert builds == ['trapcheck'], builds
for j, v in gh['jobs'].items():
    if j != 'trapcheck':
        assert 'trapcheck.tar.gz' in text(v), j
        assert 'trapcheck' in v['needs'] or v['needs'] == 'trapcheck', j
assert gh['jobs']['shard']['strategy']['matrix']['shard'] == \
    list(range(1, int(gh['env']['SHARDS']) + 1))
def flat(v):
    return sum((flat(x) if isinstance(x, list) else [str(x)]
                for x in v or []), [])
jobs = {j: v for j, v in gl.items() if isinstance(v, dict) and 'script' in v
        and not j.startswith('.')}
builds = [j for j, v in jobs.items()
          if any(builds_in(l) for l in flat(v['script']))]
assert builds == ['trapcheck-build'], builds
for j, v in jobs.items():
    if j != 'trapcheck-build':
        assert 'trapcheck-build' in v['needs'], j
        assert any('trapcheck.tar.gz' in l
                   for l in flat(v.get('before_script'))), j
PY
check "both templates: trapcheck built in one job, installed from its artifact in the others; the matrix is SHARDS wide" [ $? -eq 0 ]

# The scan of the base: a push to the default branch.
GITHUB_SHA=$base CI_SIM_CACHE="$SCRATCH/gh-cache" \
	python3 "$TOP/tests/e2e/ci/run.py" github \
	"$TOP/contrib/ci/github-shards.yml" base "$SCRATCH/gh-push" \
	> gh-push.out 2> gh-push.err
rc=$?
check_that "github push: trapcheck, compdb, 4 shards and the join run; the lint is skipped" \
	'[ $rc -eq 0 ] && [ "$(grep -c "^job " gh-push.out)" -eq 8 ] &&
	 grep -q "^job trapcheck exit 0$" gh-push.out &&
	 grep -q "^job compdb exit 0$" gh-push.out &&
	 grep -q "^job lint skipped$" gh-push.out ||
	 { sed "s/^/# /" gh-push.out gh-push.err | tail -n 8; false; }'
check "... the build job installed trapcheck (its artifact)" \
	test -x "$TRAPCHECK_PREFIX/bin/trapcheck"
check_that "github: each shard job exits 0, the join exits 1 (findings)" \
	'[ "$(grep -c "^job shard[1234] exit 0$" gh-push.out)" -eq 4 ] &&
	 grep -q "^job join exit 1$" gh-push.out'
sarif=$(sed -n 's/^artifact join //p' gh-push.out)
sarif_keys "$sarif" | sort > github.keys
check_that "github: the uploaded SARIF has the single run's results" \
	'[ -s "$sarif" ] && cmp -s github.keys single.keys'
check_that "github: the joined database is cached under the commit and trapcheck's version" \
	'grep -qx "cache save trapcheck-db-arm64-$(git -C "$TOP" rev-parse --short=12 HEAD)-$base" gh-push.out &&
	 [ -s "$SCRATCH"/gh-cache/trapcheck-db-*/trapcheck.db ]'

# The pull request: its lint restores the base's database.
GITHUB_EVENT_NAME=pull_request PR_BASE_SHA=$base PR_HEAD_SHA=$head \
CI_SIM_CACHE="$SCRATCH/gh-cache" \
	python3 "$TOP/tests/e2e/ci/run.py" github \
	"$TOP/contrib/ci/github-shards.yml" mr "$SCRATCH/gh-pr" \
	> gh-pr.out 2> gh-pr.err
rc=$?
check_that "github pull request: trapcheck and the lint run (exit 1: a finding), the scan's jobs are skipped" \
	'[ $rc -eq 0 ] && grep -q "^job lint exit 1$" gh-pr.out &&
	 [ "$(grep -c "^job \(compdb\|shard\|join\) skipped$" gh-pr.out)" -eq 3 ] ||
	 { sed "s/^/# /" gh-pr.out gh-pr.err "$SCRATCH"/gh-pr/lint.log | tail -n 8; false; }'
check_that "... it restored the base's database and parsed only what the commits change" \
	'grep -qx "cache restore trapcheck-db-arm64-.*-$base" gh-pr.out &&
	 grep -q "^trapcheck: [1-4] TUs parsed, [0-9]* from the database$" "$SCRATCH"/gh-pr/lint.log'
python3 - "$(sed -n 's/^artifact lint //p' gh-pr.out)" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))['runs'][0]['results']
assert len(res) == 1, res
loc = res[0]['locations'][0]['physicalLocation']
assert loc['artifactLocation']['uri'] == 'arch/arm64/include/asm/cpufeature.h'
assert loc['region']['startLine'] == 135, loc
assert res[0]['ruleId'] == 'trapping-idreg-read'
PY
check "... its SARIF: one result, the added read (cpufeature.h:135), none of the base's" [ $? -eq 0 ]

# GitLab: the default branch's pipeline, then a merge request's.
CI_SIM_CACHE="$SCRATCH/gl-cache" \
	python3 "$TOP/tests/e2e/ci/run.py" gitlab \
	"$TOP/contrib/ci/gitlab-shards.yml" base "$SCRATCH/gl-push" \
	> gitlab.out 2> gitlab.err
rc=$?
check_that "gitlab default branch: build, compdb, 4 shards and the join run; the merge request job is skipped" \
	'[ $rc -eq 0 ] && [ "$(grep -c "^job " gitlab.out)" -eq 8 ] &&
	 grep -q "^job trapcheck-build1 exit 0 passed$" gitlab.out &&
	 grep -q "^job trapcheck-compdb1 exit 0 passed$" gitlab.out &&
	 grep -q "^job trapcheck-mr skipped$" gitlab.out ||
	 { sed "s/^/# /" gitlab.out gitlab.err | tail -n 8; false; }'
check_that "gitlab: each shard passes, the join exits 1 and passes (allow_failure: exit_codes)" \
	'[ "$(grep -c "^job trapcheck-shard[1234] exit 0 passed$" gitlab.out)" -eq 4 ] &&
	 grep -q "^job trapcheck-join1 exit 1 passed$" gitlab.out'
cq=$(sed -n 's/^report codequality trapcheck-join1 //p' gitlab.out)
python3 - "$cq" single.keys <<'PY'
import json, sys
issues = json.load(open(sys.argv[1]))
want = [l for l in open(sys.argv[2]) if l.strip()]
assert len(issues) == len(want), (len(issues), len(want))
for i in issues:
    assert set(i) >= {'description', 'check_name', 'fingerprint',
                      'severity', 'location'}, i
    assert i['location']['path'] and i['location']['lines']['begin'] > 0
    assert i['severity'] in ('info', 'minor', 'major'), i
assert len({i['fingerprint'] for i in issues}) == len(issues)
got = sorted((i['check_name'], i['location']['path'],
              i['location']['lines']['begin']) for i in issues)
exp = sorted((l.split()[0], l.split()[1], int(l.split()[2])) for l in want)
assert got == exp, (got, exp)
PY
check "gitlab: the code quality report has one issue per result of the single run, fingerprints unique" [ $? -eq 0 ]
sarif=$(sed -n 's/^artifact trapcheck-join1 \(.*\.sarif\)$/\1/p' gitlab.out)
sarif_keys "$sarif" | sort > gitlab.keys
check_that "gitlab: the SARIF artifact has the single run's results" \
	'[ -s "$sarif" ] && cmp -s gitlab.keys single.keys'
check_that "gitlab: the joined database is cached under trapcheck's version" \
	'grep -qx "cache save trapcheck-db-arm64-$TRAPCHECK_REF" gitlab.out &&
	 [ -s "$SCRATCH"/gl-cache/trapcheck-db-*/trapcheck.db ]'
CI_PIPELINE_SOURCE=merge_request_event CI_COMMIT_BRANCH= \
CI_MERGE_REQUEST_DIFF_BASE_SHA=$base CI_SIM_CACHE="$SCRATCH/gl-cache" \
	python3 "$TOP/tests/e2e/ci/run.py" gitlab \
	"$TOP/contrib/ci/gitlab-shards.yml" mr "$SCRATCH/gl-mr" \
	> gl-mr.out 2> gl-mr.err
rc=$?
check_that "gitlab merge request: build and the lint run (exit 1, passing), from the cached database; the scan's jobs are skipped" \
	'[ $rc -eq 0 ] && grep -q "^job trapcheck-mr1 exit 1 passed$" gl-mr.out &&
	 [ "$(grep -c "^job trapcheck-\(compdb\|shard\|join\) skipped$" gl-mr.out)" -eq 3 ] &&
	 grep -q "^cache restore trapcheck-db-arm64-" gl-mr.out &&
	 grep -q "^trapcheck: [1-4] TUs parsed, [0-9]* from the database$" "$SCRATCH"/gl-mr/trapcheck-mr1.log ||
	 { sed "s/^/# /" gl-mr.out gl-mr.err "$SCRATCH"/gl-mr/*.log | tail -n 8; false; }'
(cd mr && "$TRAPCHECK" -p . -q --format=sarif -o ../head.sarif)
sarif_keys head.sarif | sort > head.keys
cq=$(sed -n 's/^report codequality trapcheck-mr1 //p' gl-mr.out)
new=$(sed -n 's/^artifact trapcheck-mr1 \(.*gl-trapcheck-new.json\)$/\1/p' gl-mr.out)
python3 - "$cq" head.keys "$new" <<'PY'
import json, sys
# The widget's report: every finding of the head (GitLab compares it
# with the default branch's); the new-only report: the added read.
issues = json.load(open(sys.argv[1]))
got = sorted((i['check_name'], i['location']['path'],
              i['location']['lines']['begin']) for i in issues)
want = sorted((l.split()[0], l.split()[1], int(l.split()[2]))
              for l in open(sys.argv[2]) if l.strip())
assert got == want and len(got) > 5, (got, want)
new = json.load(open(sys.argv[3]))
assert len(new) == 1, new
i = new[0]
assert i['location']['path'] == 'arch/arm64/include/asm/cpufeature.h', i
assert i['location']['lines']['begin'] == 135, i
assert i['check_name'] == 'trapping-idreg-read', i
PY
check "... the widget's report has every finding of the head (a single run's), the new-only one the added read alone" [ $? -eq 0 ]
# GitLab puts a job without rules in no merge request pipeline: the
# merge request job's build must have rules for both.
python3 - "$TOP/contrib/ci/gitlab-shards.yml" > norules.yml <<'PY'
import sys, yaml
y = yaml.safe_load(open(sys.argv[1]))
del y['trapcheck-build']['rules']
print(yaml.safe_dump(y))
PY
CI_PIPELINE_SOURCE=merge_request_event CI_COMMIT_BRANCH= \
CI_MERGE_REQUEST_DIFF_BASE_SHA=$base CI_SIM_CACHE="$SCRATCH/gl-cache" \
	python3 "$TOP/tests/e2e/ci/run.py" gitlab norules.yml mr \
	"$SCRATCH/gl-norules" > norules.out 2> norules.err
rc=$?
check_that "... (the simulator refuses, as GitLab does, a merge request job that needs a job without rules: exit 2)" \
	'[ $rc -eq 2 ] && grep -q "needs .trapcheck-build. job, but" norules.err &&
	 [ ! -s norules.out ]'

# gitlab-mr.yml, the merge request job alone (no scan, no database).
CI_MERGE_REQUEST_DIFF_BASE_SHA=$base CI_SIM_CACHE="$SCRATCH/mr-cache" \
CI_PIPELINE_SOURCE=merge_request_event \
	python3 "$TOP/tests/e2e/ci/run.py" gitlab "$TOP/contrib/ci/gitlab-mr.yml" \
	mr "$SCRATCH/gitlab-mr" > mr.out 2> mr.err
rc=$?
check_that "gitlab-mr: the job runs and exits 1, passing (allow_failure: exit_codes)" \
	'[ $rc -eq 0 ] && grep -q "^job trapcheck-mr1 exit 1 passed$" mr.out ||
	 { sed "s/^/# /" mr.out mr.err "$SCRATCH"/gitlab-mr/*.log | tail -n 8; false; }'
cq=$(sed -n 's/^report codequality trapcheck-mr1 //p' mr.out)
python3 - "$cq" <<'PY'
import json, sys
issues = json.load(open(sys.argv[1]))
assert len(issues) == 1, issues
i = issues[0]
assert i['location']['path'] == 'arch/arm64/include/asm/cpufeature.h', i
assert i['location']['lines']['begin'] == 135, i
assert i['check_name'] == 'trapping-idreg-read', i
PY
check "gitlab-mr: one issue, the added read (cpufeature.h:135), none of the base's" [ $? -eq 0 ]
done_testing
