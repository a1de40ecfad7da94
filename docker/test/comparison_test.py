#!/usr/bin/env python3
"""Notebook 09's A/B comparison, as it really ran, is well formed.

    python docker/test/comparison_test.py [PREDICTED_DIR]

Reads the executed copy of notebooks/unit01/09-lab-real-engine.ipynb with its
predictions filled in, as docker/test/predictions_test.py leaves it (default
out/notebooks-predicted; the comparison waits for its prediction, so the copy
executed as committed shows none): the notebook runs the real engine, 1 slot
against 4, three runs each. It finds the comparison nb.Comparison embedded as JSON
(application/vnd.coursekit.compare+json) and checks its structure, never its
timings, which depend on the machine:
  * three runs a side, named as the notebook saved them, between-run variance
    covered on both sides, seed and resamples recorded;
  * the one changed condition is the engine's slots (1 against 4), and no
    side's runs differ among themselves;
  * every metric the comparison promises is there, in its order, with its
    method named (RUN_RATES, SHARES, the hierarchical bootstrap for the rest,
    each with Welch's t over the runs);
  * each metric holds together: B − A is B minus A, the relative change is
    B − A over A, the interval holds B − A, the verdict is same exactly when
    the interval holds 0, and better or worse follows the metric's
    direction (lower latencies and failure rate are better, higher rates);
  * the report shows the verdicts it computed (the text beside the JSON).
"""
import json
import math
import os
import sys

from executed import executed_copy

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# The copies predictions_test.py executed with every prediction filled in: the
# comparison cell shows its result only once its prediction is written.
PREDICTED = os.path.join(REPO, "out", "notebooks-predicted")
MIME = "application/vnd.coursekit.compare+json"
NOTEBOOK = "09-lab-real-engine.ipynb"
METRICS = ["ttft_ms.p50", "ttft_ms.p95", "ttft_ms.p99", "e2e_ms.p95", "itl_ms.p50", "itl_ms.p95",
           "failure_rate", "qualified_rate@1000ms", "goodput@1000ms", "throughput.output_tokens_per_s"]
# Rates over a run's window: with several runs a side, a t-interval over the
# runs' own rates (Welch); the other metrics by a bootstrap of runs, then
# attempts.
RUN_RATES = ("goodput@", "throughput.")
# Shares of attempts: the hull of that bootstrap and Newcombe's interval over
# each side's attempts pooled (never certain at 0 % or 100 %).
SHARES = ("failure_rate", "qualified_rate@")
LOWER_IS_BETTER = ("ttft_ms.", "e2e_ms.", "itl_ms.", "failure_rate")
VERDICT_TEXT = {"better": "更好", "worse": "更差", "same": "~", "n/a": "无法比较"}


def text(v):
    return "".join(v) if isinstance(v, list) else v


def comparisons(path):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    out = []
    for i, cell in enumerate(nb["cells"]):
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if MIME in data:
                raw = data[MIME]
                out.append((i, json.loads(text(raw)) if not isinstance(raw, dict) else raw, text(data.get("text/plain", ""))))
    return out


