#!/usr/bin/env python3
"""Run the GoNB kernel behind a small ZeroMQ proxy: cells that depend on a failed cell do not run,
and a compile error is explained in Chinese.

    python kernel_proxy.py CONNECTION_FILE -- GONB_ARGV...   (GONB_ARGV holds @GONB_CONNECTION_FILE@)

Jupyter starts this script as the kernel (docker/install-kernel.sh writes it into kernel.json,
with docker/kernel_hints.py beside it). It binds the ports of Jupyter's connection file, starts
GoNB on a connection file of its own (unix sockets in a private directory, so GoNB takes no TCP
port), and passes every message through, with these differences a learner notices:

* Cells that depend on a failed cell do not run; the others do. JupyterLab sends all cells of
  "Run All Cells" at once, each execute_request with stop_on_error=true, and relies on the
  kernel to stop. GoNB v0.11.4 ignores stop_on_error; worse, when a cell fails to compile it
  keeps the previous declarations of that cell's names (it commits declarations only after a
  successful build), so a cell run after a broken card cell runs against the previous card:
  the deliverable's self-check would check a card the learner no longer has. So execute
  requests go to GoNB one at a time, and what happens after a failure depends on its kind:
  - A compile error (GoNB's error says it failed parsing, in goimports, go get or go build:
    nothing ran) makes the cell's package-level names "broken": the names it declares now
    (kernel_hints.scan reads them from the cell, tolerating the broken code) and those it
    declared the last time it compiled (by JupyterLab's cell id). A cell that uses a broken
    name is not run: it gets an error output and reply in Chinese naming the failed cell (by
    its coursekit role, e.g. 指标口径卡单元格, else by its execution count) and its first error
    line. What such a cell declares is broken too, and so is every name GoNB holds whose
    declaring cell used a broken name (GoNB evaluates those again in every program, with the
    old declaration). Every other cell runs: the path map waits for the card, the attempts
    chart does not. A name stays broken for later requests too, not only for the rest of the
    batch, until a cell that declares it compiles (or %reset / %rm, or a kernel restart):
    a dependent cell never runs against an older declaration. This holds whatever the
    request's stop_on_error (nbclient's allow_errors sends false): a later cell's run on a
    stale declaration is never what anyone asked for.
  - When the failed cell's names cannot be read with confidence (its brackets do not balance,
    a string or comment does not end), the proxy falls back to what follows.
  - A runtime error (a panic, a non-zero exit) or an interrupt: dependencies are unknown (GoNB
    did commit the cell's declarations, and a panicking package-level initializer breaks every
    later program), so, if the request asked for stop_on_error, every request queued behind it
    gets the "aborted" reply ipykernel sends, with the busy/idle status JupyterLab waits for.
    Such an error comes back within milliseconds, before the rest of JupyterLab's batch has
    even reached the proxy; so a request from the same client that it made within
    BATCH_WINDOW_S of the failed one (plus the time the proxy held that one) is aborted too.
    Both times are differences of one clock (the client's header dates, the proxy's own hold
    time), so clock skew between browser and server does not matter. Like ipykernel's
    stop_on_error_timeout, but measured where the batch was made: nobody reads an error and
    runs the next cell that fast.
  A request is done when GoNB's reply and its "idle" for it have both come (IDLE_GRACE_S if
  the idle never does); only then is the next one judged, with everything the failed one said.
* A compile error explained in Chinese, at the top of the cell's output. GoNB reports a compile
  error as an HTML report (each error with "Cell[N]: Line L", L counted as JupyterLab numbers
  the cell's lines) followed by an error message. The proxy holds the report until the error
  message confirms a compile-stage failure, then publishes, before it, a display_data
  (application/vnd.coursekit.hint+json, text/html, text/plain) that names each line, quotes it,
  and says what the common slips mean (missing comma, := vs =, undefined after =, unused
  variable or import, type mismatch; undefined names: declared in a cell that has not run in
  this kernel, with the zh-CN menu paths that fix it). GoNB stops at the first syntax error
  ("(and N more errors)"); the proxy lists the others from `gofmt -e` on the same cell, or, if
  gofmt is missing, says honestly that more may follow. Anything the cell printed before (its
  special commands) is cleared and re-published below the explanation. The course's lab
  extension renders the hint and adds which cell declares an undefined name. GoNB's own report
  and error stay, below. A failure in this reading is logged to GoNB's log and never stops the
  kernel (Proxy.safely).
* A quiet terminal. GoNB logs to stderr (e.g. a goroutine stack trace on every shutdown,
  which reads as a crash in the `make lab` terminal). Its stdout and stderr go to a log file:
  $COURSE_KERNEL_LOG_DIR/gonb.log (default ~/.local/state/coursekit), renamed to gonb.log.1
  when it passes 10 MB. The one line written to the terminal names that file.

* A known kernel status and an unmodified notebook on open. JupyterLab ignores status messages
  caused by kernel_info requests, and GoNB publishes no other before the first cell, so the
  lab showed "unknown" until then; after each kernel_info_reply the proxy publishes "idle"
  (without a parent) when GoNB is idle. JupyterLab also copies the reply's language_info into
  the notebook, which marked every committed notebook modified as soon as it opened: GoNB adds
  the Go patch version of the machine and empty fields. The proxy sends only the stable part,
  {"name": "go", "file_extension": ".go", "mimetype": "text/x-go"}, which the notebooks carry.

* Only signed requests. Every message that comes in on the shell, control and stdin ports is
  checked against the HMAC of Jupyter's connection file (its key and signature_scheme, compared
  with hmac.compare_digest) before the proxy reads it: a message with a wrong or missing
  signature, or one that is not a Jupyter message at all, is dropped with a line in the kernel
  log. It is not queued, cannot abort the queue (an interrupt_request), and never reaches GoNB.
  With an empty key (Jupyter's "no signing") every message is taken, as the protocol says.

Everything else (shell, control, stdin, iopub) is forwarded unchanged; the proxy signs only the
messages it makes or changes, with the key of Jupyter's connection file (GoNB gets the same key).
"""

