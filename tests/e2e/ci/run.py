#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""run.py KIND YAML FIXTURE WORK: run a CI template of contrib/ci/ as its
CI system would, on the fixture tree (KIND: github or gitlab): the jobs
the event selects (GitHub's job "if:", GitLab's "rules:"), in the order
of their "needs", each instance of a matrix or of "parallel:" in a
checkout of its own under WORK (FIXTURE copied, with its .git), its steps
or script lines in order in bash -e with the template's variables.
Artifacts pass from job to job as the CI system passes them (GitHub: by
artifact name; GitLab: from the jobs a job needs), job outputs through
GITHUB_OUTPUT, and the cache (actions/cache/save and restore with
restore-keys; GitLab's cache: with its policy) lives in CACHE, kept
between runs. The kernel build is the one thing not run (the fixture has
its compile database): GitHub's steps named "Build the compile
database", GitLab's lines of the .kernel-build anchor.

The environment gives TRAPCHECK_REPO, TRAPCHECK_REF and
TRAPCHECK_PREFIX (where the build step clones trapcheck, which commit,
where it installs it), CI_SIM_CACHE (the cache's directory, default
WORK/cache), CI_SIM_TOOLS (the runner's tool directory, default
WORK/tools) and the event: GitHub's
GITHUB_EVENT_NAME (push, the default, or pull_request with
PR_BASE_SHA and PR_HEAD_SHA) and GITHUB_SHA; GitLab's
CI_PIPELINE_SOURCE (push, the default, or merge_request_event with
CI_MERGE_REQUEST_DIFF_BASE_SHA), CI_COMMIT_BRANCH and
CI_DEFAULT_BRANCH (both master unless given; an empty CI_COMMIT_BRANCH
is a merge request's pipeline). The tool directory (RUNNER_TEMP,
CI_BUILDS_DIR) is kept, as a self-hosted runner keeps it.

Prints one line per job: "job NAME exit N" (GitLab: "passed" or
"failed" after it) or "job NAME skipped"; "artifact JOB PATH" for each
report file a job leaves (GitHub: the SARIF uploaded; GitLab: its
artifacts' paths), "report KIND JOB PATH" for GitLab's reports, and
"cache save KEY" / "cache restore KEY" (or "cache miss KEY"). Exit 2 on
a template it cannot read or an expression it does not know."""
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import time

import yaml

KIND, PATH, FIXTURE, WORK = sys.argv[1:5]
y = yaml.safe_load(open(PATH))
tools = os.environ.get('CI_SIM_TOOLS', os.path.join(WORK, 'tools'))
os.makedirs(tools, exist_ok=True)
CACHE = os.environ.get('CI_SIM_CACHE', os.path.join(WORK, 'cache'))
os.makedirs(CACHE, exist_ok=True)
STORE = os.path.join(WORK, 'artifacts')
os.makedirs(STORE, exist_ok=True)


def fail(msg):
    print('run.py:', msg, file=sys.stderr)
    sys.exit(2)


def checkout(where, ref=None):
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(FIXTURE, where, symlinks=True)
    if ref:
        subprocess.check_call(['git', '-C', where, 'checkout', '-q', ref])


def bash(script, cwd, env, log):
    with open(log, 'a') as out:
        return subprocess.call(['bash', '-e', '-c', script], cwd=cwd,
                               env=env, stdout=out, stderr=out)


def base_env(extra):
    env = dict(os.environ)
    for k, v in extra.items():
        env[k] = str(v)
    # The template's own values, but where trapcheck comes from and goes.
    for k in ('TRAPCHECK_REPO', 'TRAPCHECK_PREFIX', 'TRAPCHECK_REF'):
        if k in os.environ:
            env[k] = os.environ[k]
    return env


def copy_into(src, dest):
    os.makedirs(dest, exist_ok=True)
    for f in os.listdir(src):
        shutil.copy(os.path.join(src, f), dest)


def cache_save(key, where, paths):
    d = os.path.join(CACHE, key)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for p in paths:
        shutil.copy(os.path.join(where, p), d)
    # The newest first for restore-keys, as the CI systems take it.
    os.utime(d, (time.time(), time.time()))
    print('cache save', key)


def cache_restore(key, prefixes, where):
    hit = key if os.path.isdir(os.path.join(CACHE, key)) else None
    for p in prefixes if not hit else []:
        cands = [k for k in os.listdir(CACHE) if k.startswith(p)]
        if cands:
            hit = max(cands, key=lambda k: os.path.getmtime(
                os.path.join(CACHE, k)))
            break
    if not hit:
        print('cache miss', key)
        return
    copy_into(os.path.join(CACHE, hit), where)
    print('cache restore', hit)


# GitHub Actions.

def gh_value(expr, ctx):
    """One ${{ }} expression: a context path, a literal, ==, always()."""
    expr = expr.strip()
    m = re.fullmatch(r"(.+?)\s*(==|!=)\s*(.+)", expr)
    if m:
        a, b = gh_value(m.group(1), ctx), gh_value(m.group(3), ctx)
        return (a == b) == (m.group(2) == '==')
    if expr == 'always()':
        return True
    m = re.fullmatch(r"'([^']*)'", expr)
    if m:
        return m.group(1)
    v = ctx
    for part in expr.split('.'):
        if not isinstance(v, dict) or part not in v:
            fail('%s: an expression it does not know: %s' % (PATH, expr))
        v = v[part]
    return v


def gh_subst(s, ctx):
    return re.sub(r'\$\{\{(.*?)\}\}', lambda m: str(gh_value(m.group(1),
                                                             ctx)), str(s))


def gh_order(jobs):
    order, seen = [], set()

    def visit(j):
        if j in seen:
            return
        seen.add(j)
        needs = jobs[j].get('needs', [])
        for n in [needs] if isinstance(needs, str) else needs:
            visit(n)
        order.append(j)
    for j in jobs:
        visit(j)
    return order


def github():
    event = os.environ.get('GITHUB_EVENT_NAME', 'push')
    ctx = {
        'github': {
            'event_name': event,
            'sha': os.environ.get('GITHUB_SHA', '0' * 40),
            'event': {'pull_request': {
                'base': {'sha': os.environ.get('PR_BASE_SHA', '')},
                'head': {'sha': os.environ.get('PR_HEAD_SHA', '')}}},
        },
        'env': dict((k, str(v)) for k, v in y.get('env', {}).items()),
        'needs': {},
    }
    jobs = y['jobs']
    result = {}
    for name in gh_order(jobs):
        job = jobs[name]
        needs = job.get('needs', [])
        needs = [needs] if isinstance(needs, str) else needs
        jctx = dict(ctx, needs={n: ctx['needs'][n] for n in needs
                                if n in ctx['needs']})
        if any(result.get(n) != 0 for n in needs) or \
           ('if' in job and not gh_value(job['if'], jctx)):
            result[name] = None
            print('job %s skipped' % name)
            continue
        shards = job.get('strategy', {}).get('matrix', {}).get('shard',
                                                               [None])
        rc_all = 0
        outputs = {}
        for k in shards:
            kctx = dict(jctx, matrix={'shard': k}, steps={})
            inst = '%s%s' % (name, k or '')
            where = os.path.join(WORK, inst, 'linux')
            gpath = os.path.join(WORK, inst + '.path')
            open(gpath, 'w').close()
            env = dict(ctx['env'])
            for key, v in job.get('env', {}).items():
                env[key] = gh_subst(v, kctx)
            env.update(RUNNER_TEMP=tools, GITHUB_PATH=gpath,
                       GITHUB_WORKSPACE=where)
            log = os.path.join(WORK, inst + '.log')
            rc = 0
            os.makedirs(where, exist_ok=True)
            for step in job['steps']:
                uses = step.get('uses', '')
                w = {key: gh_subst(v, kctx)
                     for key, v in step.get('with', {}).items()}
                if rc and step.get('if') != 'always()':
                    continue
                if uses.startswith('actions/checkout'):
                    checkout(where, w.get('ref'))
                elif uses.startswith('actions/upload-artifact'):
                    d = os.path.join(STORE, w['name'])
                    os.makedirs(d, exist_ok=True)
                    shutil.copy(os.path.join(where, w['path']), d)
                elif uses.startswith('actions/download-artifact'):
                    dest = os.path.join(where, w.get('path', '.'))
                    names = [w['name']] if 'name' in w else sorted(
                        n for n in os.listdir(STORE)
                        if fnmatch.fnmatch(n, w['pattern']))
                    for n in names:
                        if not os.path.isdir(os.path.join(STORE, n)):
                            print('no artifact', n, file=sys.stderr)
                            rc = 1
                            break
                        copy_into(os.path.join(STORE, n), dest if
                                  w.get('merge-multiple') or 'name' in w
                                  else os.path.join(dest, n))
                elif uses.startswith('actions/cache/save'):
                    cache_save(w['key'], where, [w['path']])
                elif uses.startswith('actions/cache/restore'):
                    cache_restore(w['key'], [p for p in w.get(
                        'restore-keys', '').split('\n') if p], where)
                elif uses.startswith('github/codeql-action/upload-sarif'):
                    print('artifact', inst,
                          os.path.join(where, w['sarif_file']))
                elif uses:
                    fail('an action it does not know: ' + uses)
                elif step.get('name') == 'Build the compile database':
                    continue
                else:
                    e = base_env(env)
                    extra = [l for l in open(gpath).read().split('\n') if l]
                    e['PATH'] = ':'.join(extra + [e['PATH']])
                    opath = os.path.join(WORK, inst + '.output')
                    open(opath, 'w').close()
                    e['GITHUB_OUTPUT'] = opath
                    rc = bash(step['run'], where, e, log)
                    if 'id' in step:
                        kctx['steps'][step['id']] = {'outputs': dict(
                            l.split('=', 1) for l in
                            open(opath).read().split('\n') if '=' in l)}
            for key, v in job.get('outputs', {}).items():
                outputs[key] = gh_subst(v, kctx)
            print('job %s exit %d' % (inst, rc))
            rc_all = rc_all or rc
        result[name] = rc_all
        ctx['needs'][name] = {'outputs': outputs}


# GitLab CI.

def flat(v):
    out = []
    for x in v or []:
        out.extend(flat(x) if isinstance(x, list) else [x])
    return out


def gl_expand(s, env):
    return re.sub(r'\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?',
                  lambda m: env.get(m.group(1), ''), str(s))


def gl_rule(cond, env):
    """A rules: if: of the forms $A == $B, $A == "x", $A != ..."""
    m = re.fullmatch(r'\s*(\S+)\s*(==|!=)\s*(\S+)\s*', cond)
    if not m:
        fail('%s: a rule it does not know: %s' % (PATH, cond))

    def val(t):
        return t[1:-1] if t[:1] in '"\'' else gl_expand(t, env)
    return (val(m.group(1)) == val(m.group(3))) == (m.group(2) == '==')


def gitlab():
    skip = set(flat(y.get('.kernel-build')))
    pipe = {
        'CI_PIPELINE_SOURCE': os.environ.get('CI_PIPELINE_SOURCE', 'push'),
        'CI_COMMIT_BRANCH': os.environ.get('CI_COMMIT_BRANCH', 'master'),
        'CI_DEFAULT_BRANCH': os.environ.get('CI_DEFAULT_BRANCH', 'master'),
    }
    jobs = [j for j in y if not j.startswith('.') and isinstance(y[j], dict)
            and 'script' in y[j]]
    order = sorted(jobs, key=lambda j: y['stages'].index(y[j]['stage']))

    def job_env(job):
        env = dict((k, str(v)) for k, v in y.get('variables', {}).items())
        env.update((k, str(v)) for k, v in job.get('variables', {}).items())
        env.update(pipe)
        return base_env(env)

    # The pipeline as GitLab creates it: a job with rules when one
    # matches; one without, in branch and tag pipelines only (not a
    # merge request's). A job that needs a job not in it is an error.
    def included(job):
        if 'rules' not in job:
            return pipe['CI_PIPELINE_SOURCE'] != 'merge_request_event'
        return any(gl_rule(r['if'], job_env(job)) for r in job['rules'])
    inside = {j for j in order if included(y[j])}
    for j in inside:
        for n in y[j].get('needs') or []:
            if n not in inside:
                fail("%s: '%s' job needs '%s' job, but '%s' is not in "
                     "any previous stage" % (PATH, j, n, n))
    ran = {}
    for name in order:
        job = y[name]
        env = job_env(job)
        if name not in inside:
            print('job %s skipped' % name)
            continue
        needs = job.get('needs')
        if needs is not None and any(not ran.get(n) for n in needs):
            print('job %s skipped' % name)
            continue
        n = int(job.get('parallel', 1))
        cache = job.get('cache')
        ok_all = True
        for k in range(1, n + 1):
            inst = '%s%d' % (name, k)
            where = os.path.join(WORK, inst, 'linux')
            checkout(where)
            # Artifacts of the jobs it needs (all earlier ones without).
            for dep in needs if needs is not None else list(ran):
                d = os.path.join(STORE, dep)
                if os.path.isdir(d):
                    copy_into(d, where)
            kenv = dict(env, CI_BUILDS_DIR=tools, CI_NODE_INDEX=str(k),
                        CI_NODE_TOTAL=str(n), CI_PROJECT_DIR=where)
            key = gl_expand(cache['key'], kenv) if cache else None
            if cache and cache.get('policy', 'pull-push') != 'push':
                cache_restore(key, [], where)
            lines = [l for l in flat(job.get('before_script')) +
                     flat(job['script']) if l not in skip]
            rc = bash('\n'.join(lines), where, base_env(kenv),
                      os.path.join(WORK, inst + '.log'))
            allowed = job.get('allow_failure', {})
            ok = rc == 0 or (isinstance(allowed, dict) and
                             rc in allowed.get('exit_codes', []))
            ok_all = ok_all and ok
            print('job %s exit %d %s' % (inst, rc,
                                         'passed' if ok else 'failed'))
            if cache and cache.get('policy', 'pull-push') != 'pull' and \
               (ok or cache.get('when') == 'always'):
                cache_save(key, where, [p for p in cache['paths']
                                        if os.path.exists(
                                            os.path.join(where, p))])
            arts = job.get('artifacts', {})
            if not ok and arts.get('when') != 'always':
                continue
            d = os.path.join(STORE, name)
            os.makedirs(d, exist_ok=True)
            for pat in arts.get('paths', []):
                for f in sorted(os.listdir(where)):
                    if fnmatch.fnmatch(f, pat):
                        shutil.copy(os.path.join(where, f), d)
                        print('artifact', inst, os.path.join(where, f))
            for kind, f in arts.get('reports', {}).items():
                print('report', kind, inst, os.path.join(where, f))
        ran[name] = ok_all


github() if KIND == 'github' else gitlab()
