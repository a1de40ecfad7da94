#!/usr/bin/env python3
"""Tests for docker/kernel_proxy.py with the real gonb kernel (the kernelspec of `make lab-setup`),
and for docker/kernel_hints.py (what the proxy reads in Go cells and the Chinese it writes).

They send several execute requests at once, as JupyterLab does for "Run All Cells", and check
the replies and outputs:
  * a compile error gets a Chinese explanation at the top of its output, naming each line in
    the cell and saying what the common slips mean (missing comma, := vs =, unused variable,
    type mismatch, undefined after running out of order), GoNB's own report below it;
  * after a compile error, queued cells that use none of the failed cell's names still run;
    the ones that do (directly, or through a name declared from them) are not run, never
    against the older declaration GoNB still holds, and say why in Chinese; that also holds
    for a later request, until a cell declares the name again;
  * after a runtime error or an interrupt (dependencies unknown) the queue is aborted as
    ipykernel does, unless the request asked not to stop;
  * the kernel keeps working and keeps its declarations; GoNB's log goes to a file, not to the
    kernel's stderr;
  * messages not signed with the connection file's key (a wrong key, no signature, not a
    Jupyter message at all) on the shell, control and stdin ports are dropped with a line in the
    kernel log: a forged execute_request does not run and does not stall the queue, a forged
    interrupt_request neither interrupts nor aborts anything.
Run: python docker/test/kernel_proxy_test.py (JUPYTER_DATA_DIR set as make does).
"""

import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import time

import zmq
from jupyter_client.manager import KernelManager
from jupyter_client.session import Session

HERE = os.path.dirname(os.path.abspath(__file__))
DOCKER = os.path.dirname(HERE)
sys.path.insert(0, DOCKER)  # kernel_hints.py, beside kernel_proxy.py
HINT_MIME = "application/vnd.coursekit.hint+json"
DELIVERABLE = os.path.join(DOCKER, "..", "notebooks", "unit01", "06-deliverable.ipynb")


def settle():
    """Wait out the proxy's batch window (1 s of the client's clock), as a person reading an
    error does, so the next request is a new one and not part of the failed batch."""
    time.sleep(1.5)


