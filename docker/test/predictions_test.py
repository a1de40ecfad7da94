#!/usr/bin/env python3
"""Answers stay hidden until the learner predicts, and appear once they have.

    python docker/test/predictions_test.py [EXECUTED_DIR]

Every notebook cell that asks `nb.Guessed(prediction)` before it shows a
computed value is checked twice with the real gonb kernel:
  * in the copies `make test-notebooks` executed as committed (EXECUTED_DIR,
    default out/notebooks), where no prediction is written, its output must
    be the reminder to predict first and nothing else;
  * in a copy whose prediction cell is filled in (every nb.Unset becomes 1,
    every nb.Undecided nb.Yes, every "?" "A"; right or wrong does not matter
    here), executed now, its output must be there and must not be the
    reminder.
A notebook with no such cell is not checked; the test fails if it finds none
at all, so it cannot pass on nothing. Needs the kernel from `make lab-setup`.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
REMINDER = "所以要等你写下"
GATE = "nb.Guessed(prediction)"


def src(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def text(cell):
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            out.append("".join(o.get("text", "")) if isinstance(o.get("text"), list) else o.get("text", ""))
        elif "data" in o:
            out.append(" ".join(o["data"].keys()))
    return "".join(out)


def fill(source):
    source = re.sub(r"\bnb\.Unset\b", "1", source)
    source = re.sub(r"\bnb\.Undecided\b", "nb.Yes", source)
    return source.replace('"?"', '"A"')


def main():
    executed = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "out", "notebooks")
    unit = os.path.join(REPO, "notebooks", "unit01")
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        filled_dir = os.path.join(tmp, "unit01")
        os.makedirs(filled_dir)
        todo = []
        for name in sorted(os.listdir(unit)):
            if not name.endswith(".ipynb"):
                continue
            nb = json.load(open(os.path.join(unit, name), encoding="utf-8"))
            gated = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and GATE in src(c)]
            if not gated:
                continue
            # nbrun keeps the notebooks' folders when given the folder, not when given files.
            copy = os.path.join(executed, "unit01", name)
            if not os.path.exists(copy):
                copy = os.path.join(executed, name)
            ran = json.load(open(copy, encoding="utf-8"))
            for i in gated:
                checked += 1
                got = text(ran["cells"][i])
                if REMINDER not in got or "display_data" in json.dumps(ran["cells"][i].get("outputs", [])):
                    failures.append(f"{name}[{i}] as committed (no prediction) should show only the reminder, got {got[:200]!r}")
            for c in nb["cells"]:
                if c["cell_type"] == "code" and "var prediction = " in src(c):
                    c["source"] = fill(src(c))
            json.dump(nb, open(os.path.join(filled_dir, name), "w", encoding="utf-8"), ensure_ascii=False, indent=1)
            todo.append((name, gated))
        if checked == 0:
            print("predictions_test: no cell asks nb.Guessed(prediction): nothing was checked")
            return 1
        out = os.path.join(tmp, "out")
        paths = [os.path.join(filled_dir, n) for n, _ in todo]
        p = subprocess.run([sys.executable, os.path.join(REPO, "docker", "nbrun.py"), "--out", out, *paths],
                           capture_output=True, text=True, timeout=1800)
        if p.returncode != 0:
            print(p.stdout[-3000:], p.stderr[-3000:])
            print("predictions_test: the filled-in notebooks did not run")
            return 1
        for name, gated in todo:
            ran = json.load(open(os.path.join(out, name), encoding="utf-8"))
            for i in gated:
                got = text(ran["cells"][i])
                if not got.strip() or REMINDER in got:
                    failures.append(f"{name}[{i}] with the prediction filled in should show its result, got {got[:200]!r}")
    for f in failures:
        print("FAIL", f)
    print(f"predictions_test: {checked} gated cells checked both ways, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
