#!/usr/bin/env python3
"""The flake hunt: Go tests repeated while stress-ng keeps the CPUs busy.

    python3 docker/test/flakehunt.py [--count N] [--changed-count N] [--budget S] [--base REV]

A test that fails 1 run in 5 passes a single run 80 % of the time; repeated 10 times it
passes all of them 11 % of the time (0.8^10), so the hunt catches it 89 % of the time, and
every CI run before it lands tries again. So, under `stress-ng --cpu 2`:

  1. time: every test of the packages that measure time (TIME_PACKAGES, and the CLI's tests
     that start a simulator or a load) runs --count times (default 10), --jobs go test
     processes side by side (default 5), the longest tests (ALONE) each in a process of its own;
  2. changed: every test function with a line changed since --base (default: the commit in
     .ci/base, the last one CI verified) runs --changed-count times (default 10), except those
     the time phase has just repeated (a second ten runs of the capacity search cost 10 min);
  3. rest: every other package, -count=1 -shuffle=on, round after round, while a round as
     long as the last still fits in --budget seconds (default 300; at least one round).

A failing run prints `go test`'s output; the hunt ends with one line per phase and exits 1 if
any run failed. --race adds the race detector to the first two phases (every package runs
once with it in make test). The seed of each shuffled round is printed by `go test` (-shuffle=on), so a
failure can be replayed with -shuffle=SEED.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE = "github.com/llmperf-course/course"
# The packages whose tests start servers, sleep, or measure durations (loadgen, the simulator,
# the capacity search, the CLI that drives them, and the notebooks' experiments).
TIME_PACKAGES = ["./coursekit/loadgen/", "./coursekit/sim/", "./coursekit/capacity/", "./coursekit/lab/"]
# The CLI's tests that start a simulator or a load (bench, sim, capacity, goodput, run state); its
# other tests (help, grading, import, card) go to the rest phase.
CLI = "./coursekit/cmd/coursekit/"
CLI_TIME = "^Test(Bench|Sim|Capacity|Goodput|RunState|ImportDatasetCLI|CardMemory)"
# The time phase's longest tests (each 10 to 20 s a run), each in a go test process of its own
# beside the rest of its package, so that ten runs of them do not follow one another. They are
# not t.Parallel within their package: a search's simulator steps on timers, and in one process
# a neighbouring search's hundreds of request goroutines wait for the same two Ps (GOMAXPROCS):
# TestSearchFindsCapacityBelowSaturation beside TestSearchAnswerNotAboveSaturation missed its
# 100 ms SLO at 10 req/s in 3 of 10 runs under stress-ng (load average 25), never alone. Each
# name must run a test, or the hunt fails.
ALONE = {
    "./coursekit/capacity/": ["TestSearchFindsCapacityBelowSaturation", "TestSearchAnswerNotAboveSaturation",
                              "TestStepAboveSaturationFailsForOverload"],
    "./coursekit/lab/": ["TestCapacityLabSearchStaysBelowSaturation", "TestCapacitySearchInTheLab"],
}
TEST_FUNC = re.compile(r"^func (Test\w+)\(t \*testing\.T\)", re.M)


def go(args, label, must_run=False):
    """Runs `go test ARGS`; prints its output only when it fails. Returns (ok, seconds).

    must_run: a run that finds no test to run (a -run pattern naming a test that is gone) fails."""
    start = time.monotonic()
    # -timeout is per test binary across all its -count runs: ten runs of a package whose one
    # run takes a minute need more than go test's default 10 minutes.
    p = subprocess.run(["go", "test", "-timeout", "60m", *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    secs = time.monotonic() - start
    if must_run and p.returncode == 0 and "no tests to run" in p.stdout:
        p.returncode = 1
        p.stdout += f"flakehunt: {label}: no test ran: the test named in ALONE is gone (update ALONE in {__file__})\n"
    status = "ok" if p.returncode == 0 else "FAILED"
    print(f"flakehunt: {label}: {status} in {secs:.0f} s; load average {load()}", flush=True)
    if p.returncode != 0:
        print(p.stdout, flush=True)
    else:  # each package's line: where the time goes
        print("".join(f"    {l}\n" for l in p.stdout.splitlines() if l.startswith("ok ")), end="", flush=True)
    return p.returncode == 0, secs


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def changed_tests(base):
    """Test functions whose lines changed since base (committed or not), by package dir.

    A function counts when a line of it was added or changed (git diff -U0 against base) or
    when its file is new; changes to helpers alone do not count."""
    if not base:
        return {}
    ok = subprocess.run(["git", "merge-base", "--is-ancestor", base, "HEAD"], cwd=REPO,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if not ok:
        print(f"flakehunt: base {base} is not an ancestor of HEAD; no changed tests to repeat", flush=True)
        return {}
    diff = subprocess.run(["git", "diff", "-U0", "--diff-filter=AMR", base, "--", "*_test.go"],
                          cwd=REPO, capture_output=True, text=True, check=True).stdout
    changed = {}  # file -> set of changed line numbers (new side); None: the whole file
    current = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            current = line[6:] if line.startswith("+++ b/") else None
            if current:
                changed.setdefault(current, set())
        elif line.startswith("@@") and current:
            m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            first, n = int(m.group(1)), int(m.group(2) or 1)
            changed[current].update(range(first, first + n))
    untracked = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "--", "*_test.go"],
                               cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    for name in untracked:
        changed[name] = None
    byDir = {}
    for name, lines in sorted(changed.items()):
        path = os.path.join(REPO, name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            src = f.read()
        if re.search(r"^//go:build ", src, re.M):
            continue  # tests behind a build tag (engine, warehouse) run in their own targets
        funcs = set()
        rows = src.split("\n")
        for i, row in enumerate(rows, 1):
            m = TEST_FUNC.match(row)
            if not m:
                continue
            end = next((j for j in range(i, len(rows)) if rows[j] == "}"), len(rows)) + 1
            if lines is None or any(i <= k <= end for k in lines):
                funcs.add(m.group(1))
        if funcs:
            byDir.setdefault("./" + os.path.dirname(name) + "/", set()).update(funcs)
    return byDir


def time_jobs(count, race):
    """The time phase's go test runs: each ALONE test by itself, the rest of its package, the
    other packages, the CLI's load tests. Returns [(args, label, must_run)]."""
    alone, rest = [], []
    for pkg in TIME_PACKAGES:
        names = ALONE.get(pkg, [])
        alone += [([*race, f"-count={count}", "-run", f"^{n}$", pkg], f"{pkg} {n}", True) for n in names]
        skip = ["-skip", "^(" + "|".join(names) + ")$"] if names else []
        rest.append(([*race, f"-count={count}", *skip, pkg], pkg + (" (the rest)" if names else ""), False))
    cli = ([*race, f"-count={count}", "-run", CLI_TIME, CLI], "the CLI's load tests", False)
    # Longest first, so that no long run starts last: the CLI's load tests and loadgen (about
    # 30 s a run each), the ALONE tests, then the rest.
    first = [j for j in rest if j[1] == "./coursekit/loadgen/"]
    return [cli, *first, *alone, *[j for j in rest if j not in first]]


