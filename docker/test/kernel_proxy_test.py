#!/usr/bin/env python3
"""Tests for docker/kernel_proxy.py with the real gonb kernel (the kernelspec of `make lab-setup`).

They send several execute requests at once, as JupyterLab does for "Run Selected Cell and All
Below", and check the replies: after a compile error, the requests queued behind it are
aborted (ipykernel's behaviour), unless they asked not to stop; the kernel keeps working and
keeps its declarations; an interrupt aborts the queue; GoNB's log goes to a file, not to the
kernel's stderr. Run: python docker/test/kernel_proxy_test.py (JUPYTER_DATA_DIR set as make does).
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

from jupyter_client.manager import KernelManager


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
                      '%%\nfmt.Println("must not run", x)',
                      '%%\nfmt.Println("must not run either")')
        check([c["status"] for c in r] == ["ok", "error", "aborted", "aborted"],
              f"a compile error aborts the queued cells: {[c['status'] for c in r]}")

        settle()
        ids = [k.kc.execute('%%\nfmt.Println("after", x+1)')]
        r = k.replies(ids)
        check(r[0]["status"] == "ok", "the kernel runs the next request and keeps its declarations")
        check(k.idle_after(ids[0]), "iopub reports idle for it")

        # JupyterLab's batch can reach the kernel after the error came back (a compile error
        # takes milliseconds): a request the client made with the failed one is aborted, one it
        # made more than the batch window (1 s, client clock) later runs.
        settle()
        failed = k.kc.execute('var w int = "bad"')
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

        settle()
        r = k.run_all('var z int = "bad"', '%%\nfmt.Println("runs anyway")', stop_on_error=False)
        check([c["status"] for c in r] == ["error", "ok"],
              f"stop_on_error=false (the raises-exception tag) keeps going: {[c['status'] for c in r]}")

        ids = [k.kc.execute('%%\ntime.Sleep(20 * time.Second)'), k.kc.execute('%%\nfmt.Println("queued")')]
        time.sleep(3)
        k.km.interrupt_kernel()
        r = k.replies(ids)
        check(r[1]["status"] == "aborted", f"an interrupt aborts the queue: {[c['status'] for c in r]}")

        settle()
        ids = [k.kc.execute('%%\nfmt.Println("still alive")')]
        check(k.replies(ids)[0]["status"] == "ok", "the kernel works after the interrupt")
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
