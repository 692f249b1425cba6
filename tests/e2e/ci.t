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
sed 's/parallel: 3/parallel: three/' "$TOP/contrib/ci/gitlab-shards.yml" \
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

# Where the install steps clone trapcheck from (this repository, as
# committed) and install it to; the clone and its build are shared by
# the jobs (a runner's tool directory).
TRAPCHECK_REPO="file://$TOP"
TRAPCHECK_PREFIX="$SCRATCH/prefix"
export TRAPCHECK_REPO TRAPCHECK_PREFIX
for kind in github gitlab; do
	python3 "$TOP/tests/e2e/ci/run.py" $kind \
		"$TOP/contrib/ci/$kind-shards.yml" "$FX" "$SCRATCH/$kind" \
		> $kind.out 2> $kind.err
	rc=$?
	check_that "$kind: the template runs (3 shard jobs and a join)" \
		'[ $rc -eq 0 ] && [ "$(grep -c "^job " $kind.out)" -eq 4 ] ||
		 { sed "s/^/# /" $kind.out $kind.err | tail -n 8; false; }'
	check "$kind: the install step installed trapcheck" \
		test -x "$TRAPCHECK_PREFIX/bin/trapcheck"
done
check_that "github: each shard job exits 0, the join exits 1 (findings)" \
	'[ "$(grep -c "^job shard[123] exit 0$" github.out)" -eq 3 ] &&
	 grep -q "^job join exit 1$" github.out'
sarif=$(sed -n 's/^artifact //p' github.out)
sarif_keys "$sarif" | sort > github.keys
check_that "github: the uploaded SARIF has the single run's results" \
	'[ -s "$sarif" ] && cmp -s github.keys single.keys'
check_that "gitlab: each shard passes, the join exits 1 and passes (allow_failure: exit_codes)" \
	'[ "$(grep -c "^job trapcheck-shard[123] exit 0 passed$" gitlab.out)" -eq 3 ] &&
	 grep -q "^job trapcheck-join1 exit 1 passed$" gitlab.out'
cq=$(sed -n 's/^report codequality //p' gitlab.out)
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
sarif=$(sed -n 's/^artifact \(.*\.sarif\)$/\1/p' gitlab.out)
sarif_keys "$sarif" | sort > gitlab.keys
check_that "gitlab: the SARIF artifact has the single run's results" \
	'[ -s "$sarif" ] && cmp -s gitlab.keys single.keys'

# The merge request job: a repository of the fixture, a merge request of
# two commits on it (a comment, then a second read in cpu_has_hw_af()).
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
CI_MERGE_REQUEST_DIFF_BASE_SHA=$(git -C mr rev-parse HEAD~2) \
CI_PIPELINE_SOURCE=merge_request_event \
	python3 "$TOP/tests/e2e/ci/run.py" gitlab "$TOP/contrib/ci/gitlab-mr.yml" \
	mr "$SCRATCH/gitlab-mr" > mr.out 2> mr.err
rc=$?
check_that "gitlab-mr: the job runs and exits 1, passing (allow_failure: exit_codes)" \
	'[ $rc -eq 0 ] && grep -q "^job trapcheck-mr1 exit 1 passed$" mr.out ||
	 { sed "s/^/# /" mr.out mr.err "$SCRATCH"/gitlab-mr/*.log | tail -n 8; false; }'
cq=$(sed -n 's/^report codequality //p' mr.out)
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
