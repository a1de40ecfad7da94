#!/usr/bin/env python3
"""The deliverable notebook, filled in, really passes or fails its self-check.

Runs notebooks/unit01/06-deliverable.ipynb in the GoNB kernel three times,
with the card cell (found by its metadata, not its position) replaced by:
  1. the reference answers  -> every machine-checked public criterion passes;
  2. a card with R9/R10 deleted (failure rate 0/8, 8 attempts) -> exactly the
     criteria about the failure rate and the attempt count fail;
  3. the blank card as committed -> most criteria fail, none is "passed" by default;
  4. a notebook released by `coursekit assign` -> runs as released and checks
     the learner's own variant trace;
  5. that notebook, run untouched and saved, graded by `coursekit grade` ->
     0 machine points (nothing the release contains or a blank card
     satisfies scores).
It reads the verdict from the card JSON the self-check embeds
(application/vnd.coursekit.card+json), the way a grader would.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import nbformat
from nbclient import NotebookClient

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
NB = os.path.join(REPO, "notebooks", "unit01", "06-deliverable.ipynb")
MIME = "application/vnd.coursekit.card+json"


def role(cell):
    return cell.get("metadata", {}).get("coursekit", {}).get("role")


def run(card_src, path=NB, save=None):
    nb = nbformat.read(path, as_version=4)
    cards = [c for c in nb.cells if role(c) == "card"]
    assert len(cards) == 1, f"want one card cell, found {len(cards)}"
    if card_src is not None:
        cards[0].source = card_src
    log_dir = os.path.join(REPO, "out")
    os.makedirs(log_dir, exist_ok=True)
    with open(os.path.join(log_dir, "deliverable-kernel.log"), "wb") as log:  # GoNB logs a lot to stderr
        NotebookClient(nb, kernel_name="gonb", timeout=120,
                       resources={"metadata": {"path": os.path.dirname(path)}}).execute(stderr=log)
    if save:
        nbformat.write(nb, save)
    checks = [c for c in nb.cells if role(c) == "selfcheck"]
    assert len(checks) == 1, "want one self-check cell"
    for out in checks[0].outputs:
        if out.get("output_type") == "error":
            raise AssertionError(f"self-check cell failed: {out.get('ename')}: {out.get('evalue')}")
        data = out.get("data", {})
        if MIME in data:
            raw = data[MIME]
            payload = json.loads(raw) if isinstance(raw, str) else raw
            return payload["report"], "".join(data.get("text/plain", "")), payload["trace"]
    raise AssertionError("the self-check embedded no card JSON")


def statuses(report):
    return {r["id"]: r["status"] for r in report["results"]}


def main():
    reference = open(os.path.join(HERE, "testdata", "reference-card.go.txt"), encoding="utf-8").read()
    failures = []

    report, text, _ = run(reference)
    st = statuses(report)
    bad = sorted(k for k, v in st.items() if v == "fail")
    if bad or report["failed"] != 0:
        failures.append(f"reference card: these public criteria failed: {bad}")
    if f"公开检查 {report['passed']}/{report['passed']} 通过" not in text or "隐藏检查" not in text:
        failures.append(f"reference card: status line missing or not all-passed:\n{text[:300]}")
    if report["needs_human"] == 0:
        failures.append("reference card: free-text answers must go to a human reader")

    deleted = reference.replace("Attempts:         10", "Attempts:         8")
    deleted = deleted.replace("card.Ratio{Num: 2, Den: 10, Unit: \"失败尝试/全部尝试\"}", "card.Ratio{Num: 0, Den: 8, Unit: \"失败尝试/全部尝试\"}")
    report, _, _ = run(deleted)
    st = statuses(report)
    for want in ("figures.failure_rate", "stated.attempts"):
        if st.get(want) != "fail":
            failures.append(f"R9/R10 deleted: {want} should fail, got {st.get(want)}")
    if st.get("figures.p95") != "pass":
        failures.append("R9/R10 deleted: P95 is unchanged by deleting failures and should still pass")

    report, _, _ = run(None)
    if report["passed"] > 2 or report["failed"] < 15:
        failures.append(f"blank card: passed {report['passed']}, failed {report['failed']}: a blank card must not pass")

    # An assigned notebook (coursekit assign) runs as released and checks the
    # learner's own variant trace, not the public teaching trace.
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "key"), "wb") as f:
            f.write(b"deliverable-test-key-0123456789abcdef")
        with open(os.path.join(tmp, "roster.csv"), "w") as f:
            f.write("id\nlearner1\n")
        out = os.path.join(tmp, "release")
        subprocess.run(["go", "run", "./coursekit/cmd/coursekit", "assign", "--roster", os.path.join(tmp, "roster.csv"),
                        "--key-file", os.path.join(tmp, "key"), "--out", out], cwd=REPO, check=True, capture_output=True)
        assigned = os.path.join(out, "learner1", "06-deliverable.ipynb")
        submitted = os.path.join(tmp, "submitted", "learner1", "06-deliverable.ipynb")
        os.makedirs(os.path.dirname(submitted))
        _, _, ident = run(None, assigned, save=submitted)
        want = hashlib.sha256(open(os.path.join(out, "learner1", "trace.jsonl"), "rb").read()).hexdigest()
        public = hashlib.sha256(open(os.path.join(REPO, "data", "unit01", "trace.jsonl"), "rb").read()).hexdigest()
        if ident.get("sha256") != want or want == public:
            failures.append(f"assigned notebook: self-check read trace {ident}, want the learner's variant {want}")

        # The untouched release, run and saved as a learner would, earns no
        # machine points.
        graded = os.path.join(tmp, "graded")
        res = subprocess.run(["go", "run", "./coursekit/cmd/coursekit", "grade", "--quiet", "--key-file", os.path.join(tmp, "key"),
                              "--roster", os.path.join(tmp, "roster.csv"), "--out", graded, submitted],
                             cwd=REPO, capture_output=True, text=True)
        if res.returncode != 0:
            failures.append(f"untouched release: coursekit grade exited {res.returncode}: {res.stderr[-500:]}")
        else:
            sub = json.load(open(os.path.join(graded, "grades.json"), encoding="utf-8"))[0]
            earned = [f"{x['id']} {x['points']}/{x['max']}" for x in sub.get("scores", []) if x["points"] or x.get("pending")]
            if not sub["gradable"] or sub["total"] != 0 or earned:
                failures.append(f"untouched release: gradable {sub['gradable']}, total {sub['total']}/{sub.get('max')}: {earned or sub.get('reason')}")
            # Run as released, its card cell parses to the card its self-check saved.
            warns = [f["code"] for f in sub.get("integrity", []) if f["warn"]]
            if warns:
                failures.append(f"untouched release: integrity warnings {warns}")

    for f in failures:
        print("FAIL", f)
    failed_cases = len({f.split(":")[0] for f in failures})
    print(f"deliverable: {5 - failed_cases} passed, {failed_cases} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
