# SPDX-License-Identifier: LGPL-2.1-or-later
"""GPU host test runner and report, for build directories that `meson test` may refuse.

  gpu_tests.py run BUILD_DIR LOG.json [--suite gpu] [--no-suite S]... [--benchmark] [--wrapper CMD] [NAME...]
      Runs the tests (or benchmarks) that meson-info/intro-tests.json (intro-benchmarks.json) lists
      for the suite and none of the --no-suite ones, each with its cmd, env, workdir and timeout, ELF programs of the build through
      the wrapper (the bundle's loader: BUNDLE_EXE_WRAPPER), one at a time. Prints Meson-like lines
      and totals and writes LOG.json in meson's testlog.json format. Used where `meson test` cannot
      load the build (configured by another Python, e.g. the Debian 13 root's 3.13 on a 3.12 host:
      "references functions or classes that don't exist"). Exit status 1 when any test is not OK.

  gpu_tests.py report LOG.json LABEL
      The GPU host's verdict on a testlog.json (meson's or run's): a GPU test that SKIPs (exit 77) is a
      failure there (a GPU is required), and so is any FAIL/TIMEOUT/ERROR or an empty log. Prints
      per-program counts of skipped gtest cases and one closing line; exit status 1 on any failure.
"""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def run(argv):
    args, names, suite, bench, wrapper, mult, skip = [], [], "gpu", False, "", 1.0, []
    it = iter(argv)
    for a in it:
        if a == "--suite":
            suite = next(it)
        elif a == "--no-suite":
            skip.append(next(it))
        elif a == "--benchmark":
            bench = True
        elif a == "--wrapper":
            wrapper = next(it)
        elif a == "--timeout-multiplier":
            mult = float(next(it))
        elif len(args) < 2:
            args.append(a)
        else:
            names.append(a)
    if len(args) != 2:
        sys.exit("usage: gpu_tests.py run BUILD_DIR LOG.json [--suite S] [--no-suite S]... [--benchmark] "
                 "[--wrapper CMD] [NAME...]")
    build, log = os.path.abspath(args[0]), args[1]
    intro = os.path.join(build, "meson-info", "intro-benchmarks.json" if bench else "intro-tests.json")
    try:
        with open(intro, encoding="utf-8") as f:
            tests = json.load(f)
    except OSError as e:
        sys.exit(f"gpu_tests: cannot read {intro} ({e.strerror}): is {build} a configured meson build directory?")
    def in_suite(t, name):
        return any(s == name or s.endswith(":" + name) for s in t["suite"])

    tests = [t for t in tests if in_suite(t, suite) and not any(in_suite(t, n) for n in skip)]
    if names:
        unknown = set(names) - {t["name"] for t in tests}
        if unknown:
            sys.exit(f"gpu_tests: no test named {' '.join(sorted(unknown))} in suite {suite} of {intro}")
        tests = [t for t in tests if t["name"] in names]
    wrap = shlex.split(wrapper)
    counts = {"OK": 0, "FAIL": 0, "SKIP": 0, "TIMEOUT": 0}
    with open(log, "w", encoding="utf-8") as out:
        for i, t in enumerate(tests, 1):
            env = dict(os.environ)
            env.update(t.get("env") or {})
            # A test's own library path goes first, before the bundle's (which it would replace).
            if t.get("env", {}).get("LD_LIBRARY_PATH") and os.environ.get("LD_LIBRARY_PATH"):
                env["LD_LIBRARY_PATH"] = t["env"]["LD_LIBRARY_PATH"] + os.pathsep + os.environ["LD_LIBRARY_PATH"]
            env.setdefault("MESON_TEST_ITERATION", "1")
            cmd = list(t["cmd"])
            if wrap and is_elf(cmd[0]) and os.path.abspath(cmd[0]).startswith(build + os.sep):
                w = list(wrap)
                # The loader's --library-path replaces LD_LIBRARY_PATH: keep the test's own after it.
                if "--library-path" in w and t.get("env", {}).get("LD_LIBRARY_PATH"):
                    k = w.index("--library-path") + 1
                    w[k] += ":" + t["env"]["LD_LIBRARY_PATH"]
                cmd = w + cmd
            timeout = t.get("timeout") or 0
            start = time.monotonic()
            p = subprocess.Popen(cmd, env=env, cwd=t.get("workdir") or build, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, start_new_session=True)
            try:
                stdout, _ = p.communicate(timeout=timeout * mult if timeout > 0 else None)
                rc = p.returncode
                result = "OK" if rc == 0 else "SKIP" if rc == 77 else "FAIL"
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                stdout, _ = p.communicate()
                rc, result = -9, "TIMEOUT"
            duration = time.monotonic() - start
            text = stdout.decode("utf-8", "replace")
            counts[result] += 1
            sys.stdout.write(text)
            print(f"{i:3}/{len(tests)} {t['name']:<40} {result:<8} {duration:7.2f}s"
                  + (f"   exit status {rc}" if result == "FAIL" else ""), flush=True)
            out.write(json.dumps({"name": t["name"], "result": result, "returncode": rc,
                                  "duration": duration, "command": cmd, "stdout": text}) + "\n")
    print(f"\nOk:                 {counts['OK']}\nExpected Fail:      0\nFail:               {counts['FAIL']}\n"
          f"Unexpected Pass:    0\nSkipped:            {counts['SKIP']}\nTimeout:            {counts['TIMEOUT']}")
    return 0 if counts["OK"] == len(tests) else 1


