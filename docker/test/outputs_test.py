#!/usr/bin/env python3
"""Learner-facing outputs of the executed notebooks speak Chinese.

    python docker/test/outputs_test.py [EXECUTED_DIR] [NOTEBOOKS_DIR]
    python docker/test/outputs_test.py --filled PREDICTED_DIR [NOTEBOOKS_DIR]

Reads the executed copies that `docker/nbrun.py --out EXECUTED_DIR` wrote
(default out/notebooks, as `make test-notebooks` leaves them) and fails,
naming notebook[cell], when a cell's output shows
  * an English outcome, reason or boolean code (timeout, connect_error,
    ttft_over_slo, qualified, true, ok, ...), or
  * a wording the course does not use (首字延迟, 指标卡, 卡片, 格子, 质量合格,
    CNY, 采样点, 助教, ...; see coursekit/textcheck), or
  * a cost per 1,000 qualified whose amount is in bare 元, not 元/千次合格
    (textcheck.CostUnitMissing), or
  * an English prose sentence: three or more English words in a row (not a
    unit, term or code identifier). Quoted material is exempt where it is
    marked as such: a table column headed 原文 (the trace's raw error text)
    or 回答 (a model's answer), a line's rest after 原文：, and URLs.
The rules are the ones coursekit/textcheck applies to the Go sources and
printed text; this is the same check on what the notebooks really printed.
It also fails when an executed copy is missing for a committed notebook, so
it cannot pass on an empty folder.

--filled reads the copies predictions_test.py executed with their predictions
filled in (out/notebooks-predicted): what a gated cell shows appears only
there. That folder holds only the notebooks with gated cells, so only a
folder with none of them fails.
"""
import html
import html.parser
import json
import os
import re
import sys

# Kept equal to coursekit/textcheck (Variants without a Match pattern, snakeCodes, wordCodes;
# TestOutputsTestKnowsEveryVariant compares the lists).
VARIANTS = ["首字延迟", "端到端延迟", "开放到达", "指标卡", "交付卡", "卡片", "格子", "一格", "质量合格", "CNY", "采样点", "观察点", "助教", "卡不够用", "满格", "不足以下", "帮手"]
SNAKE = re.compile(r"\b(connect_error|no_response|http_error|stream_error|empty_output|in_flight|ttft_over_slo|not_complete|quality_fail|quality_unrated)\b")
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


# English prose: a run of words separated only by spaces and light punctuation, with at least
# three ordinary lowercase words in it. Terms and units the course writes in English are not
# counted; identifiers (inter_chunk_latency, metrics.Summarize, easy.jsonl) break a run.
PROSE_RUN = re.compile(r"[A-Za-z][A-Za-z'’]*(?:[ ,;:?!.]+[A-Za-z][A-Za-z'’]*)+")
PROSE_WORD = re.compile(r"[a-z][a-z'’]+")
KEPT_WORDS = {"token", "tokens", "ms", "goodput", "prefill", "decode", "nearest", "rank", "trace", "bench", "serve"}
URL = re.compile(r"https?://\S+")
QUOTED_REST = re.compile(r"原文[：:].*$", re.M)
# Table columns whose cells quote material that is English by nature: the trace's raw error
# text, a model's answer.
QUOTED_COLUMNS = ("原文", "回答")


def prose(text):
    """The English prose sentences of text, quoted material and URLs left out."""
    text = QUOTED_REST.sub(" ", URL.sub(" ", text))
    found = []
    for m in PROSE_RUN.finditer(text):
        words = re.split(r"[ ,;:?!.]+", m.group(0))
        # A word glued to a dot, slash or underscore is part of an identifier, not prose.
        end = m.end()
        if end < len(text) and text[end] in "._/(":
            words = words[:-1]
        start = m.start()
        if start > 0 and text[start - 1] in "._/":
            words = words[1:]
        if sum(1 for w in words if PROSE_WORD.fullmatch(w) and w not in KEPT_WORDS) >= 3:
            found.append(m.group(0))
    return found


INLINE_TAGS = ("span", "br", "em", "strong", "b", "i", "code")