def without_time_tests(tests):
    """Drops the changed tests the time phase repeats (its packages, the CLI's CLI_TIME tests);
    returns what is left and how many were dropped."""
    timed = {t for t in TIME_PACKAGES}
    cli = re.compile(CLI_TIME)
    left, dropped = {}, 0
    for d, funcs in tests.items():
        if d in timed:
            dropped += len(funcs)
            continue
        keep = {f for f in funcs if not (d == CLI and cli.match(f))}
        dropped += len(funcs) - len(keep)
        if keep:
            left[d] = keep
    return left, dropped


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=10, help="runs of each time-measuring package (default 10)")
    p.add_argument("--jobs", type=int, default=5, help="go test processes side by side in the time phase (default 5)")
    p.add_argument("--changed-count", type=int, default=10, help="runs of each changed test (default 10)")
    p.add_argument("--budget", type=float, default=300, help="seconds for repeating the other packages (default 300)")
    p.add_argument("--base", default=None, help="revision the changed tests are found against (default: .ci/base)")
    p.add_argument("--phases", default="time,changed,rest", help="which phases to run (default all)")
    p.add_argument("--race", action="store_true", help="with the race detector (every package runs once with it in make test)")
    a = p.parse_args()
    base = a.base
    if base is None:
        try:
            with open(os.path.join(REPO, ".ci", "base")) as f:
                base = f.read().split()[0]
        except (OSError, IndexError):
            base = ""
    phases = set(a.phases.split(","))
    failed, lines = [], []

    if "time" in phases:
        # --jobs go test processes side by side: most of the tests' time is waiting on servers
        # and clocks (the capacity package's tests use about 5 s of CPU in a minute of a run).
        race = ["-race"] if a.race else []
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            runs = [pool.submit(go, args, f"{label} {' '.join(race)} -count={a.count}", must_run) for args, label, must_run in time_jobs(a.count, race)]
            ok = all(r.result()[0] for r in runs)
        lines.append(f"time     {time.monotonic() - start:6.0f} s  {' '.join(TIME_PACKAGES)} and the CLI's {CLI_TIME} {' '.join(race)} x{a.count},"
                     f" {a.jobs} go test processes at a time")
        if not ok:
            failed.append("time")

    if "changed" in phases:
        tests = changed_tests(base)
        repeated = 0
        if "time" in phases:
            tests, repeated = without_time_tests(tests)
        start = time.monotonic()
        names = sorted(set().union(*tests.values())) if tests else []
        if names:
            # One go test over every package with a changed test: a name also found in another
            # of these packages just runs there too.
            race = ["-race"] if a.race else []
            ok, _ = go([*race, f"-count={a.changed_count}", "-run", "^(" + "|".join(names) + ")$", *sorted(tests)],
                       f"{len(names)} changed tests in {len(tests)} packages {' '.join(race)} -count={a.changed_count}")
            if not ok:
                failed.append("changed")
        lines.append(f"changed  {time.monotonic() - start:6.0f} s  {len(names)} test functions changed since {base[:12] or '(no base)'} x{a.changed_count}"
                     f" (and {repeated} repeated in the time phase)")

    if "rest" in phases:
        pkgs = subprocess.run(["go", "list", "./..."], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
        timed = {MODULE + "/" + t.strip("./").rstrip("/") for t in TIME_PACKAGES + [CLI]}
        rest = [q for q in pkgs if q not in timed]
        start, rounds, last = time.monotonic(), 0, 0.0
        # A round starts only when one as long as the last still fits in the budget, so the
        # phase ends within it (after the first round, which always runs).
        while rounds == 0 or time.monotonic() - start + last <= a.budget:
            rounds += 1
            began = time.monotonic()
            ok1, _ = go(["-count=1", "-shuffle=on", *rest], f"other packages, round {rounds}")
            ok2, _ = go(["-count=1", "-shuffle=on", "-skip", CLI_TIME, CLI], f"the CLI's other tests, round {rounds}")
            if not (ok1 and ok2):
                failed.append(f"rest round {rounds}")
            last = time.monotonic() - began
        lines.append(f"rest     {time.monotonic() - start:6.0f} s  {len(rest)} packages x{rounds} (budget {a.budget:.0f} s)")

    print("flakehunt: summary (load average now " + load() + ")")
    for line in lines:
        print("  " + line)
    if failed:
        print("flakehunt: FAILED: " + ", ".join(failed))
        return 1
    print("flakehunt: no flake found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