def check_metric(m, fail):
    name = m["name"]
    # With several runs on both sides, every interval takes in Welch's t
    # over the runs' own values ("+welch-t-runs"), unless the runs' values
    # agree exactly (a share at 0 % in every run): no spread to scale a t by.
    # A percentile a short run cannot bound by itself takes Welch over the
    # runs alone ("welch-t-runs"), unless it is each run's maximum (then the
    # bootstrap's unbounded interval stands, with a note).
    want = {"hierarchical-bootstrap+welch-t-runs", "hierarchical-bootstrap", "welch-t-runs"}
    if name.startswith(RUN_RATES):
        want = {"welch-t-runs"}
    elif name.startswith(SHARES):
        want = {"hierarchical-bootstrap+newcombe-wilson+welch-t-runs", "hierarchical-bootstrap+newcombe-wilson"}
    if m["method"] not in want:
        fail(f"{name}: method {m['method']!r}, want one of {sorted(want)} (three runs a side)")
    a, b, diff, rel, ci = m["a"], m["b"], m["diff"], m["rel"], m["ci95"]
    if a is None or b is None:
        if m["verdict"] != "n/a" or diff is not None:
            fail(f"{name}: a side has no value, yet verdict {m['verdict']!r}, diff {diff}")
        return
    if diff is None or not math.isclose(diff, b - a, rel_tol=1e-9, abs_tol=1e-9):
        fail(f"{name}: diff {diff}, but B − A = {b - a}")
        return
    # compare writes its floats as the card's JSON does: to 1e-6 from 1 up
    # (a change of +357 % is 3.57 to six decimals), to 12 digits below.
    if a != 0 and (rel is None or not math.isclose(rel, diff / a, rel_tol=1e-6, abs_tol=1e-12)):
        fail(f"{name}: rel {rel}, but (B − A) / A = {diff / a}")
    low, high = ci["low"], ci["high"]
    inside = lambda v: (low is None or low <= v) and (high is None or v <= high)
    if not inside(diff):
        fail(f"{name}: B − A = {diff} outside its interval [{low}, {high}]")
    want = "same"
    if not inside(0):
        want = "better" if (diff < 0) == name.startswith(LOWER_IS_BETTER) else "worse"
    if m["verdict"] != want:
        fail(f"{name}: verdict {m['verdict']!r}, but the interval [{low}, {high}] and B − A = {diff} say {want!r}")


def main():
    executed = sys.argv[1] if len(sys.argv) > 1 else PREDICTED
    path = executed_copy(executed, NOTEBOOK)
    if path is None:
        sys.exit(f"comparison_test: no executed copy of {NOTEBOOK} under {executed}: run predictions_test.py first "
                 "(make test-notebooks does), which executes it with its predictions filled in")
    failures = []
    fail = failures.append
    found = comparisons(path)
    if len(found) != 1:
        sys.exit(f"comparison_test: {NOTEBOOK}: want one comparison output ({MIME}), found {len(found)}")
    cell, r, report = found[0]
    fail_in = lambda msg: fail(f"{NOTEBOOK}[{cell}]: {msg}")
    if r["a"]["traces"] != ["slots1-1", "slots1-2", "slots1-3"] or r["b"]["traces"] != ["slots4-1", "slots4-2", "slots4-3"]:
        fail_in(f"sides {r['a']} and {r['b']}, want the three runs of 1 slot against the three of 4")
    if r["between_run_variance_covered"] != {"a": True, "b": True} or r["seed"] != 1 or r["resamples"] != 2000:
        fail_in(f"between runs {r['between_run_variance_covered']}, seed {r['seed']}, resamples {r['resamples']}")
    if r["conditions_changed"] != [{"name": "engine.parallel", "a": 1, "b": 4}]:
        fail_in(f"conditions changed {r['conditions_changed']}, want only engine.parallel 1 → 4")
    if r["runs_differ"]:
        fail_in(f"the runs of a side differ among themselves: {r['runs_differ']}")
    names = [m["name"] for m in r["metrics"]]
    if names != METRICS:
        fail_in(f"metrics {names}, want {METRICS}")
    for m in r["metrics"]:
        check_metric(m, fail_in)
        row = next((line for line in report.split("\n") if line.startswith(m["name"] + " ")), None)
        if row is None or not row.rstrip().endswith(VERDICT_TEXT.get(m["verdict"], "?")):
            fail_in(f"{m['name']}: the report's row {row!r} does not end with its verdict {VERDICT_TEXT.get(m['verdict'])!r}")
    for f in failures:
        print("FAIL", f)
    verdicts = ", ".join(f"{m['name']} {m['verdict']}" for m in r["metrics"])
    print(f"comparison_test: {NOTEBOOK}[{cell}]: {len(r['metrics'])} metrics checked ({verdicts}); {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