class _Fragments(html.parser.HTMLParser):
    """Splits HTML into the text pieces a reader sees apart: each table cell on its own,
    without the cells of quoted columns, and the text between tags."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces, self.buf, self.skip = [], [], 0
        self.header, self.col, self.in_head, self.quoted = [], 0, False, set()

    def flush(self):
        t = "".join(self.buf).strip()
        if t:
            self.pieces.append(t)
        self.buf = []

    def handle_starttag(self, tag, attrs):
        if tag in INLINE_TAGS:  # a cell's text in pieces, as nb.Table writes a header on two lines
            if tag == "br":
                self.buf.append(" ")
            return
        if tag in ("script", "style"):
            self.skip += 1
        self.flush()
        if tag == "table":
            self.header, self.quoted = [], set()
        elif tag == "thead":
            self.in_head = True
        elif tag == "tr":
            self.col = 0

    def handle_endtag(self, tag):
        if tag in INLINE_TAGS:
            return
        if tag in ("script", "style"):
            self.skip -= 1
        if tag in ("td", "th"):
            t = "".join(self.buf).strip()
            self.buf = []
            if self.in_head or tag == "th":
                if any(q in t for q in QUOTED_COLUMNS):
                    self.quoted.add(self.col)
                if t:
                    self.pieces.append(t)
            elif self.col not in self.quoted and t:
                self.pieces.append(t)
            self.col += 1
            return
        if tag == "thead":
            self.in_head = False
        self.flush()

    def handle_data(self, data):
        if not self.skip:
            self.buf.append(data)


def prose_pieces(out):
    """The pieces of one output that are read as separate texts, for the prose check."""
    kind = out.get("output_type")
    if kind == "stream":
        return joined(out.get("text")).split("\n") if out.get("name") == "stdout" else []
    if kind not in ("display_data", "execute_result", "update_display_data"):
        return []
    data = out.get("data", {})
    pieces = joined(data.get("text/markdown")).split("\n")
    h = joined(data.get("text/html"))
    if h:
        f = _Fragments()
        f.feed(h)
        f.close()
        f.flush()
        pieces += f.pieces
    elif "text/plain" in data:
        pieces += joined(data.get("text/plain")).split("\n")
    return pieces


def check_prose_detector():
    """The detector finds what it must and lets the course's own English through; a detector
    that finds nothing would let every output pass."""
    must = ["no first token within 2500 ms; client gave up", "connect: connection refused",
            "arith:1 What is 23 + 34? Reply with the number only."]
    never = ["TTFT P95 = 2000 ms", "输出 token/秒：29 个 token / 10 s = 2.9 token/s", "vLLM bench serve 的 TTFT",
             "metrics.Summarize(unit, metrics.Options{})", "inter_chunk_latency 与 request_latency",
             "原文：no first token within 2500 ms", "见 https://docs.vllm.ai/en/latest/serving/metrics.html",
             "completed = 27，failed = 6"]
    bad = [s for s in must if not prose(s)] + [s for s in never if prose(s)]
    frag = _Fragments()
    frag.feed("<table><thead><tr><th>尝试</th><th><span>回答</span></th>"
              "<th><span>错误信息</span><br><span>（trace 原文）</span></th></tr></thead>"
              "<tbody><tr><td>q0</td><td>The capital of France is Paris.</td><td>connect: connection refused</td></tr></tbody></table>")
    frag.close()
    if any(prose(p) for p in frag.pieces) or "q0" not in frag.pieces:
        bad.append(f"quoted columns: {frag.pieces}")
    return bad


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
    filled = "--filled" in argv
    argv = [a for a in argv if a != "--filled"]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    executed = argv[1] if len(argv) > 1 else os.path.join(repo, "out", "notebooks")
    committed = argv[2] if len(argv) > 2 else os.path.join(repo, "notebooks")
    detector = check_prose_detector()
    if detector:
        for d in detector:
            print("FAIL the English prose detector is wrong on", repr(d))
        return 1
    want = {os.path.basename(n) for n in notebooks(committed)}
    got = {os.path.basename(n): n for n in notebooks(executed)}
    if filled:
        want &= set(got)  # only the gated notebooks were run filled in
        if not want:
            print(f"FAIL no filled-in copy of a course notebook under {executed} (run make test-notebooks first)")
            return 1
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
                for piece in prose_pieces(out):
                    for sentence in prose(piece):
                        problems.append(f"{name}[{i}]: English prose {sentence!r} in {piece.strip()[:120]!r}")
    for p in problems:
        print("FAIL", p)
    print(f"outputs: {len(want & set(got))} notebooks, {outputs} outputs read, {len(problems)} problems")
    return 1 if problems or outputs == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