import datetime
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import uuid

import zmq

import kernel_hints as hints  # beside this file (install-kernel.sh copies both)

DELIM = b"<IDS|MSG>"
PLACEHOLDER = "@GONB_CONNECTION_FILE@"
LOG_MAX_BYTES = 10 * 1000 * 1000
# Requests a client made this soon after one that failed belong to the same batch.
BATCH_WINDOW_S = 1.0
# GoNB says "idle" for a request right after its reply; if that never comes, move on after this.
IDLE_GRACE_S = 3.0
# Outputs of the running request kept to put an explanation above them (a compile error comes
# before the program runs: only special commands' output can precede it).
KEEP_OUTPUTS = 64
KEEP_BYTES = 1 << 20
OUTPUT_TYPES = ("stream", "display_data", "execute_result", "update_display_data")
# The language_info every course notebook carries (docker/nbrun.py --check-clean checks it).
LANGUAGE_INFO = {"name": "go", "file_extension": ".go", "mimetype": "text/x-go"}


def client_time(header):
    """The request's date (the client's clock), or None."""
    try:
        d = datetime.datetime.fromisoformat(str(header.get("date", "")).replace("Z", "+00:00"))
    except ValueError:
        return None
    return d if d.tzinfo else d.replace(tzinfo=datetime.timezone.utc)


# A link to the online package docs in gopls' hover text, as markdown or as plain text.
PKG_GO_DEV_LINK = re.compile(r"\[[^\]\n]*\]\(https?://pkg\.go\.dev/[^)\s]*\)")
PKG_GO_DEV_URL = re.compile(r"https?://pkg\.go\.dev/\S*")


