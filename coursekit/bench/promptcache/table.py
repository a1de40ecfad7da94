"""Prints the prompt-cache table of docs/engineers.md from the runs of run.sh (work directory, replays)."""
import json
import math
import os
import sys


def run(path):
    with open(path) as f:
        lines = f.read().splitlines()
    ttft, whole, cached, computed, n = [], 0, 0, 0, 0
    for line in lines[1:]:
        a = json.loads(line)
        if a["outcome"] != "ok":
            continue
        n += 1
        ttft.append(a["events"][0]["t_ms"] - a["start_ms"])
        st = (a.get("meta") or {}).get("server_timings") or {}
        cached += st.get("cache_n", 0)
        computed += st.get("prompt_n", 0)
        whole += st.get("prompt_n", 99) <= 2
    ttft.sort()
    p50 = ttft[math.ceil(0.5 * len(ttft)) - 1] if ttft else float("nan")
    return {"n": n, "p50": p50, "whole": whole, "cached": cached, "computed": computed}


def main():
    work, replays = sys.argv[1], int(sys.argv[2])
    rows = [("the same `--dataset` prompts in both runs (20 lines, no `expect`)", "row-dataset")]
    rows.append(("fresh salt per run (default)", "row-fresh"))
    rows += [("second run with `--prompt-salt` of the first" + (f" (pair {i})" if replays > 1 else ""), f"row-salt{i}") for i in range(1, replays + 1)]
    rows += [("`--prompt-reuse same` (one run)", "row-same"), ("`--prompt-reuse shared-prefix:24` (one run)", "row-shared")]
    print("| prompts | TTFT P50, 1st run | TTFT P50, 2nd run | whole prompt cached, of 20 | cached / computed prompt tokens |")
    print("|---|---|---|---|---|")
    for label, stem in rows:
        first = run(os.path.join(work, stem + "-1.jsonl"))
        second_path = os.path.join(work, stem + "-2.jsonl")
        last = first
        p2 = ""
        if os.path.exists(second_path):
            last = run(second_path)
            p2 = f"{last['p50']:.1f} ms"
        print(f"| {label} | {first['p50']:.1f} ms | {p2} | {last['whole']} | {last['cached']:,} / {last['computed']:,} |")


main()
