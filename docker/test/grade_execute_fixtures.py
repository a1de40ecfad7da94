#!/usr/bin/env python3
"""Learner stand-ins for the `coursekit grade --execute` test (docker/test/test-grade-execute.sh).

    grade_execute_fixtures.py fill RELEASE_DIR REFERENCE_CARD
        writes each learner's card cell, as a learner would before running the notebook
    grade_execute_fixtures.py tamper RAN_DIR SUBMIT_DIR
        copies the notebooks the learners ran into SUBMIT_DIR/<id>.ipynb, with what
        some learners did after running (see LEARNERS)
    grade_execute_fixtures.py check GRADED_DIR
        checks grades.csv, feedback and results.json against LEARNERS

Uses only the standard library: it runs on the host, outside the image.
"""
import csv
import json
import os
import shutil
import sys

MIME = "application/vnd.coursekit.card+json"

# What each learner does, and the execution result the grader must give
# (points of 2, a phrase of the learner's feedback, integrity codes).
LEARNERS = {
    "alice": ("runs the reference card and submits", "2", "一致", []),
    "bob": ("typical mistakes: R9/R10 deleted", "2", "一致", []),
    "carol": ("adds an endless loop after running", "0", "每个单元格", []),
    "dave": ("edits the saved self-check output", "1", "不一样", ["exec_card_differs"]),
    "eve": ("edits the locked data cell after running", "2", "一致", ["exec_restored"]),
    "frank": ("adds a cell that panics after running", "0", "出错：panic: runtime error: index out of range", []),
    "gina": ("fills the card but never runs the notebook", "2", "没有运行自检", ["graded_from_rerun"]),
}


def role(cell):
    return cell.get("metadata", {}).get("coursekit", {}).get("role")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save(nb, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(nb, f, ensure_ascii=False, indent=1)


def code_cell(cid, src):
    return {"cell_type": "code", "id": cid, "metadata": {}, "source": src, "outputs": [], "execution_count": None}


def fill(release_dir, reference_path):
    reference = open(reference_path, encoding="utf-8").read()
    mistaken = reference.replace("Attempts:         10", "Attempts:         8").replace(
        'card.Ratio{Num: 2, Den: 10, Unit: "失败尝试/全部尝试"}', 'card.Ratio{Num: 0, Den: 8, Unit: "失败尝试/全部尝试"}')
    assert mistaken != reference, "reference card changed: update the mistakes"
    for who in LEARNERS:
        path = os.path.join(release_dir, who, "06-deliverable.ipynb")
        nb = load(path)
        cards = [c for c in nb["cells"] if role(c) == "card"]
        assert len(cards) == 1, path
        cards[0]["source"] = mistaken if who == "bob" else reference
        save(nb, path)


def insert_before_selfcheck(nb, cell):
    i = next(i for i, c in enumerate(nb["cells"]) if role(c) == "selfcheck")
    nb["cells"].insert(i, cell)


def tamper(ran_dir, submit_dir):
    os.makedirs(submit_dir, exist_ok=True)
    for who in LEARNERS:
        if who == "gina":  # submits the filled notebook as it was before running it
            nb = load(os.path.join(ran_dir, "..", who, "06-deliverable.ipynb"))
            save(nb, os.path.join(submit_dir, who + ".ipynb"))
            continue
        nb = load(os.path.join(ran_dir, who, "06-deliverable.ipynb"))
        check = next(c for c in nb["cells"] if role(c) == "selfcheck")
        assert any(MIME in o.get("data", {}) for o in check["outputs"]), f"{who}: the self-check did not run"
        if who == "carol":
            insert_before_selfcheck(nb, code_cell("carol-loop", "%%\nfor {\n}\n"))
        elif who == "frank":
            insert_before_selfcheck(nb, code_cell("frank-panic", "%%\nvar xs []int\nfmt.Println(xs[3])\n"))
        elif who == "dave":
            for o in check["outputs"]:
                if MIME in o.get("data", {}):
                    raw = o["data"][MIME]
                    p = json.loads(raw) if isinstance(raw, str) else raw
                    p["card"]["attempts"] = 99
                    o["data"][MIME] = json.dumps(p, ensure_ascii=False)
        elif who == "eve":
            data = next(c for c in nb["cells"] if role(c) == "data")
            data["source"] = 'var unit = must(trace.ReadFile("../alice/trace.jsonl"))'
        save(nb, os.path.join(submit_dir, who + ".ipynb"))


def check(graded):
    failures = []
    with open(os.path.join(graded, "grades.csv"), encoding="utf-8-sig") as f:  # grades.csv starts with a BOM (for Excel)
        rows = {r["id"]: r for r in csv.DictReader(f)}
    for who, (what, points, phrase, codes) in LEARNERS.items():
        r = rows.get(who)
        if r is None:
            failures.append(f"{who}: no row in grades.csv")
            continue
        if r.get("execution") != points:
            failures.append(f"{who} ({what}): execution = {r.get('execution')!r}, want {points}")
        fb = open(os.path.join(graded, "feedback", who + ".md"), encoding="utf-8").read()
        if phrase not in fb:
            failures.append(f"{who} ({what}): feedback lacks {phrase!r}")
        res = load(os.path.join(graded, "results", who + ".json"))
        got = res.get("extra_data", {}).get("integrity", [])
        for c in codes:
            if c not in got:
                failures.append(f"{who} ({what}): integrity codes {got} lack {c}")
        print(f"   {who:6s} {what:45s} execution {r.get('execution')}/2  total {r['total']}/{r['max']}")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


def main(argv):
    if len(argv) == 3 and argv[0] == "fill":
        fill(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "tamper":
        tamper(argv[1], argv[2])
    elif len(argv) == 2 and argv[0] == "check":
        return check(argv[1])
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
