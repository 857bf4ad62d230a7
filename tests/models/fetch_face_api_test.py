#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""fetch-face-api.sh's bad inputs, each a one-line error naming the cause and the fix, exit 1:
an altered archive, no node/npm on PATH, a lock file pinning other archives, no registry. Nothing
here needs the network."""
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fetch-face-api.sh')


def run(dest, env_extra, path=None, script=SCRIPT):
    env = dict(os.environ, npm_config_fetch_retries='0', **env_extra)
    if path is not None:
        env['PATH'] = path
    return subprocess.run(['/bin/bash', script, dest], capture_output=True, text=True, env=env, timeout=120)


def path_without_node(tmp):
    """A PATH with every command of /usr/bin and /bin but node and npm."""
    bindir = os.path.join(tmp, 'bin')
    os.makedirs(bindir)
    for d in ['/usr/bin', '/bin']:
        for name in os.listdir(d):
            if name not in ('node', 'npm', 'nodejs', 'npx') and not os.path.exists(os.path.join(bindir, name)):
                os.symlink(os.path.join(d, name), os.path.join(bindir, name))
    return bindir


def altered_archive(tmp):
    """An npm-shaped archive of face-api's name whose contents are not the published ones."""
    src = os.path.join(tmp, 'package')
    os.makedirs(src)
    with open(os.path.join(src, 'package.json'), 'w', encoding='utf-8') as f:
        f.write('{"name": "@vladmandic/face-api", "version": "1.7.15"}\n')
    out = os.path.join(tmp, 'vladmandic-face-api-1.7.15.tgz')
    with tarfile.open(out, 'w:gz') as t:
        t.add(src, 'package')
    return out


def tampered_lock(tmp):
    """A copy of the script beside a lock file that pins another tfjs archive."""
    copy = os.path.join(tmp, 'copy')
    shutil.copytree(os.path.dirname(SCRIPT), copy, ignore=shutil.ignore_patterns('*.py', '*.js', 'meson.build'))
    lock = os.path.join(copy, 'face-api', 'package-lock.json')
    with open(lock, encoding='utf-8') as f:
        text = f.read()
    with open(lock, 'w', encoding='utf-8') as f:
        f.write(text.replace('sha512-0TrIrXs6', 'sha512-1TrIrXs6', 1))
    return os.path.join(copy, os.path.basename(SCRIPT))


def expect(name, r, *words):
    lines = r.stderr.strip().splitlines()
    ok = r.returncode == 1 and len(lines) == 1 and all(w in lines[0] for w in words)
    print(('ok  ' if ok else 'FAIL') + f' {name}: rc {r.returncode}: {r.stderr.strip()}')
    return 0 if ok else 1


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        bad = altered_archive(tmp)
        failures += expect('altered archive', run(os.path.join(tmp, 'd1'), {'FACE_API_TARBALL': bad}),
                           'checksum mismatch', 'fetch again')
        failures += expect('no node', run(os.path.join(tmp, 'd2'), {}, path_without_node(tmp)),
                           'node not found', 'install')
        failures += expect('tampered lock file', run(os.path.join(tmp, 'd4'), {}, script=tampered_lock(tmp)),
                           'pins other archives', 'restore')
        # A registry nobody answers at, and an empty npm cache: the download itself fails. (Where
        # there is no npm, as in the Debian 13 root, that is what the one line must say.)
        r = run(os.path.join(tmp, 'd3'), {'npm_config_registry': 'http://127.0.0.1:9/',
                                          'npm_config_cache': os.path.join(tmp, 'npm')})
        if shutil.which('npm') and shutil.which('node'):
            failures += expect('no network', r, 'could not download', 'ECONNREFUSED', 'fix the connection')
        else:
            failures += expect('no network, no npm', r, 'not found', 'install')
        for d in ['d1', 'd2', 'd3', 'd4']:
            if os.path.exists(os.path.join(tmp, d, 'node_modules')):
                print(f'FAIL: {d}: a failed fetch left node_modules behind')
                failures += 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