# What GoNB answers to Shift+Tab when gopls did not answer within its 8 s (still loading the
# notebook's packages, typically the first minute of a kernel on a busy machine).
HELP_NOT_READY = ("context deadline exceeded", "gopls client not connected")
HELP_NOT_READY_ZH = "帮助还没准备好：gopls 正在读入这份笔记本用到的代码包。过几秒再按一次 Shift+Tab。"


def offline_help(content):
    """Drops the pkg.go.dev links from an inspect_reply's data in place, and says in Chinese
    when gopls was not ready yet; whether it changed anything."""
    data = content.get("data")
    if not isinstance(data, dict):
        return False
    changed = False
    for mime, text in data.items():
        if isinstance(text, str) and any(e in text for e in HELP_NOT_READY) and len(text) < 200:
            data[mime] = HELP_NOT_READY_ZH
            changed = True
            continue
        if not isinstance(text, str) or "pkg.go.dev" not in text:
            continue
        text = PKG_GO_DEV_URL.sub("", PKG_GO_DEV_LINK.sub("", text))
        data[mime] = re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"
        changed = True
    return changed


def endpoint(conn, port):
    """A ZeroMQ address the way Jupyter and GoNB spell it: tcp://IP:PORT or ipc://IP-PORT."""
    if conn.get("transport", "tcp") == "ipc":
        return f"ipc://{conn['ip']}-{port}"
    return f"tcp://{conn['ip']}:{port}"


def inner_connection(conn, sock_dir):
    """GoNB's own connection: unix sockets in a private directory, never TCP ports.

    Free TCP ports chosen here would stay free only until someone binds them: GoNB, started
    first, could take a port Jupyter had chosen for the proxy (then the proxy cannot bind it
    and "the kernel died before replying to kernel_info"), and any local user could reach
    GoNB's sockets. Unix sockets in a 0700 directory have neither race nor audience."""
    return dict(conn, transport="ipc", ip=os.path.join(sock_dir, "gonb"),
                shell_port=1, control_port=2, stdin_port=3, iopub_port=4, hb_port=5)


def open_log():
    log_dir = os.environ.get("COURSE_KERNEL_LOG_DIR") or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state"), "coursekit")
    try:
        os.makedirs(log_dir, exist_ok=True)
        path = os.path.join(log_dir, "gonb.log")
        if os.path.exists(path) and os.path.getsize(path) > LOG_MAX_BYTES:
            os.replace(path, path + ".1")
        return path, open(path, "ab", buffering=0)
    except OSError:  # an unwritable home: keep the log, in the temp dir
        fd, path = tempfile.mkstemp(prefix="gonb-", suffix=".log")
        return path, os.fdopen(fd, "ab", buffering=0)


class Request:
    """One execute request, from its arrival to GoNB's reply and "idle"."""

    def __init__(self, frames, header, content, metadata, arrival):
        self.frames, self.header, self.arrival = frames, header, arrival
        self.id = header.get("msg_id")
        self.code = str(content.get("code", ""))
        self.silent = bool(content.get("silent", False))
        self.stop = bool(content.get("stop_on_error", True)) and not self.silent
        meta = metadata if isinstance(metadata, dict) else {}
        ck = meta.get("coursekit")
        self.role = (ck.get("role") if isinstance(ck, dict) else None) or hints.guess_role(self.code)
        self.cell_id = meta.get("cellId") if isinstance(meta.get("cellId"), str) else None
        self._scan = None
        self.exec_count = None  # from execute_input
        self.outputs, self.kept_bytes, self.overflow = [], 0, False  # GoNB's outputs so far
        self.held = None  # GoNB's error report, held until its error message says what it is
        self.errors = []  # gonb_errors of that report
        self.reply, self.reply_at, self.idle = None, None, False

    @property
    def scan(self):
        if self._scan is None:
            self._scan = hints.scan(self.code)
        return self._scan

    def first_line(self):
        """The first error line GoNB gave in this cell itself."""
        return next((e["line"] for e in self.errors if e["line"] and e["exec"] in (None, self.exec_count)), None)