class Kernel:
    def __init__(self, tmp):
        self.stderr_path = os.path.join(tmp, "stderr.txt")
        self.stderr = open(self.stderr_path, "wb")
        self.km = KernelManager(kernel_name="gonb")
        self.km.start_kernel(stdout=self.stderr, stderr=self.stderr)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)

    def run_all(self, *cells, stop_on_error=True):
        ids = [self.kc.execute(c, stop_on_error=stop_on_error) for c in cells]
        return self.replies(ids)

    def send(self, code, stop_on_error=True, role=None):
        """An execute request as JupyterLab sends it: the cell's metadata (its coursekit role)
        and its id in the request's metadata."""
        meta = {"cellId": f"cell-{time.monotonic_ns()}"}
        if role:
            meta["coursekit"] = {"role": role}
        msg = self.kc.session.msg("execute_request", {
            "code": code, "silent": False, "store_history": True, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": stop_on_error}, metadata=meta)
        self.kc.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def batch(self, *cells, stop_on_error=True):
        """Send cells (code, or (code, role)) at once; return [{status, reply, outputs}] where
        outputs are the iopub outputs of each, in order: (msg_type, content)."""
        ids = [self.send(c[0], stop_on_error, c[1]) if isinstance(c, tuple) else self.send(c, stop_on_error)
               for c in cells]
        return self.collect(ids)

    def collect(self, ids, timeout=300):
        got = {i: {"reply": None, "outputs": [], "idle": False} for i in ids}
        deadline = time.monotonic() + timeout
        while not all(g["reply"] is not None and g["idle"] for g in got.values()):
            assert time.monotonic() < deadline, f"no complete answer in {timeout} s: {got}"
            for get in (self.kc.get_shell_msg, self.kc.get_iopub_msg):
                try:
                    m = get(timeout=0.05)
                except queue.Empty:
                    continue
                g = got.get(m["parent_header"].get("msg_id"))
                if g is None:
                    continue
                if m["msg_type"] == "execute_reply":
                    g["reply"] = m["content"]
                elif m["msg_type"] == "status":
                    g["idle"] |= m["content"]["execution_state"] == "idle"
                elif m["msg_type"] not in ("execute_input",):
                    g["outputs"].append((m["msg_type"], m["content"]))
        return [dict(got[i], status=got[i]["reply"]["status"]) for i in ids]

    def replies(self, ids, timeout=300):
        got = {}
        deadline = time.monotonic() + timeout
        while len(got) < len(ids):
            m = self.kc.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
            if m["parent_header"].get("msg_id") in ids:
                got[m["parent_header"]["msg_id"]] = m["content"]
        return [got[i] for i in ids]

    def idle_after(self, msg_id, timeout=60):
        """Whether iopub says idle for msg_id (JupyterLab's future waits for it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = self.kc.get_iopub_msg(timeout=max(1, deadline - time.monotonic()))
            if (m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"
                    and m["parent_header"].get("msg_id") == msg_id):
                return True
        return False

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=False)
        self.stderr.close()


def raw_socket(info, channel):
    """A socket of our own on one of the kernel's ports, as any local process could open."""
    s = zmq.Context.instance().socket(zmq.DEALER)
    s.linger = 0
    port = info[f"{channel}_port"]
    s.connect(f"ipc://{info['ip']}-{port}" if info.get("transport") == "ipc" else f"tcp://{info['ip']}:{port}")
    return s


def execute_content(code):
    return {"code": code, "silent": False, "store_history": True, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": True}


def log_lines_after(path, offset, needle, count, timeout=60):
    """The lines of the kernel log written after offset that contain needle, once there are
    count of them (or whatever there is when timeout runs out)."""
    deadline = time.monotonic() + timeout
    while True:
        with open(path, "rb") as f:
            f.seek(offset)
            lines = [l for l in f.read().decode(errors="replace").splitlines() if needle in l]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)


def replies_on(sock, msg_ids, timeout=120):
    """The replies that come back on our own socket, by parent msg_id, until every one of
    msg_ids has its reply (or timeout)."""
    session = Session(key=b"")  # reading only: no check of the kernel's signature here
    got, deadline = {}, time.monotonic() + timeout
    poller = zmq.Poller()
    poller.register(sock, zmq.POLLIN)
    while not all(i in got for i in msg_ids) and time.monotonic() < deadline:
        if poller.poll(200):
            _, frames = session.feed_identities(sock.recv_multipart(), copy=True)
            m = session.deserialize(frames, content=True)
            got[m["parent_header"].get("msg_id")] = m
    return got


def out_text(outputs):
    """What a person reads in these outputs: streams, text/plain, error tracebacks."""
    parts = []
    for kind, c in outputs:
        if kind == "stream":
            parts.append(c.get("text", ""))
        elif kind in ("display_data", "execute_result"):
            parts.append(c.get("data", {}).get("text/plain", ""))
        elif kind == "error":
            parts.append("\n".join(c.get("traceback", [])))
    return "".join(parts)


def after_clear(outputs):
    """The outputs a front end shows: those after the last clear_output."""
    last = max((i for i, (kind, _) in enumerate(outputs) if kind == "clear_output"), default=-1)
    return outputs[last + 1:]


def hint_text(outputs):
    """The text/plain of the Chinese explanation, if the first output is one."""
    if outputs and outputs[0][0] == "display_data" and HINT_MIME in outputs[0][1].get("data", {}):
        return outputs[0][1]["data"].get("text/plain", "")
    return ""


def hint_checks(check):
    """docker/kernel_hints.py without a kernel."""
    try:
        import kernel_hints as H
    except ImportError as e:
        check(False, f"docker/kernel_hints.py imports: {e}")
        return
    nb = json.load(open(DELIVERABLE, encoding="utf-8"))
    code = {c["metadata"].get("coursekit", {}).get("role") or i: "".join(c["source"])
            for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"}
    card = H.scan(code["card"])
    check(card.decls == {"myCard"} and card.certain, f"06: the card cell declares myCard: {card}")
    users = sorted(str(k) for k, v in code.items() if "myCard" in H.scan(v).refs and k != "card")
    pathmap = [str(k) for k, v in code.items() if "paths.Map(myCard" in v]
    check(len(pathmap) == 1 and users == sorted(pathmap + ["selfcheck"]), f"06: the path map and the self-check use it: {users}")
    attempts = [k for k, v in code.items() if "tracefig.Attempts(" in v]
    check(len(attempts) == 1 and "myCard" not in H.scan(code[attempts[0]]).refs, "06: the attempts chart does not")
    data = H.scan(code["data"])
    check(data.decls == {"unit"}, f"06: the data cell declares unit: {data}")
    imports = H.scan(code[min(k for k in code if isinstance(k, int))])
    check(imports.decls == set() and imports.certain,
          f"06: an import cell declares nothing that could go stale (the same package either way): {imports}")

    s = H.scan('var (\n\ta, b = 1,\n\t\t2\n\tc int\n)\ntype T struct{ X int }\nfunc (t T) M() {}\n'
               'func F[P any]() {}\nconst K = "//not a comment"\n// var notDeclared = 1\n'
               'import (\n\tch "github.com/go-echarts/go-echarts/v2/charts"\n\t"fmt"\n)\n%%\nvar local = a\nfmt.Println(local)')
    check(s.decls == {"a", "b", "c", "T", "M", "F", "K"} and s.certain, f"declarations of every kind: {s.decls}")
    check({"a", "local", "Println"} <= s.refs and "notDeclared" not in s.refs, "uses, outside comments")
    s = H.scan("var x = []int{\n\t1,\n")
    check(s.decls == {"x"} and not s.certain, f"an unbalanced cell: its names, but not certain: {s}")
    s = H.scan("!echo hi \\\n  myCard\n%env A b\n%%\nfmt.Println(1)")
    check("myCard" not in s.refs and "echo" not in s.refs, f"special commands are not Go: {sorted(s.refs)}")

    errs, more = H.gonb_errors(open(os.path.join(HERE, "testdata", "gonb-parse-error.html")).read())
    check(errs == [{"exec": 1, "line": 2, "message": "missing ',' before newline in composite literal"}] and more == 2,
          f"GoNB's parse error report: {errs} (+{more})")
    errs, more = H.gonb_errors(open(os.path.join(HERE, "testdata", "gonb-build-error.html")).read())
    check([(e["line"], e["message"].split(":")[0]) for e in errs] == [(2, "declared and not used"), (3, "cannot use \"s\" (untyped string constant) as int value in variable declaration".split(":")[0]), (4, "undefined")]
          and more == 0, f"GoNB's build error report, every error: {errs}")
    t = H.explain("cannot use true (untyped bool constant) as nb.Guess value in struct literal")
    check("nb.Yes" in t and "nb.No" in t and "引号" not in t and "float64(n)" not in t,
          f"04's true/false typed into a yes/no prediction is told nb.Yes/nb.No: {t!r}")
    t = H.explain("syntax error: unexpected newline in composite literal; possibly missing comma or }")
    check(t is not None and "缺了逗号" in t and "最后一行也要" in t,
          f"gc's missing-comma error (the one 00's table names) is told the comma, as go/parser's is: {t!r}")
    check("float64(n)" in H.explain('cannot use "s" (untyped string constant) as int value in variable declaration'),
          "other type errors keep the general explanation")
    check(H.compile_stage('parsing go files in TempDir "/tmp/gonb_1": x') and
          H.compile_stage('failed to run "/usr/local/go/bin/go build -o /tmp/gonb_1/gonb_1": exit status 1')
          and not H.compile_stage("exit status 2"), "compile-stage errors are told from runtime ones")

    broken = code["card"].replace("Attempts:         0,", "Attempts:         0")
    line = broken.split("\n").index(next(l for l in broken.split("\n") if "Attempts:         0" in l and "," not in l.split("//")[0])) + 1
    extra = H.syntax_errors(broken)
    check(extra is not None and extra[:1] == [(line, "missing ',' before newline in composite literal")],
          f"gofmt finds the card's missing comma on line {line}: {extra}")
    text, html, payload = H.compile_hint(broken, 9, [{"exec": 9, "line": line, "message": "missing ',' before newline in composite literal"}],
                                         parse_error=True, extra=extra)
    check(f"第 {line} 行" in text and "Attempts:" in text and "逗号" in text and "整段代码只有这一处" in text
          and payload["lines"] == [line] and "<code>" in html, f"the card's explanation: {text!r}")
    text, _, _ = H.compile_hint(broken, 9, [{"exec": 9, "line": line, "message": "missing ',' before newline in composite literal"}],
                                more=2, parse_error=True, extra=None)
    check("修好这一处后再运行，可能还有下一处" in text and "后面还有 2 处" in text,
          f"without gofmt it says honestly that more may follow: {text!r}")
    check([H.guess_role(code[k]) for k in ("card", "selfcheck", "data")] == ["card", "selfcheck", None],
          "without the cell's metadata (nbclient) the card and the self-check are told by their code")
    t = H.not_run({"myCard"}, {"role": "card", "exec": 12, "line": 30, "stale": True}, "selfcheck")
    check(t.startswith("自检没有运行：") and "指标口径卡单元格" in t and "第 30 行" in t and "运行 → 运行选中的单元格及以下所有" in t,
          f"why the self-check did not run: {t!r}")


def children(pid):
    out = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            out += [int(c) for c in f.read().split()]
    return out


def socket_inodes(pid):
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[len("socket:["):-1])
    return inodes


def tcp_listening_inodes():
    """Inodes of listening TCP sockets (state 0A) in this network namespace."""
    inodes = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = open(name).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            f = row.split()
            if f[3] == "0A":
                inodes.add(f[9])
    return inodes


def unix_socket_paths(inodes):
    paths = []
    for row in open("/proc/net/unix").read().splitlines()[1:]:
        f = row.split()
        if len(f) >= 8 and f[6] in inodes:
            paths.append(f[7])
    return paths


def main():
    failures, checks = [], []

    def check(cond, what):
        checks.append(what)
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    hint_checks(check)

    # A port of Jupyter's connection file that someone took since: the proxy says so in one
    # line naming the file, exits non-zero, and leaves no socket directory behind.
    tmp = tempfile.mkdtemp(prefix="kernel-proxy-test-")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    conn_path = os.path.join(tmp, "kernel-taken.json")
    with open(conn_path, "w") as f:
        json.dump({"transport": "tcp", "ip": "127.0.0.1", "key": "k", "signature_scheme": "hmac-sha256",
                   "shell_port": port, "control_port": 0, "stdin_port": 0, "iopub_port": 0, "hb_port": 0}, f)
    private_tmp = os.path.join(tmp, "tmp")
    os.mkdir(private_tmp)
    spec = KernelManager(kernel_name="gonb").kernel_spec
    p = subprocess.run([spec.argv[0], spec.argv[1], conn_path, "--", "true", "@GONB_CONNECTION_FILE@"],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, TMPDIR=private_tmp))
    taken.close()
    check(p.returncode != 0 and "cannot listen" in p.stderr and conn_path in p.stderr
          and "Traceback" not in p.stderr, f"a taken port is one clear error: rc={p.returncode} {p.stderr.strip()[:300]!r}")
    check(os.listdir(private_tmp) == [], f"a failed start leaves nothing in the temp dir: {os.listdir(private_tmp)}")

    k = Kernel(tmp)
    try:
        # GoNB sits behind the proxy on unix sockets in a private directory: it takes no TCP
        # port that could collide with the ports Jupyter chose for the proxy (a kernel that
        # "died before replying to kernel_info" in an image build), and no local user reaches it.
        gonb = [c for c in children(k.km.provisioner.process.pid)
                if os.path.basename(os.readlink(f"/proc/{c}/exe")) == "gonb"]
        check(len(gonb) == 1, f"the proxy runs one gonb child: {gonb}")
        inodes = socket_inodes(gonb[0]) if gonb else set()
        check(not (inodes & tcp_listening_inodes()), "GoNB listens on no TCP port")
        paths = unix_socket_paths(inodes)
        socket_dirs = {os.path.dirname(p) for p in paths if p.startswith("/")}
        check(len(paths) >= 5 and len(socket_dirs) == 1, f"GoNB listens on unix sockets in one directory: {paths}")
        for d in socket_dirs:
            check(os.stat(d).st_mode & 0o777 == 0o700, f"only the learner can open {d}")

        r = k.run_all('var x = 41\n%%\nfmt.Println("first")',
                      'var y int = "not an int"',
                      '%%\nfmt.Println("runs: it does not use y", x)',
                      '%%\nfmt.Println("must not run", y)')
        check([c["status"] for c in r] == ["ok", "error", "ok", "error"],
              f"after a compile error the queued cells that do not use its names run, the one that does not: "
              f"{[c['status'] for c in r]}")

        settle()
        ids = [k.kc.execute('%%\nfmt.Println("after", x+1)')]
        r = k.replies(ids)
        check(r[0]["status"] == "ok", "the kernel runs the next request and keeps its declarations")
        check(k.idle_after(ids[0]), "iopub reports idle for it")

        # --- the deliverable's case: a card that compiled once, then a missing comma ---------------
        settle()
        r = k.batch(("var myCard = struct{ A, B int }{A: 1, B: 2}", "card"),
                    "var derived = myCard.B * 10",
                    "var base = 7")
        check([c["status"] for c in r] == ["ok"] * 3, f"the first card compiles: {[c['status'] for c in r]}")
        settle()
        broken_card = "// the card\nvar myCard = struct{ A, B int }{\n\tA: 3\n\tB: 4,\n}"
        r = k.batch((broken_card, "card"),
                    '%%\nfmt.Println("independent", base)',
                    ('%%\nfmt.Println("stale card", myCard.A)', "selfcheck"),
                    '%%\nfmt.Println("stale derived", derived)',
                    "var doubled = myCard.A * 2",
                    '%%\nfmt.Println("stale doubled", doubled)')
        check([c["status"] for c in r] == ["error", "ok", "error", "error", "error", "error"],
              f"a broken card: the cell that does not use it runs, every cell that uses it (directly, through "
              f"derived, declared from it earlier, or through doubled, declared from it now) is not run: "
              f"{[c['status'] for c in r]}")
        card_out = r[0]["outputs"]
        first = card_out[0] if card_out else ("none", {})
        hint = first[1].get("data", {}).get("text/plain", "") if first[0] == "display_data" else ""
        check(HINT_MIME in first[1].get("data", {}) and "第 3 行" in hint and "逗号" in hint and "A: 3" in hint,
              f"the card's output starts with the Chinese explanation naming line 3 (as the cell shows it): {first}")
        kinds = [o[0] for o in card_out]
        check(any("gonb-err-location" in o[1].get("data", {}).get("text/html", "") for o in card_out[1:])
              and kinds[-1] == "error", f"GoNB's own report and error follow it: {kinds}")
        check("independent 7" in out_text(r[1]["outputs"]), "the independent cell ran")
        printed = "".join(out_text(c["outputs"]) for c in r[2:])
        check("stale" not in printed, f"nothing ran against the old card: {printed[:300]!r}")
        sc = out_text(r[2]["outputs"])
        check(sc.startswith("自检没有运行") and "指标口径卡单元格" in sc and "第 3 行" in sc and "myCard" in sc
              and "旧版本" in sc, f"the self-check says why it did not run: {sc!r}")
        check(r[2]["reply"].get("ename") and r[2]["reply"].get("evalue", "").startswith("自检没有运行"),
              f"its reply is an error a notebook runner reports: {r[2]['reply']}")
        check("没有运行" in out_text(r[3]["outputs"]) and "derived" in out_text(r[3]["outputs"]),
              f"the cell using derived says why: {out_text(r[3]['outputs'])!r}")

        settle()  # a later request, not part of the batch: still not run against the old card
        r = k.batch('%%\nfmt.Println("later, stale", myCard.A)')
        check(r[0]["status"] == "error" and "stale" not in out_text(r[0]["outputs"]),
              f"a later request using the broken card is not run either: {out_text(r[0]['outputs'])[:200]!r}")
        settle()
        r = k.batch((broken_card.replace("A: 3\n", "A: 3,\n"), "card"), '%%\nfmt.Println("fixed", myCard.A, derived)')
        check([c["status"] for c in r] == ["ok", "ok"] and "fixed 3 40" in out_text(r[1]["outputs"]),
              f"once the card compiles, the cells using it run on the new card: {[c['status'] for c in r]} "
              f"{out_text(r[1]['outputs'])!r}")

        # --- explanations of the common slips ---------------------------------------------------------
        settle()
        r = k.batch('%%\nn := 1\nn := 2\nfmt.Println(n)',
                    '%%\nm = 3\nfmt.Println(m)',
                    '%%\nz := 1\nvar q int = "s"\nfmt.Println(q + 1.5)',
                    'var s1 = []int{\n\t1\n\t2,\n}\nvar s2 = []int{\n\t3\n}',
                    '%%\nfmt.Println(neverDeclared)',
                    '!echo printed-first\nvar bad int = "s"', stop_on_error=False)
        hints = [hint_text(after_clear(c["outputs"])) for c in r]
        check(":=" in hints[0] and "第 3 行" in hints[0] and "改成 `=`" in hints[0], f":= twice: {hints[0]!r}")
        check("第 2 行" in hints[1] and "m := " in hints[1], f"= without a declaration: {hints[1]!r}")
        check("第 2 行" in hints[2] and "没有用到" in hints[2] and "第 3 行" in hints[2] and "类型不对" in hints[2],
              f"unused variable and type mismatch, every error: {hints[2]!r}")
        check("第 2 行（1）、第 6 行（3）：缺了逗号" in hints[3] and "Go 自己只报了第一处" in hints[3],
              f"every syntax error of the cell, not only GoNB's first: {hints[3]!r}")
        check("neverDeclared" in hints[4] and "还没有运行过" in hints[4] and "运行 → 运行所有单元格" in hints[4]
              and "内核 → 重启内核 和 运行所有单元格…" in hints[4], f"undefined, out of order: {hints[4]!r}")
        shown = after_clear(r[5]["outputs"])
        check("第 2 行" in hints[5] and "printed-first" in out_text(shown[1:2]) and shown[-1][0] == "error",
              f"what a special command printed before the compile error moves below the explanation: "
              f"{[(k, out_text([(k, c)])[:40]) for k, c in shown]}")

        # --- runtime errors: dependencies unknown, the queue stops as in ipykernel ---------------------
        settle()
        r = k.run_all('%%\npanic("boom")', '%%\nfmt.Println("must not run after a panic")')
        check([c["status"] for c in r] == ["error", "aborted"],
              f"a runtime error aborts the queued cells: {[c['status'] for c in r]}")

        # JupyterLab's batch can reach the kernel after the error came back: a request the client
        # made with the failed one is aborted, one it made more than the batch window (1 s, client
        # clock) later runs.
        settle()
        failed = k.kc.execute('%%\nos.Exit(3)')
        sent = k.kc.session.msg("execute_request", {"code": '%%\nfmt.Println("late but stale")', "silent": False,
                                                     "store_history": True, "user_expressions": {},
                                                     "allow_stdin": False, "stop_on_error": True})
        r = k.replies([failed])
        late = sent["header"]["msg_id"]
        k.kc.shell_channel.send(sent)  # made before the error reply arrived, sent after it
        settle()
        fresh = k.kc.execute('%%\nfmt.Println("made after the error")')
        r += k.replies([late, fresh])
        check([c["status"] for c in r] == ["error", "aborted", "ok"],
              f"a batched request arriving after the error is aborted, a new one runs: {[c['status'] for c in r]}")

        # A failed cell whose declarations cannot be read (brackets do not balance): unknown, so stop.
        settle()
        r = k.run_all('var open = []int{\n\t1,\n', '%%\nfmt.Println("after an unbalanced cell")')
        check([c["status"] for c in r] == ["error", "aborted"],
              f"a cell whose names cannot be read stops the queue: {[c['status'] for c in r]}")

        settle()
        r = k.batch('var z int = "bad"', '%%\nfmt.Println("runs anyway")', '%%\nfmt.Println("uses", z)',
                    stop_on_error=False)
        check([c["status"] for c in r] == ["error", "ok", "error"] and "uses" not in out_text(r[2]["outputs"]),
              f"stop_on_error=false (the raises-exception tag, nbclient's allow_errors) keeps going, but not into "
              f"a cell using the failed name: {[c['status'] for c in r]}")

        ids = [k.kc.execute('%%\ntime.Sleep(20 * time.Second)'), k.kc.execute('%%\nfmt.Println("queued")')]
        time.sleep(3)
        k.km.interrupt_kernel()
        r = k.replies(ids)
        check(r[1]["status"] == "aborted", f"an interrupt aborts the queue: {[c['status'] for c in r]}")

        settle()
        ids = [k.kc.execute('%%\nfmt.Println("still alive")')]
        check(k.replies(ids)[0]["status"] == "ok", "the kernel works after the interrupt")

        # --- only messages signed with the connection file's key -----------------------------------
        # Any local process can reach the kernel's ports; only the key makes a message Jupyter's.
        settle()
        log_path = open(k.stderr_path, errors="replace").readline().split(": ", 1)[1].strip()
        start = os.path.getsize(log_path)
        info = k.km.get_connection_info()
        scheme = info["signature_scheme"]
        forger = Session(key=b"not the key of this kernel", signature_scheme=scheme)
        signer = Session(key=info["key"], signature_scheme=scheme)
        marker = os.path.join(tmp, "forged-request-ran")
        shell = raw_socket(info, "shell")
        stdin = raw_socket(info, "stdin")
        try:
            forged = forger.send(shell, "execute_request",
                                 execute_content(f'%%\nos.WriteFile({json.dumps(marker)}, []byte("ran"), 0o644)'))
            unsigned = Session(key=b"").send(shell, "execute_request",
                                             execute_content(f'%%\nos.WriteFile({json.dumps(marker)}, []byte("ran"), 0o644)'))
            shell.send_multipart([b"not a jupyter message"])
            forger.send(stdin, "input_reply", {"value": "forged"})
            signed = signer.send(shell, "execute_request", execute_content('%%\nfmt.Println("signed")'))
            got = replies_on(shell, [signed["header"]["msg_id"]])
        finally:
            shell.close()
            stdin.close()
        dropped = log_lines_after(log_path, start, "kernel_proxy: dropped a message", 4)
        check(sum("on shell: bad signature" in l for l in dropped) == 2 and any("on shell: not a Jupyter message" in l for l in dropped)
              and any("on stdin: bad signature" in l for l in dropped),
              f"messages with a wrong key, no signature or no Jupyter framing are dropped with a log line: {dropped}")
        reply = got.get(signed["header"]["msg_id"])
        check(reply is not None and reply["content"].get("status") == "ok",
              f"a signed request from the same socket, sent after them, runs: {reply and reply['content']}")
        check(forged["header"]["msg_id"] not in got and unsigned["header"]["msg_id"] not in got,
              f"the unsigned requests get no reply: {sorted(got)}")
        check(not os.path.exists(marker), "the unsigned requests did not run")

        # A forged interrupt_request, while a cell runs and another waits: neither is touched.
        settle()
        start = os.path.getsize(log_path)
        ids = [k.kc.execute('%%\ntime.Sleep(4 * time.Second)\nfmt.Println("slept")'), k.kc.execute('%%\nfmt.Println("queued")')]
        control = raw_socket(info, "control")
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:  # GoNB works on the first: the second waits in the proxy
                m = k.kc.get_iopub_msg(timeout=120)
                if m["msg_type"] == "status" and m["content"]["execution_state"] == "busy" \
                        and m["parent_header"].get("msg_id") == ids[0]:
                    break
            forger.send(control, "interrupt_request", {})
            r = [c["status"] for c in k.replies(ids, timeout=120)]
        except queue.Empty:
            r = "no answer from the kernel in 120 s"
        finally:
            control.close()
        check(r == ["ok", "ok"],
              f"a forged interrupt_request neither interrupts the running cell nor aborts the queued one: {r}")
        dropped = log_lines_after(log_path, start, "kernel_proxy: dropped a message on control", 1)
        check(len(dropped) == 1 and "bad signature" in dropped[0], f"the forged interrupt is logged: {dropped}")

        # Help (Shift+Tab) comes from gopls and works offline: the doc text, no pkg.go.dev link.
        # The kernel's gopls runs with a soft memory limit (docker/install-kernel.sh).
        code = 'import "strings"\n\nvar q = strings.ToUpper("a")'
        for _ in range(4):  # GoNB gives gopls 8 s a call: a cold start may need a second try
            msg_id = k.kc.inspect(code, cursor_pos=code.index("ToUpper") + 3)
            help_reply = k.replies([msg_id], timeout=180)[0]
            shown = "\n".join(v for v in (help_reply.get("data") or {}).values() if isinstance(v, str))
            if help_reply.get("found") and "还没准备好" not in shown:
                break
        check(help_reply.get("found") and "ToUpper" in shown, f"Shift+Tab shows the doc: {shown[:200]!r}")
        check("pkg.go.dev" not in shown, f"the help has no pkg.go.dev link: {shown[-200:]!r}")
        gopls = [c for c in children(gonb[0]) if os.path.basename(os.readlink(f"/proc/{c}/exe")) == "gopls"]
        argv = [open(f"/proc/{c}/cmdline").read().split("\0") for c in gopls]
        env = [open(f"/proc/{c}/environ").read().split("\0") for c in gopls]
        check(len(gopls) == 1 and any(e.startswith("GOMEMLIMIT=") for e in env[0]),
              f"the kernel's gopls runs with GOMEMLIMIT: {argv}")
    finally:
        k.close()
    for d in socket_dirs:
        check(not os.path.exists(d), f"the socket directory is removed with the kernel: {d}")

    lines = open(k.stderr_path, errors="replace").read().strip().splitlines()
    check(len(lines) == 1 and lines[0].startswith("gonb kernel log: "),
          f"the terminal gets one line naming the log: {lines[:5]!r}")
    log = open(lines[0].split(": ", 1)[1], errors="replace").read() if lines else ""
    tail = log[log.rfind("===="):]  # this kernel's part of the log
    check("Exiting" in tail and "goroutine" in tail, "GoNB's shutdown trace is in the log file")

    print(f"kernel_proxy: {len(checks) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
