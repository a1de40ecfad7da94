#!/usr/bin/env python3
"""Learner-facing outputs of the executed notebooks speak Chinese.

    python docker/test/outputs_test.py [EXECUTED_DIR] [NOTEBOOKS_DIR]

Reads the executed copies that `docker/nbrun.py --out EXECUTED_DIR` wrote
(default out/notebooks, as `make test-notebooks` leaves them) and fails,
naming notebook[cell], when a cell's output shows
  * an English outcome, reason or boolean code (timeout, connect_error,
    ttft_over_slo, qualified, true, ok, ...), or
  * a wording the course does not use (首字延迟, 指标卡, 卡片, 格子, 质量合格,
    CNY, 采样点, 助教, ...; see coursekit/textcheck), or
  * a cost per 1,000 qualified whose amount is in bare 元, not 元/千次合格
    (textcheck.CostUnitMissing).
The rules are the ones coursekit/textcheck applies to the Go sources and
printed text; this is the same check on what the notebooks really printed.
It also fails when an executed copy is missing for a committed notebook, so
it cannot pass on an empty folder.
"""
import html
import json
import os
import re
import sys

# Kept equal to coursekit/textcheck (Variants without a Match pattern, snakeCodes, wordCodes;
# TestOutputsTestKnowsEveryVariant compares the lists).
VARIANTS = ["首字延迟", "端到端延迟", "开放到达", "指标卡", "交付卡", "卡片", "格子", "一格", "质量合格", "CNY", "采样点", "观察点", "助教", "卡不够用", "满格", "不足以下"]
SNAKE = re.compile(r"\b(connect_error|http_error|stream_error|in_flight|ttft_over_slo|not_complete|quality_fail|quality_unrated)\b")
WORD = re.compile(r"(?i)\b(timeout|cancelled|qualified|unrated|ok|true|false|pass|fail)\b")
SCRIPT = re.compile(r"(?is)<(script|style)\b.*?</\1>")
TAG = re.compile(r"<[^>]*>")
# Kept equal to coursekit/textcheck (CostUnitMissing): on a line naming 每千次合格成本,
# the last amount in 元 carries the unit 元/千次合格.
COST_RESULT = re.compile(r"元\s*/\s*千次合格")


def cost_unit_missing(text):
    out = []
    for line in text.split("\n"):
        i = line.replace("单元", "单_").rfind("元")  # the 元 of 单元格 is not money
        if "每千次合格成本" in line and i >= 0 and not COST_RESULT.match(line, i):
            out.append(line)
    return out


def edge(ch):
    """True when ch does not continue an English word (textcheck.standalone)."""
    return ch is None or not (ch.isascii() and (ch.isalpha() or ch in "_-./"))


def english_codes(text):
    found = SNAKE.findall(text)
    for m in WORD.finditer(text):
        left = text[:m.start()].rstrip(" \t")
        right = text[m.end():].lstrip(" \t")
        if edge(left[-1] if left else None) and edge(right[0] if right else None):
            found.append(m.group(0))
    return found


def joined(v):
    return "".join(v) if isinstance(v, list) else (v or "")


def output_text(out):
    """The text a learner reads in one output: streams, plain text, Markdown,
    and HTML without its scripts, styles and tags (charts draw from scripts;
    their labels are checked by the chart tests)."""
    kind = out.get("output_type")
    if kind == "stream":
        return joined(out.get("text")) if out.get("name") == "stdout" else ""
    if kind not in ("display_data", "execute_result", "update_display_data"):
        return ""
    data = out.get("data", {})
    parts = [joined(data.get("text/markdown"))]
    h = joined(data.get("text/html"))
    if h:
        parts.append(html.unescape(TAG.sub(" ", SCRIPT.sub(" ", h))))
    elif "text/plain" in data:
        parts.append(joined(data.get("text/plain")))
    return "\n".join(parts)


def notebooks(folder):
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if f.endswith(".ipynb"):
                yield os.path.relpath(os.path.join(root, f), folder)


def main(argv):
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    executed = argv[1] if len(argv) > 1 else os.path.join(repo, "out", "notebooks")
    committed = argv[2] if len(argv) > 2 else os.path.join(repo, "notebooks")
    want = {os.path.basename(n) for n in notebooks(committed)}
    got = {os.path.basename(n): n for n in notebooks(executed)}
    problems = [f"{n}: no executed copy under {executed} (run make test-notebooks first)" for n in sorted(want - set(got))]
    outputs = 0
    for name in sorted(want & set(got)):
        with open(os.path.join(executed, got[name]), encoding="utf-8") as f:
            nb = json.load(f)
        for i, cell in enumerate(nb.get("cells", [])):
            for out in cell.get("outputs", []):
                text = output_text(out)
                if not text.strip():
                    continue
                outputs += 1
                for code in english_codes(text):
                    problems.append(f"{name}[{i}]: prints the English code {code!r}")
                for v in VARIANTS:
                    if v in text:
                        problems.append(f"{name}[{i}]: prints {v!r}, a wording the course does not use")
                for line in cost_unit_missing(text):
                    problems.append(f"{name}[{i}]: a cost without its unit 元/千次合格: {line.strip()!r}")
    for p in problems:
        print("FAIL", p)
    print(f"outputs: {len(want & set(got))} notebooks, {outputs} outputs read, {len(problems)} problems")
    return 1 if problems or outputs == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
