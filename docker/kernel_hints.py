"""What docker/kernel_proxy.py knows about Go cells: which names a cell declares and uses, what
GoNB's compile errors say, and the Chinese text a learner reads about them.

Pure Python (no ZeroMQ), so docker/test/kernel_proxy_test.py checks it without a kernel.

* scan(code): the package-level names a GoNB cell declares (var, const, type, func, methods;
  not imports) and every identifier it uses, read by a small Go tokenizer that tolerates the
  broken code of a failed cell. `certain` is False when the declarations cannot be trusted
  (brackets that do not balance, an unterminated string or comment): the proxy then falls back
  to stopping everything queued.
* gonb_errors(html): the errors in GoNB's HTML error report, each with the cell (execution
  count) and the line in that cell as JupyterLab shows it (GoNB's "Cell[N]: Line L", 1-based).
* syntax_errors(code): every syntax error of the cell, from `gofmt -e` on the cell as GoNB
  would parse it (GoNB itself reports only the first one, "(and N more errors)").
* compile_hint(...): the explanation put at the top of a failed cell's output.
* not_run(...): the error a cell gets when it is not run because a name it uses was declared
  in a cell that failed to compile.
"""

import html as htmlmod
import os
import re
import shutil
import subprocess
import tempfile

HINT_MIME = "application/vnd.coursekit.hint+json"

# Menu paths as the zh-CN JupyterLab shows them (JupyterLab 4.6 with jupyterlab-language-pack-zh-CN 4.5,
# read from the menus in the browser).
MENU_RUN_ALL = "运行 → 运行所有单元格"
MENU_RUN_BELOW = "运行 → 运行选中的单元格及以下所有"
MENU_RESTART_RUN_ALL = "内核 → 重启内核 和 运行所有单元格…"  # sic: the spaces are the UI's
MENU_LINE_NUMBERS = "查看 → 显示行号"

# What a cell is called in the text, by its coursekit role (cell metadata, which JupyterLab
# sends with every execute request).
ROLE_NAMES = {"card": "指标口径卡单元格", "selfcheck": "自检", "data": "读入 trace 的数据单元格"}

GO_KEYWORDS = {
    "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for",
    "func", "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select",
    "struct", "switch", "type", "var",
}
CELL_MAGICS = {"%%writefile", "%%script", "%%bash", "%%sh", "%%gx", "%%wasm"}
GONB_PREFIX = "//gonb:"


# --- the cell as Go ---------------------------------------------------------------------------

def _special(line):
    """GoNB's special-command test: '%' or '!' first (after an optional //gonb: prefix)."""
    if line.startswith(GONB_PREFIX):
        line = line[len(GONB_PREFIX):]
    return len(line) > 1 and line[0] in "%!", line


def go_parts(code):
    """The cell's lines split the way GoNB reads them: (top, main, magic).

    top and main are lists of Go lines (1-based line numbers kept: a special-command line is
    blanked, not removed); main holds the lines after `%%` / `%main` (the body of main()), None
    if there is none. magic is True for a cell magic (%%writefile, %%bash, ...): no Go at all."""
    lines = code.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith(GONB_PREFIX):
        first = first[len(GONB_PREFIX):]
    if first.split()[:1] and first.split()[0] in CELL_MAGICS:
        return [], None, True
    top, main = [], None  # main: the body after the %% line (that line blanked, first)
    cont = False
    for line in lines:
        if cont:  # a special command continued with a trailing backslash
            cont = line.rstrip().endswith("\\")
            (top if main is None else main).append("")
            continue
        special, bare = _special(line)
        if special:
            cont = line.rstrip().endswith("\\")
            word = bare.split()[0] if bare.split() else ""
            if word in ("%%", "%main") and main is None:
                main = [""]
                continue
            (top if main is None else main).append("")
            continue
        (top if main is None else main).append(line)
    return top, main, False


def specials(code):
    """The special commands of a cell, e.g. ['%reset', '%rm x y'] (joined continuation lines)."""
    out, cont = [], False
    for line in code.split("\n"):
        special, bare = _special(line)
        if cont:
            out[-1] += " " + line.strip().rstrip("\\")
        elif special:
            out.append(bare.strip().rstrip("\\"))
        cont = (special or cont) and line.rstrip().endswith("\\")
    return out


