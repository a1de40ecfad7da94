#!/usr/bin/env python3
"""Python reference for the coursekit card benchmark.

Computes the same core card as `coursekit card --format json` (attempts,
denominators, success TTFT/E2E/ITL percentiles under nearest-rank and
linear, joint qualification at the given SLOs) the straightforward way a
Python user would: json.loads per line, lists, numpy percentiles.

It validates only what it needs; the Go side validates everything.
Prints one JSON object comparable with bench/card/compare.py.
"""
import json
import sys

import numpy as np

LEVELS = (50, 90, 95, 99)


def dist(values, method):
    if not values:
        return {"n": 0, **{f"p{p}": None for p in LEVELS}}
    a = np.asarray(values, dtype=np.float64)
    # numpy's "inverted_cdf" is nearest rank; "linear" is its default.
    np_method = "inverted_cdf" if method == "nearest-rank" else "linear"
    qs = np.percentile(a, LEVELS, method=np_method)
    return {"n": int(a.size), **{f"p{p}": float(q) for p, q in zip(LEVELS, qs)}}


def main():
    path = sys.argv[1]
    slos = [float(s) for s in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1000.0]
    method = sys.argv[3] if len(sys.argv) > 3 else "nearest-rank"
    with open(path, "rb") as f:
        header = json.loads(f.readline())
        w0, w1 = header["window"]["start_ms"], header["window"]["end_ms"]
        attempts = complete = in_flight = outside = 0
        ttft, e2e, itl, pass_ttft = [], [], [], []
        requests = set()
        ids = set()
        for line in f:
            a = json.loads(line)
            if a["attempt"] in ids:
                raise SystemExit(f"duplicate attempt {a['attempt']}")
            ids.add(a["attempt"])
            start = a["start_ms"]
            if not (w0 <= start < w1):
                outside += 1
                continue
            attempts += 1
            requests.add(a.get("request") or a["attempt"])
            outcome = a["outcome"]
            if outcome == "in_flight":
                in_flight += 1
            elif outcome == "ok":
                complete += 1
                ev = [e["t_ms"] for e in a["events"]]
                t = ev[0] - start
                ttft.append(t)
                e2e.append(a["end_ms"] - start)
                itl.extend(b - p for p, b in zip(ev, ev[1:]))
                if a.get("quality") == "pass":
                    pass_ttft.append(t)
    window_s = (w1 - w0) / 1000
    pt = np.sort(np.asarray(pass_ttft, dtype=np.float64))
    conds = []
    for slo in slos:
        q = int(np.searchsorted(pt, slo, side="right"))
        conds.append({"slo_ttft_ms": slo, "qualified": q, "goodput_per_s": q / window_s})
    out = {
        "attempts": attempts,
        "requests": len(requests),
        "complete_successes": complete,
        "failures": attempts - complete - in_flight,
        "in_flight": in_flight,
        "outside_window": outside,
        "ttft_ms": dist(ttft, method),
        "e2e_ms": dist(e2e, method),
        "itl_ms": dist(itl, method),
        "conditions": conds,
    }
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