def report(argv):
    if len(argv) != 2:
        sys.exit("usage: gpu_tests.py report LOG.json LABEL")
    path, label = argv
    try:
        with open(path, encoding="utf-8") as f:
            entries = [json.loads(line) for line in f if line.strip()]
    except OSError as e:
        print(f"{label}: FAILED: no test log {path} ({e.strerror}); the tests did not run")
        return 1
    failed, skipped = [], []
    cases_skipped, programs = 0, 0
    for e in entries:
        e["name"] = e["name"].split(" / ")[-1]  # meson's "project:suite / name"
        out = e.get("stdout") or ""
        m = re.findall(r"^\[  SKIPPED \] (\d+) tests?, listed below", out, re.M)
        ran = re.findall(r"^\[==========\] (\d+) tests? from \d+ test suites? ran", out, re.M)
        if m or e["result"] == "SKIP":
            cases = sum(int(x) for x in m)
            cases_skipped, programs = cases_skipped + cases, programs + 1
            print(f"{label}: {e['name']}: {cases} skipped gtest case(s)"
                  + (f" of {sum(int(x) for x in ran)}" if ran else "")
                  + (" (the whole program skipped: exit 77)" if e["result"] == "SKIP" else ""))
            for case in re.findall(r"^\[  SKIPPED \] (\S+)$", out, re.M):
                print(f"{label}:     {case}")
        if e["result"] == "SKIP":
            skipped.append(e["name"])
        elif e["result"] not in ("OK", "EXPECTEDFAIL"):
            failed.append(f"{e['name']} ({e['result']})")
    print(f"{label}: {cases_skipped} gtest case(s) skipped in {programs} of {len(entries)} program(s)"
          + (" (each listed above)" if programs else ""))
    ok = sum(e["result"] in ("OK", "EXPECTEDFAIL") for e in entries)
    print(f"{label}: {ok} passed, {len(failed)} failed, {len(skipped)} skipped")
    if not entries:
        print(f"{label}: FAILED: the log lists no tests (wrong suite or build directory?)")
        return 1
    if failed:
        print(f"{label}: FAILED: {', '.join(failed)}")
    if skipped:
        print(f"{label}: FAILED: skipped on the GPU host, where a GPU is required: {', '.join(skipped)}")
    return 1 if failed or skipped else 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("run", "report"):
        sys.exit(__doc__)
    sys.exit((run if sys.argv[1] == "run" else report)(sys.argv[2:]))