class Proxy:
    def __init__(self, conn, inner):
        self.key = conn["key"].encode()
        scheme = conn.get("signature_scheme", "hmac-sha256")
        self.digest = getattr(hashlib, scheme.split("-", 1)[1]) if self.key else None
        self.session = uuid.uuid4().hex
        ctx = zmq.Context.instance()

        def front(kind, port):
            s = ctx.socket(kind)
            s.linger = 1000
            s.bind(endpoint(conn, port))
            return s

        def back(kind, port, ident=None):
            s = ctx.socket(kind)
            s.linger = 1000
            if ident:
                s.setsockopt(zmq.ROUTING_ID, ident)
            s.connect(endpoint(inner, port))
            return s

        # GoNB routes stdin input requests by the identity of the shell request, so the
        # proxy's shell and stdin sockets towards GoNB share one identity.
        ident = b"coursekit-proxy-" + self.session.encode()[:8]
        self.shell = front(zmq.ROUTER, conn["shell_port"])
        self.control = front(zmq.ROUTER, conn["control_port"])
        self.stdin = front(zmq.ROUTER, conn["stdin_port"])
        self.iopub = front(zmq.PUB, conn["iopub_port"])
        self.hb = front(zmq.REP, conn["hb_port"])
        self.b_shell = back(zmq.DEALER, inner["shell_port"], ident)
        self.b_control = back(zmq.DEALER, inner["control_port"])
        self.b_stdin = back(zmq.DEALER, inner["stdin_port"], ident)
        self.b_iopub = back(zmq.SUB, inner["iopub_port"])
        self.b_iopub.setsockopt(zmq.SUBSCRIBE, b"")
        self.running = None  # the Request GoNB is working on
        self.queue = []  # Requests waiting for it
        self.abort_before = None  # (client session, client time) after a runtime error: older requests abort
        # Names whose latest declaration failed to compile: name -> the cause a cell using it is told
        # ({"role", "exec", "line", "stale", "via"}). GoNB keeps the previous declaration then.
        self.broken = {}
        self.declared = set()  # names a cell declared and GoNB compiled, in this kernel
        self.uses = {}  # name -> the names its declaring cell used (GoNB re-evaluates it with them)
        self.cell_decls = {}  # JupyterLab cell id -> the names it declared when it last compiled
        self.log = None  # GoNB's log file: where a failure of the proxy's own reading goes

    def safely(self, what, fn, *args, default=None):
        """fn(*args); a bug in reading cells or writing hints is logged and never stops the kernel."""
        try:
            return fn(*args)
        except Exception:
            if self.log:
                self.log.write(f"kernel_proxy: {what} failed:\n{traceback.format_exc()}".encode())
            return default

    # --- messages -------------------------------------------------------------------------
    @staticmethod
    def split(frames):
        i = frames.index(DELIM)
        return frames[:i], frames[i + 1:]

    def verified(self, channel, handler):
        """handler, for the frames of a message that came in on channel with a valid signature;
        any other message is dropped, with a line in the kernel log."""
        def on_frames(frames):
            why = self.bad_signature(frames)
            if why is None:
                handler(frames)
            elif self.log:
                self.log.write(f"kernel_proxy: dropped a message on {channel}: {why}\n".encode())
        return on_frames

    def bad_signature(self, frames):
        """Why frames are not a message signed with the connection's key, or None if they are."""
        if not self.digest:
            return None  # an empty key: the connection does not sign (Jupyter's protocol)
        try:
            _, msg = self.split(frames)
        except ValueError:
            return "not a Jupyter message (no <IDS|MSG> delimiter)"
        if len(msg) < 5:
            return f"not a Jupyter message ({len(msg)} frames after the delimiter, 5 needed)"
        if not hmac.compare_digest(self.sign(msg[1:5]), msg[0]):
            return "bad signature (not signed with the connection file's key)"
        return None

    def sign(self, parts):
        if not self.digest:
            return b""
        h = hmac.new(self.key, digestmod=self.digest)
        for p in parts:
            h.update(p)
        return h.hexdigest().encode()

    def make(self, msg_type, parent, content, metadata=None):
        header = {"msg_id": uuid.uuid4().hex, "session": self.session, "username": "kernel",
                  "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                  "msg_type": msg_type, "version": "5.3"}
        parts = [json.dumps(x).encode() for x in (header, parent, metadata or {}, content)]
        return [self.sign(parts)] + parts

    def kernel_info_reply(self, frames):
        """The reply with the stable language_info, re-signed; then "idle" if GoNB is."""
        idents, msg = self.split(frames)
        content = json.loads(msg[4])
        if isinstance(content.get("language_info"), dict):
            content["language_info"] = dict(LANGUAGE_INFO)
            parts = msg[1:4] + [json.dumps(content).encode()]
            frames = idents + [DELIM, self.sign(parts)] + parts + msg[5:]
        return frames

    def inspect_reply(self, frames):
        """The help reply (Shift+Tab) without its links to pkg.go.dev, re-signed: the lab is
        offline, so the link leads nowhere; the doc text itself stays. A timeout of gopls reads
        as a Chinese "not ready yet" instead of Go's "context deadline exceeded"."""
        idents, msg = self.split(frames)
        content = json.loads(msg[4])
        if not offline_help(content):
            return frames
        parts = msg[1:4] + [json.dumps(content).encode()]
        return idents + [DELIM, self.sign(parts)] + parts + msg[5:]

    def status(self, parent, state):
        self.iopub.send_multipart([b"kernel.status", DELIM] + self.make("status", parent, {"execution_state": state}))

    def abort(self, req):
        """Answer a queued execute request the way ipykernel does when it aborts one."""
        idents, _ = self.split(req.frames)
        self.status(req.header, "busy")
        self.shell.send_multipart(idents + [DELIM] + self.make("execute_reply", req.header, {"status": "aborted"},
                                                               {"status": "aborted"}))
        self.status(req.header, "idle")

    def abort_queue(self):
        queued, self.queue = self.queue, []
        for req in queued:
            self.abort(req)

    def publish(self, msg_type, parent, content):
        self.iopub.send_multipart([f"kernel.{msg_type}".encode(), DELIM] + self.make(msg_type, parent, content))

    # --- dependencies ------------------------------------------------------------------------
    def broken_now(self):
        """self.broken, plus every name GoNB holds whose declaring cell used a broken name
        (GoNB evaluates it again in every program, with the old declaration)."""
        out = dict(self.broken)
        changed = True
        while changed:
            changed = False
            for name, used in self.uses.items():
                if name not in out:
                    hit = sorted(used & out.keys())
                    if hit:
                        out[name] = dict(out[hit[0]], via=True)
                        changed = True
        return out

    def refuse(self, req, names, broken):
        """Do not run req: it uses names whose declaration failed. Tell why, as an error."""
        cause = broken[sorted(names)[0]]
        text = self.safely("writing why a cell did not run", hints.not_run, names, cause, req.role,
                           default="这个单元格没有运行：它用到的名字在上面一个编译失败的单元格里声明。修好那个单元格并运行它，再运行这个。")
        err = {"ename": "没有运行", "evalue": text, "traceback": [text]}
        idents, _ = self.split(req.frames)
        self.status(req.header, "busy")
        self.publish("error", req.header, err)
        self.shell.send_multipart(idents + [DELIM] + self.make(
            "execute_reply", req.header, dict(err, status="error", execution_count=None), {"status": "error"}))
        self.status(req.header, "idle")
        # What it would have declared is not current either.
        for name in req.scan.decls | self.cell_decls.get(req.cell_id, set()):
            self.broken[name] = dict(cause, via=True, stale=name in self.declared)

    def compiled(self, req):
        """req compiled: its names are current again."""
        for cmd in hints.specials(req.code):  # GoNB's %reset and %rm forget declarations
            words = cmd[1:].split() if cmd.startswith("%") else []
            if words == ["reset"]:
                self.broken.clear()
                self.declared.clear()
                self.uses.clear()
                self.cell_decls.clear()
            elif words[:1] in (["rm"], ["remove"]):
                for name in words[1:]:
                    self.broken.pop(name, None)
                    self.declared.discard(name)
                    self.uses.pop(name, None)
        decls = req.scan.decls
        for name in decls:
            self.broken.pop(name, None)
            self.declared.add(name)
            self.uses[name] = req.scan.refs - {name}
        if req.cell_id:
            self.cell_decls[req.cell_id] = set(decls)

    def failed_to_compile(self, req):
        """req did not compile: GoNB kept the older declarations of its names."""
        exec_count = (req.reply or {}).get("execution_count") or req.exec_count
        for name in req.scan.decls | self.cell_decls.get(req.cell_id, set()):
            self.broken[name] = {"role": req.role, "exec": exec_count, "line": req.first_line(),
                                 "stale": name in self.declared, "via": False}

    def stale(self, header):
        """Whether the client made this request before it could have seen the last error."""
        if not self.abort_before:
            return False
        session, before = self.abort_before
        made = client_time(header)
        return header.get("session") == session and made is not None and made < before

    @staticmethod
    def parse(frames):
        _, msg = Proxy.split(frames)
        return json.loads(msg[1]), json.loads(msg[4])

    def next_execute(self):
        while self.running is None and self.queue:
            req = self.queue.pop(0)
            if not req.silent and self.broken:
                broken = self.safely("reading dependencies", self.broken_now, default={})
                names = self.safely("reading a cell", lambda: (req.scan.refs - req.scan.decls) & broken.keys(),
                                    default=set())
                if names:
                    self.refuse(req, names, broken)
                    continue
            self.running = req
            self.b_shell.send_multipart(req.frames)

    # --- the loop ---------------------------------------------------------------------------
    def on_shell_request(self, frames):
        try:
            header, _ = self.parse(frames)
        except (ValueError, IndexError):
            self.b_shell.send_multipart(frames)  # not ours to judge: GoNB reports it
            return
        if header.get("msg_type") == "execute_request":
            try:
                _, msg = self.split(frames)
                req = Request(frames, header, json.loads(msg[4]), json.loads(msg[3]), time.monotonic())
            except (ValueError, IndexError, AttributeError):
                self.b_shell.send_multipart(frames)
                return
            if self.stale(header):
                self.abort(req)
                return
            self.queue.append(req)
            self.next_execute()
        else:
            self.b_shell.send_multipart(frames)

    def on_shell_reply(self, frames, front=None):
        front = front or self.shell
        try:
            header, content = self.parse(frames)
            _, msg = self.split(frames)
            parent = json.loads(msg[2])
        except (ValueError, IndexError):
            front.send_multipart(frames)
            return
        if header.get("msg_type") == "inspect_reply":
            front.send_multipart(self.inspect_reply(frames))
            return
        if header.get("msg_type") == "kernel_info_reply":
            front.send_multipart(self.kernel_info_reply(frames))
            if self.running is None and not self.queue:
                self.status({}, "idle")
            return
        front.send_multipart(frames)
        req = self.running
        if header.get("msg_type") != "execute_reply" or req is None or parent.get("msg_id") != req.id:
            return
        req.reply, req.reply_at = content, time.monotonic()
        if req.idle:
            self.finish(req)

    def finish(self, req):
        """GoNB is done with req (its reply and its "idle" came): what it means for the queue."""
        if self.running is not req:
            return
        self.running = None
        content = req.reply or {}
        if content.get("status") == "ok" and not req.silent:
            self.safely("recording declarations", self.compiled, req)
        elif content.get("status") == "error" and not req.silent:
            if hints.compile_stage(content.get("evalue")):
                # Nothing ran and GoNB kept the older declarations: only the cells that use
                # this cell's names must not run (see the docstring).
                certain = self.safely("recording a failed cell", lambda: self.failed_to_compile(req) or req.scan.certain,
                                      default=False)
            else:
                certain = False  # a runtime error: which cells depend on it is unknown
            if req.stop and not certain:
                made = client_time(req.header)
                if made is not None:
                    held = datetime.timedelta(seconds=time.monotonic() - req.arrival + BATCH_WINDOW_S)
                    self.abort_before = (req.header.get("session"), made + held)
                self.abort_queue()
        self.next_execute()

    def check_running(self):
        """Move on if GoNB replied but its "idle" did not come in IDLE_GRACE_S."""
        req = self.running
        if req is not None and req.reply is not None and not req.idle \
                and time.monotonic() - req.reply_at > IDLE_GRACE_S:
            self.flush_held(req)
            self.finish(req)

    # --- iopub: the explanation at the top of a failed cell's output ------------------------------
    def on_iopub(self, frames):
        req = self.running
        try:
            _, msg = self.split(frames)
            parent_id = json.loads(msg[2]).get("msg_id")
            msg_type = json.loads(msg[1]).get("msg_type")
        except (ValueError, IndexError, AttributeError):
            self.iopub.send_multipart(frames)
            return
        if req is None or parent_id != req.id:
            self.iopub.send_multipart(frames)
            return
        if msg_type == "execute_input":
            try:
                req.exec_count = json.loads(msg[4]).get("execution_count")
            except (ValueError, AttributeError):
                pass
        elif msg_type in OUTPUT_TYPES:
            if msg_type == "display_data" and req.held is None and not req.silent \
                    and (b"gonb-err-location" in msg[4] or b"gonb-cell-line-info" in msg[4]):
                req.held = frames  # GoNB's error report: what kind of error follows
                return
            self.flush_held(req)
            self.keep(req, frames, msg)
        elif msg_type == "clear_output":
            self.flush_held(req)
            req.outputs, req.kept_bytes = [], 0
        elif msg_type == "error":
            try:
                evalue = json.loads(msg[4]).get("evalue")
            except (ValueError, AttributeError):
                evalue = None
            if hints.compile_stage(evalue) and not req.silent:
                self.safely("explaining a compile error", self.explain, req, str(evalue))
            self.flush_held(req)
        elif msg_type == "status":
            self.flush_held(req)
            self.iopub.send_multipart(frames)
            try:
                idle = json.loads(msg[4]).get("execution_state") == "idle"
            except (ValueError, AttributeError):
                idle = False
            if idle:
                req.idle = True
                if req.reply is not None:
                    self.finish(req)
            return
        self.iopub.send_multipart(frames)

    def keep(self, req, frames, msg):
        size = sum(len(f) for f in msg)
        if req.overflow or len(req.outputs) >= KEEP_OUTPUTS or req.kept_bytes + size > KEEP_BYTES:
            req.overflow, req.outputs = True, []
        else:
            req.outputs.append(frames)
            req.kept_bytes += size

    def flush_held(self, req):
        if req.held is not None:
            held, req.held = req.held, None
            _, msg = self.split(held)
            self.keep(req, held, msg)
            self.iopub.send_multipart(held)

    def explain(self, req, evalue):
        """Put the Chinese explanation of req's compile error above everything it printed."""
        report = ""
        if req.held is not None:
            try:
                report = json.loads(self.split(req.held)[1][4]).get("data", {}).get("text/html", "")
            except (ValueError, IndexError, AttributeError):
                report = ""
        req.errors, more = hints.gonb_errors(report)
        if not req.errors:
            return  # nothing to explain line by line (e.g. go get could not reach a module)
        parse_error = evalue.startswith("parsing go files")
        extra = hints.syntax_errors(req.code) if parse_error else None
        text, html, payload = hints.compile_hint(req.code, req.exec_count, req.errors, more, parse_error, extra)
        if req.outputs and not req.overflow:  # outputs before it (special commands): under it
            self.publish("clear_output", req.header, {"wait": False})
        self.publish("display_data", req.header, {
            "data": {hints.HINT_MIME: payload, "text/html": html, "text/plain": text}, "metadata": {}, "transient": {}})
        if not req.overflow:
            for frames in req.outputs:
                self.iopub.send_multipart(self.resigned(frames))

    def resigned(self, frames):
        """The same message as new (a new msg_id, signed again): clients refuse a signature twice."""
        idents, msg = self.split(frames)
        header = json.loads(msg[1])
        header["msg_id"] = uuid.uuid4().hex
        parts = [json.dumps(header).encode()] + msg[2:5]
        return idents + [DELIM, self.sign(parts)] + parts + msg[5:]

    def on_control_request(self, frames):
        try:
            header, _ = self.parse(frames)
            if header.get("msg_type") == "interrupt_request":
                self.abort_queue()  # the learner asked to stop: nothing queued runs
        except (ValueError, IndexError):
            pass
        self.b_control.send_multipart(frames)

    def serve(self, child):
        poller = zmq.Poller()
        routes = {
            self.shell: self.verified("shell", self.on_shell_request),
            self.b_shell: self.on_shell_reply,
            self.control: self.verified("control", self.on_control_request),
            self.b_control: lambda f: self.on_shell_reply(f, self.control),
            self.stdin: self.verified("stdin", self.b_stdin.send_multipart),
            self.b_stdin: self.stdin.send_multipart,
            self.b_iopub: self.on_iopub,
            self.hb: self.hb.send_multipart,  # alive while GoNB runs (checked below)
        }
        for s in routes:
            poller.register(s, zmq.POLLIN)
        while child.poll() is None:
            for s, _ in poller.poll(500):
                routes[s](s.recv_multipart())
            self.check_running()
        # GoNB has exited: pass on what it sent last (the shutdown_reply, the last outputs).
        while True:
            ready = poller.poll(200)
            if not ready:
                break
            for s, _ in ready:
                routes[s](s.recv_multipart())
        return child.returncode


def main(argv):
    if len(argv) < 3 or argv[1] != "--" or PLACEHOLDER not in argv[2:]:
        sys.exit(f"usage: kernel_proxy.py CONNECTION_FILE -- GONB_ARGV... (with {PLACEHOLDER})")
    with open(argv[0]) as f:
        conn = json.load(f)
    sock_dir = tempfile.mkdtemp(prefix="gonb-")  # 0700
    try:
        return run(argv, conn, sock_dir)
    finally:  # also when the start fails: no socket directory is left behind
        shutil.rmtree(sock_dir, ignore_errors=True)


def run(argv, conn, sock_dir):
    inner = inner_connection(conn, sock_dir)
    inner_path = os.path.join(sock_dir, "connection.json")
    with open(inner_path, "w") as f:
        json.dump(inner, f)
    # The proxy binds Jupyter's ports before GoNB starts, so nothing started here can take them.
    try:
        proxy = Proxy(conn, inner)
    except zmq.ZMQError as e:
        print(f"kernel_proxy: cannot listen on the ports in {argv[0]}: {e} "
              "(taken since Jupyter chose them; start the kernel again)", file=sys.stderr)
        return 1
    log_path, log = open_log()
    print(f"gonb kernel log: {log_path}", file=sys.stderr, flush=True)
    log.write(f"\n==== {datetime.datetime.now().isoformat(timespec='seconds')} kernel "
              f"{os.path.basename(argv[0])}\n".encode())

    def die_with_parent():  # GoNB must not outlive the proxy (Linux)
        try:
            import ctypes
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except Exception:
            pass

    cmd = [inner_path if a == PLACEHOLDER else a for a in argv[2:]]
    child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=die_with_parent)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: child.send_signal(s))
    proxy.log = log
    try:
        return proxy.serve(child)
    finally:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(5)
            except subprocess.TimeoutExpired:
                child.kill()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
