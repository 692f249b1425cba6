#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ci-run.py KIND YAML FIXTURE WORK: run a CI template of contrib/ci/ as
its CI system would, on the fixture tree: every job (each shard of the
matrix or of "parallel:"), in order, each in a checkout of its own under
WORK, its steps or script lines in order in bash -e with the template's
variables. Artifacts pass from the shard jobs to the join job as the CI
system passes them. The kernel build is the one thing not run (the
fixture has its compile database): GitHub's step named "Build the compile
database", GitLab's lines of the .kernel-build anchor.

The environment gives TRAPCHECK_REPO and TRAPCHECK_PREFIX (where the
install step clones and installs trapcheck) and a shared tool directory
(RUNNER_TEMP, CI_BUILDS_DIR), as a self-hosted runner keeps it.

Prints one line per job: "job NAME exit N" and, for the join job, the
report files it left: "artifact PATH". Exit 2 on a template it cannot
read."""
import fnmatch
import os
import shutil
import subprocess
import sys

import yaml

KIND, PATH, FIXTURE, WORK = sys.argv[1:5]
y = yaml.safe_load(open(PATH))
tools = os.path.join(WORK, 'tools')
os.makedirs(tools, exist_ok=True)


def checkout(where):
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(FIXTURE, where, symlinks=True)


def bash(script, cwd, env, log):
    with open(log, 'a') as out:
        return subprocess.call(['bash', '-e', '-c', script], cwd=cwd,
                               env=env, stdout=out, stderr=out)


def base_env(extra):
    env = dict(os.environ)
    for k, v in extra.items():
        env[k] = str(v)
    # The template's own values, but where trapcheck comes from and goes.
    for k in ('TRAPCHECK_REPO', 'TRAPCHECK_PREFIX'):
        env[k] = os.environ[k]
    return env


def github():
    jobs = y['jobs']
    order = sorted(jobs, key=lambda j: 'needs' in jobs[j])
    store = os.path.join(WORK, 'artifacts')
    os.makedirs(store, exist_ok=True)
    for name in order:
        job = jobs[name]
        shards = job.get('strategy', {}).get('matrix', {}).get('shard', [None])
        for k in shards:
            where = os.path.join(WORK, '%s%s' % (name, k or ''), 'linux')
            gpath = os.path.join(WORK, '%s%s.path' % (name, k or ''))
            open(gpath, 'w').close()
            env = dict(y.get('env', {}))
            for key, v in job.get('env', {}).items():
                env[key] = str(v).replace('${{ matrix.shard }}', str(k))
            env.update(RUNNER_TEMP=tools, GITHUB_PATH=gpath,
                       GITHUB_WORKSPACE=where)
            log = os.path.join(WORK, '%s%s.log' % (name, k or ''))
            rc = 0
            os.makedirs(where, exist_ok=True)
            for step in job['steps']:
                uses = step.get('uses', '')
                if rc and step.get('if') != 'always()':
                    continue
                if uses.startswith('actions/checkout'):
                    checkout(where)
                elif uses.startswith('actions/upload-artifact'):
                    art = step['with']['path'].replace(
                        '${{ matrix.shard }}', str(k))
                    shutil.copy(os.path.join(where, art), store)
                elif uses.startswith('actions/download-artifact'):
                    dest = os.path.join(where, step['with']['path'])
                    os.makedirs(dest, exist_ok=True)
                    for f in os.listdir(store):
                        shutil.copy(os.path.join(store, f), dest)
                elif uses.startswith('github/codeql-action/upload-sarif'):
                    sarif = os.path.join(where, step['with']['sarif_file'])
                    print('artifact', sarif)
                elif uses:
                    print('unknown action', uses)
                    sys.exit(2)
                elif step.get('name') == 'Build the compile database':
                    continue
                else:
                    e = base_env(env)
                    extra = [l for l in open(gpath).read().split('\n') if l]
                    e['PATH'] = ':'.join(extra + [e['PATH']])
                    rc = bash(step['run'], where, e, log)
            print('job %s%s exit %d' % (name, k or '', rc))


def flat(v):
    out = []
    for x in v or []:
        out.extend(flat(x) if isinstance(x, list) else [x])
    return out


def gitlab():
    skip = set(flat(y.get('.kernel-build')))
    jobs = [j for j in y if not j.startswith('.') and isinstance(y[j], dict)
            and 'script' in y[j]]
    order = sorted(jobs, key=lambda j: y['stages'].index(y[j]['stage']))
    store = os.path.join(WORK, 'artifacts')
    os.makedirs(store, exist_ok=True)
    for name in order:
        job = y[name]
        n = int(job.get('parallel', 1))
        for k in range(1, n + 1):
            where = os.path.join(WORK, '%s%d' % (name, k), 'linux')
            checkout(where)
            if job.get('needs'):
                for f in os.listdir(store):
                    shutil.copy(os.path.join(store, f), where)
            env = dict(y.get('variables', {}))
            env.update(CI_BUILDS_DIR=tools, CI_NODE_INDEX=k,
                       CI_NODE_TOTAL=n, CI_PROJECT_DIR=where)
            lines = [l for l in flat(job.get('before_script')) +
                     flat(job['script']) if l not in skip]
            rc = bash('\n'.join(lines), where, base_env(env),
                      os.path.join(WORK, '%s%d.log' % (name, k)))
            allowed = job.get('allow_failure', {})
            ok = rc == 0 or (isinstance(allowed, dict) and
                             rc in allowed.get('exit_codes', []))
            print('job %s%d exit %d %s' % (name, k, rc,
                                           'passed' if ok else 'failed'))
            arts = job.get('artifacts', {})
            for pat in arts.get('paths', []):
                for f in sorted(os.listdir(where)):
                    if fnmatch.fnmatch(f, pat):
                        if job.get('needs'):
                            print('artifact', os.path.join(where, f))
                        else:
                            shutil.copy(os.path.join(where, f), store)
            for kind, f in arts.get('reports', {}).items():
                print('report', kind, os.path.join(where, f))


github() if KIND == 'github' else gitlab()
