"""Answers stay hidden until the learner predicts, and appear once they have.

    python docker/test/predictions_test.py [EXECUTED_DIR] [--out PREDICTED_DIR]

A cell is gated when it asks nb.Guessed of a prediction before it shows an
answer: `if !nb.Guessed(p) { return }`, where p is the learner's prediction
variable, whatever its name (prediction, mistakes, predictCacheShare), or one
of its fields (prediction.PauseChangesTTFT), in the cell or in the body of the
coursekit/unit01 check the cell calls. That is the one gate form the course keeps; coursekit/textcheck's gate rule (gates_test.go) fails any answer
cell after a prediction that shows before it. Every gated cell is checked
twice with the real gonb kernel:
  * in the copies `make test-notebooks` executed as committed (EXECUTED_DIR,
    default out/notebooks), where no prediction is written, its output must
    be the reminder to predict first and nothing else;
  * in a copy whose predictions are filled in (in every cell's declarations,
    every nb.Unset becomes 1, every nb.Undecided nb.Yes, every "?" "A";
    right or wrong does not matter here), executed now, its output must be
    there and must not be the reminder.
The filled-in copies stay in PREDICTED_DIR (default out/notebooks-predicted),
flat (PREDICTED_DIR/NAME): comparison_test.py reads 09's comparison there.
A notebook with no gated cell is not checked; the test fails if it finds none
at all, so it cannot pass on nothing. Needs the kernel from `make lab-setup`.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from executed import executed_copy

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
REMINDER = "所以要等你写下"
# The gate: nb.Guessed asked of a prediction variable or one of its fields.
GATE = re.compile(r"\bnb\.Guessed\(\s*[A-Za-z_]\w*(\.\w+)*\s*[,)]")
# A check of coursekit/unit01 called from a cell (unit01.CheckTimeline(prediction, timeline)):
# gated when its function asks nb.Guessed, as 02–05's checks that show more than a verdict do.
UNIT01_CALL = re.compile(r"\bunit01\.(\w+)\(")


def unit01_gated():
    """The functions of coursekit/unit01 whose body asks nb.Guessed."""
    out = set()
    d = os.path.join(REPO, "coursekit", "unit01")
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if not name.endswith(".go") or name.endswith("_test.go"):
            continue
        text = open(os.path.join(d, name), encoding="utf-8").read()
        for m in re.finditer(r"(?m)^func (\w+)(\[[^\]]*\])?\(", text):
            end = text.find("\nfunc ", m.end())
            if GATE.search(text[m.end():end if end >= 0 else len(text)]):
                out.add(m.group(1))
    return out


def gated_cell(source, checks):
    return bool(GATE.search(source)) or any(m.group(1) in checks for m in UNIT01_CALL.finditer(source))


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
    """The cell with its predictions written: only its declarations (the lines
    before a %% line) change, where a learner writes them."""
    lines = source.split("\n")
    body = next((i for i, line in enumerate(lines) if line.strip() == "%%"), len(lines))
    decl = "\n".join(lines[:body])
    if not re.search(r"(?m)^var\b", decl):
        return source
    decl = re.sub(r"\bnb\.Unset\b", "1", decl)
    decl = re.sub(r"\bnb\.Undecided\b", "nb.Yes", decl)
    decl = decl.replace('"?"', '"A"')
    return "\n".join([decl] + lines[body:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("executed", nargs="?", default=os.path.join(REPO, "out", "notebooks"))
    ap.add_argument("--out", default=os.path.join(REPO, "out", "notebooks-predicted"))
    args = ap.parse_args()
    # A copy left by an earlier run must not stand in for this one's.
    shutil.rmtree(args.out, ignore_errors=True)
    unit = os.path.join(REPO, "notebooks", "unit01")
    failures, checked = [], 0
    checks = unit01_gated()
    with tempfile.TemporaryDirectory() as tmp:
        filled_dir = os.path.join(tmp, "unit01")
        os.makedirs(filled_dir)
        todo = []
        for name in sorted(os.listdir(unit)):
            if not name.endswith(".ipynb"):
                continue
            nb = json.load(open(os.path.join(unit, name), encoding="utf-8"))
            gated = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and gated_cell(src(c), checks)]
            if not gated:
                continue
            copy = executed_copy(args.executed, name)
            if copy is None:
                failures.append(f"{name}: no executed copy under {args.executed} (make notebooks-executed)")
                continue
            ran = json.load(open(copy, encoding="utf-8"))
            for i in gated:
                checked += 1
                got = text(ran["cells"][i])
                if REMINDER not in got or "display_data" in json.dumps(ran["cells"][i].get("outputs", [])):
                    failures.append(f"{name}[{i}] as committed (no prediction) should show only the reminder, got {got[:200]!r}")
            for c in nb["cells"]:
                if c["cell_type"] == "code":
                    c["source"] = fill(src(c))
            json.dump(nb, open(os.path.join(filled_dir, name), "w", encoding="utf-8"), ensure_ascii=False, indent=1)
            todo.append((name, gated))
        if checked == 0:
            print("predictions_test: no cell asks nb.Guessed of a prediction: nothing was checked")
            return 1
        paths = [os.path.join(filled_dir, n) for n, _ in todo]
        p = subprocess.run([sys.executable, os.path.join(REPO, "docker", "nbrun.py"), "--out", args.out, *paths],
                           capture_output=True, text=True, timeout=1800)
        print(p.stdout[-3000:] if p.returncode else "\n".join(l for l in p.stdout.splitlines() if "whole notebook" in l))
        if p.returncode != 0:
            print(p.stderr[-3000:])
            print("predictions_test: the filled-in notebooks did not run")
            return 1
        for name, gated in todo:
            ran = json.load(open(os.path.join(args.out, name), encoding="utf-8"))
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
