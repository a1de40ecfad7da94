#!/usr/bin/env python3
"""Run the GoNB kernel behind a small ZeroMQ proxy that stops queued cells after an error.

    python kernel_proxy.py CONNECTION_FILE -- GONB_ARGV...   (GONB_ARGV holds @GONB_CONNECTION_FILE@)

Jupyter starts this script as the kernel (docker/install-kernel.sh writes it into kernel.json).
It binds the ports of Jupyter's connection file, starts GoNB on a connection file of its own
(unix sockets in a private directory, so GoNB takes no TCP port), and passes every message
through, with these differences a learner notices:

* Stop on error. JupyterLab sends all cells of "Run Selected Cell and All Below" at once, each
  execute_request with stop_on_error=true, and relies on the kernel to abort the queued ones
  when one fails, as ipykernel does. GoNB v0.11.4 answers a compile error with status "error"
  but ignores stop_on_error and runs the rest, so the deliverable's self-check then checked
  the previous card. Here execute requests go to GoNB one at a time; when one fails (and asked
  for stop_on_error), every request queued behind it gets the "aborted" reply ipykernel sends,
  with the busy/idle status JupyterLab waits for. An interrupt aborts the queue too.
  A compile error comes back within milliseconds, before the rest of JupyterLab's batch has
  even reached the proxy; so a request from the same client that it made within BATCH_WINDOW_S
  of the failed one (plus the time the proxy held that one) is aborted too. Both times are
  differences of one clock (the client's header dates, the proxy's own hold time), so clock skew
  between browser and server does not matter. Like ipykernel's stop_on_error_timeout, but
  measured where the batch was made: nobody reads an error and runs the next cell that fast.
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
import uuid

import zmq

DELIM = b"<IDS|MSG>"
PLACEHOLDER = "@GONB_CONNECTION_FILE@"
LOG_MAX_BYTES = 10 * 1000 * 1000
# Requests a client made this soon after one that failed belong to the same batch.
BATCH_WINDOW_S = 1.0
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
        self.running = None  # (frames, header, arrival) of the execute request GoNB is working on
        self.queue = []  # execute requests waiting for it
        self.abort_before = None  # (client session, client time) after an error: older requests abort

    # --- messages -------------------------------------------------------------------------
    @staticmethod
    def split(frames):
        i = frames.index(DELIM)
        return frames[:i], frames[i + 1:]

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

    def abort(self, frames, header):
        """Answer a queued execute request the way ipykernel does when it aborts one."""
        idents, _ = self.split(frames)
        self.status(header, "busy")
        self.shell.send_multipart(idents + [DELIM] + self.make("execute_reply", header, {"status": "aborted"},
                                                               {"status": "aborted"}))
        self.status(header, "idle")

    def abort_queue(self):
        queued, self.queue = self.queue, []
        for frames, header, _ in queued:
            self.abort(frames, header)

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
        if self.running is None and self.queue:
            self.running = self.queue.pop(0)
            self.b_shell.send_multipart(self.running[0])

    # --- the loop ---------------------------------------------------------------------------
    def on_shell_request(self, frames):
        try:
            header, _ = self.parse(frames)
        except (ValueError, IndexError):
            self.b_shell.send_multipart(frames)  # not ours to judge: GoNB reports it
            return
        if header.get("msg_type") == "execute_request":
            if self.stale(header):
                self.abort(frames, header)
                return
            self.queue.append((frames, header, time.monotonic()))
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
        if header.get("msg_type") != "execute_reply" or self.running is None:
            return
        if parent.get("msg_id") != self.running[1].get("msg_id"):
            return
        req_frames, req_header, arrival = self.running
        _, req_content = self.parse(req_frames)
        self.running = None
        stop = req_content.get("stop_on_error", True) and not req_content.get("silent", False)
        if content.get("status") == "error" and stop:
            made = client_time(req_header)
            if made is not None:
                held = datetime.timedelta(seconds=time.monotonic() - arrival + BATCH_WINDOW_S)
                self.abort_before = (req_header.get("session"), made + held)
            self.abort_queue()
        self.next_execute()

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
            self.shell: self.on_shell_request,
            self.b_shell: self.on_shell_reply,
            self.control: self.on_control_request,
            self.b_control: lambda f: self.on_shell_reply(f, self.control),
            self.stdin: self.b_stdin.send_multipart,
            self.b_stdin: self.stdin.send_multipart,
            self.b_iopub: self.iopub.send_multipart,
            self.hb: self.hb.send_multipart,  # alive while GoNB runs (checked below)
        }
        for s in routes:
            poller.register(s, zmq.POLLIN)
        while child.poll() is None:
            for s, _ in poller.poll(500):
                routes[s](s.recv_multipart())
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