_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+) | (?P<nl>\n) |
    (?P<comment>//[^\n]*) | (?P<block>/\*.*?\*/) | (?P<openblock>/\*) |
    (?P<raw>`[^`]*`) | (?P<openraw>`) |
    (?P<str>"(?:[^"\\\n]|\\.)*") | (?P<badstr>"(?:[^"\\\n]|\\.)*) |
    (?P<rune>'(?:[^'\\\n]|\\.)*') | (?P<badrune>'(?:[^'\\\n]|\\.)*) |
    (?P<num>\.?\d(?:[eEpP][+-]|[\w.])*) |
    (?P<id>[^\W\d]\w*) |
    (?P<open>[(\[{]) | (?P<close>[)\]}]) |
    (?P<op>\.\.\.|:=|[^\s\w])
""", re.S | re.X)


def tokens(text):
    """(kind, value, line, depth) for every token; depth is the bracket level the token sits at
    (an opening bracket at the outer level). Also whether the text is well formed enough to
    trust: brackets balance and every string and comment ends."""
    out, depth, line, ok = [], 0, 1, True
    for m in _TOKEN.finditer(text):
        kind, value = m.lastgroup, m.group()
        if kind in ("openblock", "openraw", "badstr", "badrune"):
            ok = False
            kind = {"openblock": "comment", "openraw": "str", "badstr": "str", "badrune": "rune"}[kind]
            if kind == "comment":  # the rest of the text is a comment
                break
        if kind == "close":
            depth -= 1
            if depth < 0:
                ok, depth = False, 0
        if kind not in ("ws", "nl", "comment", "block"):
            out.append((kind, value, line, depth))
        if kind == "open":
            depth += 1
        line += value.count("\n")
    return out, ok and depth == 0


def _ends_statement(tok):
    kind, value = tok[0], tok[1]
    return kind in ("id", "num", "str", "rune") or value in (")", "]", "}")


def top_decls(toks):
    """The package-level names declared in a token list (see tokens). Imports are not counted:
    a failed cell leaves GoNB with an import of the same package, which goimports would add
    anyway, so a cell using it runs against nothing stale."""
    decls = set()
    i, n = 0, len(toks)
    while i < n:
        kind, value, _, depth = toks[i]
        if depth != 0 or kind != "id" or value not in ("var", "const", "type", "func", "import"):
            i += 1
            continue
        j = i + 1
        if value == "func":
            if j < n and toks[j][1] == "(":  # a method: skip the receiver
                j += 1
                while j < n and not (toks[j][1] == ")" and toks[j][3] == 0):
                    j += 1
                j += 1
            if j < n and toks[j][0] == "id":
                decls.add(toks[j][1])
            i = j + 1
            continue
        if j < n and toks[j][1] == "(":  # a group: one spec per statement inside
            j += 1
            start, prev = True, None
            while j < n and not (toks[j][1] == ")" and toks[j][3] == 0):
                tok = toks[j]
                if tok[3] == 1 and prev is not None and tok[2] > prev[2] and _ends_statement(prev):
                    start = True
                if tok[3] == 1 and tok[1] == ";":
                    start, prev = True, tok
                    j += 1
                    continue
                if start and tok[3] == 1:
                    start = False
                    j = _spec(toks, j, value, decls) - 1
                    tok = toks[j]
                prev = tok
                j += 1
            i = j + 1
            continue
        i = _spec(toks, j, value, decls)
    return decls


def _spec(toks, j, keyword, decls):
    """Read one spec's names at toks[j] into decls; return the index after them."""
    n = len(toks)
    if keyword == "import":  # [name] "path": skipped
        return j + 2 if j + 1 < n and toks[j + 1][0] == "str" and toks[j][0] != "str" else j + 1
    while j < n and toks[j][0] == "id" and toks[j][1] not in GO_KEYWORDS:
        decls.add(toks[j][1])
        if keyword == "type" or not (j + 1 < n and toks[j + 1][1] == ","):
            return j + 1
        j += 2
    return j


_LINE_DECL = re.compile(r"^(?:var|const|type)\s+([^\W\d]\w*)|^func\s+(?:\([^)]*\)\s*)?([^\W\d]\w*)")


class Scan:
    """What a cell declares at package level and which identifiers it uses."""

    def __init__(self, decls, refs, certain, go=True):
        self.decls, self.refs, self.certain, self.go = decls, refs, certain, go

    def __repr__(self):
        return f"Scan(decls={sorted(self.decls)}, refs={len(self.refs)}, certain={self.certain})"


def scan(code):
    top, main, magic = go_parts(code)
    if magic:
        return Scan(set(), set(), True, go=False)
    ttoks, tok_ok = tokens("\n".join(top))
    decls = top_decls(ttoks)
    if not tok_ok:  # unbalanced: also every line that starts like a declaration
        for line in top:
            m = _LINE_DECL.match(line)
            if m:
                decls.add(m.group(1) or m.group(2))
    mtoks, _ = tokens("\n".join(main or []))
    refs = {t[1] for t in ttoks + mtoks if t[0] == "id" and t[1] not in GO_KEYWORDS}
    return Scan(decls, refs, tok_ok)


# --- GoNB's error report -------------------------------------------------------------------------

_ERR_LINE = '<div style="white-space: pre-wrap;">'
_CELL_INFO = re.compile(r'<span class="gonb-cell-line-info">(?:Cell\[(\d+)\]: Line (\d+)|Cell Line (\d+))</span>')
_LOCATION = re.compile(r'<span class="gonb-err-location">(.*?)</span></span>(.*?)(?:<div class="gonb-err-context">|$)', re.S)
_MORE = re.compile(r"\s*\(and (\d+) more errors?\)\s*$")


def is_gonb_error_html(text):
    return "gonb-err-location" in text or "gonb-cell-line-info" in text


def gonb_errors(report):
    """[{exec, line, message}] from GoNB's HTML error report (exec: the execution count of the
    cell the line is in, None when GoNB did not say; line: 1-based, as JupyterLab numbers it),
    and how many more errors GoNB left out ("(and N more errors)")."""
    errors, more = [], 0
    for block in report.split(_ERR_LINE)[1:]:
        info = _CELL_INFO.search(block)
        loc = _LOCATION.search(block)
        if loc:
            message = htmlmod.unescape(re.sub(r"<[^>]*>", "", loc.group(2))).strip()
        else:
            message = htmlmod.unescape(re.sub(r"<[^>]*>", "", block.split("</div>", 1)[0])).strip()
            if not message or message.startswith("# "):  # "# gonb_1234abcd": go build's package line
                continue
        mm = _MORE.search(message)
        if mm:
            more += int(mm.group(1))
            message = message[:mm.start()]
        exec_count = line = None
        if info:
            if info.group(1):
                exec_count, line = int(info.group(1)), int(info.group(2))
            else:
                line = int(info.group(3))
        errors.append({"exec": exec_count, "line": line, "message": message})
    return errors, more


def compile_stage(evalue):
    """Whether GoNB's error came before the program ran (parse, goimports, go get, go build):
    then GoNB kept the declarations it had, not this cell's."""
    v = str(evalue or "")
    return (v.startswith("parsing go files in TempDir")
            or v.startswith("while composing main.go")
            or bool(re.match(r'failed to run "[^"]*(go build|go test -c|goimports|go get)\b', v)))


def syntax_errors(code, gofmt=None, timeout=10):
    """Every syntax error of the cell, [(line, message)], one per line, from `gofmt -e` on the
    cell as GoNB parses it (package clause on line 1, `%%` as func main, special commands
    blanked: line numbers stay the cell's). None when gofmt is missing or fails to run."""
    gofmt = gofmt or shutil.which("gofmt")
    top, main, magic = go_parts(code)
    if magic or not gofmt:
        return None
    lines = list(top)
    if main is not None:
        lines += ["func main() {"] + main[1:] + ["}"]
    src = "package main; " + "\n".join(lines)
    with tempfile.TemporaryDirectory(prefix="kernel-hints-") as d:
        path = os.path.join(d, "cell.go")
        with open(path, "w", encoding="utf-8") as f:
            f.write(src)
        try:
            p = subprocess.run([gofmt, "-e", path], capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired):
            return None
    out, seen = [], set()
    for line in p.stderr.splitlines():
        m = re.match(r".*?cell\.go:(\d+):(\d+): (.*)$", line)
        if m and int(m.group(1)) not in seen:
            seen.add(int(m.group(1)))
            out.append((int(m.group(1)), m.group(3)))
    return out


# --- the explanations ------------------------------------------------------------------------------

def _code(s):
    return f"`{s}`"


def explain(message, source_line=""):
    """One Go error message in plain Chinese, or None when there is nothing useful to add."""
    # go/parser's wording (GoNB's parse step), then gc's (go build).
    m = (re.match(r"missing ',' before newline in (composite literal|argument list|parameter list)", message)
         or re.match(r"syntax error: unexpected newline in (composite literal|argument list|parameter list); possibly missing comma", message))
    if m:
        where = {"composite literal": "在 { } 里一项一行地写字段或元素时",
                 "argument list": "调用函数时参数一行一个地写时",
                 "parameter list": "函数的参数一行一个地写时"}[m.group(1)]
        return f"缺了逗号：{where}，每一行的末尾都要有英文逗号“,”，最后一行也要。在所指那一行的末尾补上“,”。"
    if re.match(r"missing ',' in (composite literal|argument list|parameter list)", message):
        return "缺了逗号：同一行里的两项之间要用英文逗号“,”隔开。"
    if message.startswith("no new variables on left side of :="):
        return ("`:=` 的意思是“声明新变量并赋值”，可左边的变量都已经声明过了。"
                "要给已有的变量换个值，把 `:=` 改成 `=`；真要一个新变量，就换个名字。")
    m = re.match(r"undefined: ([^\W\d][\w.]*)$", message)
    if m:
        name = m.group(1)
        if re.match(rf"^\s*(?:[\w.]+\s*,\s*)*{re.escape(name)}\s*(?:,\s*[\w.]+\s*)*=(?!=)", source_line or ""):
            return (f"{_code(name)} 还没有声明，不能直接用 `=` 赋值：`=` 只能给已经有的变量换值。"
                    f"第一次出现时写 `{name} := …`（声明并赋值），或者先写 `var {name} 类型`。")
        return f"{_code(name)} 没有声明（原因和办法见下）。"
    m = re.match(r"declared and not used: (\w+)$", message) or re.match(r"(\w+) declared (?:and|but) not used", message)
    if m:
        return (f"变量 {_code(m.group(1))} 声明了却没有用到，Go 把这当作错误。"
                f"用上它，或者删掉这一行；想暂时留着，可以加一行 `_ = {m.group(1)}`。")
    m = re.match(r'"([^"]+)" imported(?: as \w+)? and not used', message) or re.match(r"imported and not used: \"?([^\"]+)\"?", message)
    if m:
        return f"导入了包 {_code(m.group(1))} 却没有用到，Go 把这当作错误。删掉这一行 import，或者用上它。"
    m = re.search(r"mismatched types (\S+) and (\S+?)\)?$", message)
    if m:
        return (f"类型不一致：{_code(m.group(1))} 和 {_code(m.group(2))} 不能直接放在一起运算，Go 不会自动转换。"
                f"把其中一个显式转换成另一个的类型，例如 `float64(n)`。")
    m = re.match(r"cannot use (true|false) \(untyped bool constant\) as (?:\S*\.)?Guess value", message)
    if m:
        return (f"是非题的预测不写 {_code(m.group(1))}：写 `nb.Yes`（是）或 `nb.No`（否）。"
                "预测的类型是 `nb.Guess`，它还要能表示“还没填”（`nb.Undecided`），所以不用 true/false。")
    m = re.match(r"cannot use (.+?) \((.+?)\) as (.+?) value in .+$", message)
    if m:
        kind = m.group(2)
        t = re.search(r"of type (.+)$", kind)
        u = re.search(r"untyped (\w+) constant", kind)
        got = t.group(1) if t else UNTYPED.get(u.group(1), u.group(1)) if u else kind
        return (f"类型不对：这里要的是 {_code(m.group(3))}，给的 {_code(m.group(1))} 却是 {got}。"
                "Go 不会自动在数字和文字、整数和小数之间转换：换成要求的类型的值（文字加引号，数字不加），"
                "或者显式转换，例如 `float64(n)`。")
    m = re.match(r"unknown field (\w+) in struct literal(?: of type (\S+))?", message)
    if m:
        of = f" {_code(m.group(2))} " if m.group(2) else "这个结构体"
        return f"{of}里没有叫 {_code(m.group(1))} 的字段：检查拼写和大小写（Go 区分大小写），字段名可以回看说明里的表。"
    m = re.match(r"(\w+) redeclared in this block", message)
    if m:
        return f"{_code(m.group(1))} 在同一处声明了两次：换个名字，或者删掉其中一个。"
    if re.match(r"(syntax error|expected )", message):
        return "语法错误：Go 读到这里时发现代码结构不完整。常见原因：括号 ( ) { } 没有配对，引号没有闭合，或者上一行少了逗号。"
    if message.startswith("too many errors"):
        return "Go 最多报 10 处错误，后面的没有列出来：修好这些再运行一次。"
    if message.startswith("missing return"):
        return "函数写明了要返回值，但有一条路径走到末尾也没有 return。"
    if re.search(r"\(\w+ of type [^)]+\) is not used$|is not used$", message):
        return "这一行算出了一个值，却没有用它（没有赋给变量，也没有打印）。"
    return None


UNTYPED = {"string": "文字（字符串）", "int": "整数", "float": "小数", "rune": "字符", "bool": "布尔值"}


def _quote(line, limit=60):
    s = re.sub(r"\s+", " ", (line or "").strip())
    if len(s) > limit:
        s = s[:limit] + "…"
    return s


def undefined_text(names):
    """Why `undefined: x` after running cells out of order or after a restart, and what to do."""
    shown = "、".join(_code(n) for n in names)
    return (f"{shown} 没有声明。它多半是在别的单元格里声明的，而那个单元格在这个内核里还没有运行过："
            "可能是跳着运行了，也可能是内核重启过（重启会清空所有声明）。"
            "办法：先运行声明它的那个单元格（通常在上面），再运行这一个；分不清是哪一个，就用菜单"
            f"“{MENU_RUN_ALL}”从头按顺序运行一遍，或者“{MENU_RESTART_RUN_ALL}”从干净的内核重来。"
            "如果整本笔记本里都找不到它的声明，那就是拼写或大小写错了（Go 区分大小写）；"
            "每本笔记本有自己的内核，别的笔记本里声明的名字，在这里要再声明一次。")


def compile_hint(code, exec_count, errors, more=0, parse_error=False, extra=None):
    """The Chinese explanation of a failed compile, as (text, html, payload).

    errors: gonb_errors(...) of GoNB's report; more: the errors GoNB left out; parse_error:
    GoNB stopped at a syntax error; extra: syntax_errors(code) (all syntax errors of the cell,
    None if unknown)."""
    lines = code.split("\n")
    items = []  # (where, quote, explanation, go_text)
    undefined = []
    for e in errors:
        line, here = e["line"], e["exec"] in (None, exec_count)
        src = lines[line - 1] if line and here and 0 < line <= len(lines) else ""
        if here and line:
            where = f"第 {line} 行"
        elif line:
            where = f"执行编号 [{e['exec']}] 的单元格第 {line} 行"
        else:
            where = ""
        expl = explain(e["message"], src)
        m = re.match(r"undefined: ([^\W\d][\w.]*)$", e["message"])
        if m and "原因和办法见下" in (expl or "") and m.group(1) not in undefined:
            undefined.append(m.group(1))
        items.append({"where": where, "line": line if here else None, "quote": _quote(src), "explain": expl,
                      "go": e["message"]})
    # Syntax errors GoNB left out, found by gofmt on the same cell: after GoNB's first one.
    listed_all = False
    if parse_error and extra:
        first = next((i["line"] for i in items if i["line"]), None)
        if first is not None and extra[0][0] == first:
            for line, msg in extra[1:]:
                src = lines[line - 1] if 0 < line <= len(lines) else ""
                items.append({"where": f"第 {line} 行", "line": line, "quote": _quote(src),
                              "explain": explain(msg, src), "go": msg})
            listed_all = True
    n = len(items)
    head = f"编译没有通过，这个单元格的代码一行也没有运行。Go 报了 {n} 处错误：" if n != 1 else \
        "编译没有通过，这个单元格的代码一行也没有运行。Go 报的错误在这里："
    items = _grouped(items)
    notes = []
    if parse_error:
        if listed_all and n > 1:
            notes.append("Go 自己只报了第一处，其余的是把整段代码检查一遍找到的；有的可能是前一处连带出来的，"
                         "修好后再运行一次就知道。")
        elif listed_all:
            notes.append("整段代码只有这一处语法错误。")
        else:
            notes.append("Go 在第一处语法错误就停下了"
                         + (f"（它说后面还有 {more} 处）" if more else "")
                         + "：修好这一处后再运行，可能还有下一处。")
    if any(i["lines"] for i in items):
        notes.append(f"行号从单元格第一行数起；单元格左边没有行号时，用菜单“{MENU_LINE_NUMBERS}”打开。")
    notes.append("下面是 Go 的原始报错（英文）。")

    text = [head]
    for i in items:
        lead = "、".join(w + (f"（{q}）" if q else "") for w, q in i["places"]) + "：" if i["places"] else ""
        text.append(f"· {lead}{i['explain'] or ''}")
        text.append(f"  Go 原文：{i['go']}")
    if undefined:
        text.append(undefined_text(undefined))
    text += notes
    h = ['<div class="coursekit-hint" style="border-left:4px solid #d9a400;background:#fff8e1;color:#333;'
         'padding:6px 10px;margin:2px 0;font-family:var(--jp-ui-font-family,sans-serif);line-height:1.6">',
         f"<div><b>{htmlmod.escape(head)}</b></div><ul style=\"margin:4px 0;padding-left:1.4em\">"]
    for i in items:
        places = "、".join(f"<b>{htmlmod.escape(w)}</b>" + (f"（<code>{htmlmod.escape(q)}</code>）" if q else "")
                          for w, q in i["places"])
        expl = _html_code(i["explain"]) if i["explain"] else ""
        h.append(f"<li>{places + '：' if places else ''}{expl}"
                 f"<br><span style=\"color:#777\">Go 原文：<code>{htmlmod.escape(i['go'])}</code></span></li>")
    h.append("</ul>")
    if undefined:
        h.append(f'<p class="coursekit-hint-undefined" style="margin:4px 0">{_html_code(undefined_text(undefined))}</p>')
    for note in notes:
        h.append(f'<p style="margin:4px 0;color:#555">{_html_code(note)}</p>')
    h.append("</div>")
    payload = {"kind": "compile-error", "exec": exec_count, "undefined": undefined,
               "lines": sorted({line for i in items for line in i["lines"]})}
    return "\n".join(text) + "\n", "".join(h), payload


def _grouped(items):
    """Errors with the same Go message as one item listing every place (line and quote)."""
    out, by_msg = [], {}
    for i in items:
        g = by_msg.get(i["go"])
        if g is None:
            g = by_msg[i["go"]] = {"places": [], "lines": [], "explain": i["explain"], "go": i["go"]}
            out.append(g)
        if i["where"]:
            g["places"].append((i["where"], i["quote"]))
        if i["line"]:
            g["lines"].append(i["line"])
    return out


def _html_code(text):
    """Escape text and turn `x` into <code>x</code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", htmlmod.escape(text))


def guess_role(code):
    """The coursekit role of a cell from its code, for clients that do not send the cell's
    metadata (nbclient, so `coursekit grade --execute`): the card and the self-check."""
    if re.search(r"(?m)^var\s+\w+\s*=\s*card\.Card\{", code):
        return "card"
    if re.search(r"\bnb\.SelfCheck\(", code):
        return "selfcheck"
    return None


def cell_name(role, exec_count=None):
    if role in ROLE_NAMES:
        return ROLE_NAMES[role]
    return f"执行编号 [{exec_count}] 的单元格" if exec_count else "一个单元格"


def not_run(names, cause, role=None):
    """The text of a cell that was not run: it uses names whose declaring cell failed to compile.

    cause: {"role", "exec", "line", "stale"} of the failed cell (stale: the kernel still holds an
    older version of the names); "via": the role/exec of a cell between (not run either)."""
    who = "自检没有运行" if role == "selfcheck" else "这个单元格没有运行"
    shown = "、".join(_code(n) for n in sorted(names))
    failed = cell_name(cause.get("role"), cause.get("exec"))
    where = f"（第 {cause['line']} 行）" if cause.get("line") else ""
    if cause.get("via"):
        why = (f"它用到的 {shown} 在一个同样没有运行的单元格里声明，"
               f"那个单元格依赖上面编译失败的{failed}{where}。")
    else:
        why = f"它用到的 {shown} 在上面的{failed}里声明，而那个单元格编译失败了{where}。"
    stale = ("内核里还留着它上一次编译通过时的旧版本，现在运行只会用那个旧版本。" if cause.get("stale") else "")
    again = (f"修好那一处，再从{failed}开始运行到这里（菜单“{MENU_RUN_BELOW}”）。"
             if cause.get("role") else
             f"修好那一处并运行它，再运行这个单元格（或者用菜单“{MENU_RUN_ALL}”）。")
    return f"{who}：{why}{stale}{again}"
