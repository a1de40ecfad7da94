"""A learner's side of JupyterHub, through the hub's public URL only, as a browser would go:
log in with a password, ask for a token, start the server, then use the Jupyter server's REST
API and the kernel websocket behind the hub's proxy (docker/test/test-hub.sh, docker/test/hub/capacity.sh).

    python hubclient.py run-notebooks URL USER PASSWORD NOTEBOOK_PATH...   (capacity.sh)

Only the hub's venv is needed (requests and tornado come with jupyterhub).
"""

import asyncio
import datetime
import json
import re
import sys
import time
import uuid
from urllib.parse import urlsplit

import requests
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

STDERR_FAIL = re.compile(r"^(panic: |exit status \d+\s*$)", re.M)  # as docker/nbrun.py


class HubError(Exception):
    pass


class Learner:
    """One user of the hub at base_url (e.g. http://127.0.0.1:8000)."""

    def __init__(self, base_url, name, password, timeout=60):
        self.base = base_url.rstrip("/")
        self.name = name
        self.s = requests.Session()
        self.timeout = timeout
        self.token = None
        self._login(password)

    # --- hub ---------------------------------------------------------------------------------
    def _login(self, password):
        r = self.s.get(f"{self.base}/hub/login", timeout=self.timeout)
        m = re.search(r'name="_xsrf" value="([^"]+)"', r.text)
        if r.status_code != 200 or not m:
            raise HubError(f"{self.name}: GET /hub/login answered {r.status_code} without an _xsrf field")
        r = self.s.post(f"{self.base}/hub/login", data={"username": self.name, "password": password, "_xsrf": m.group(1)},
                        allow_redirects=False, timeout=self.timeout)
        if r.status_code != 302 or "jupyterhub-hub-login" not in self.s.cookies:
            raise HubError(f"{self.name}: login refused (HTTP {r.status_code})")
        r = self.hub("POST", f"users/{self.name}/tokens", json={"note": "hubclient", "expires_in": 7200})
        self.token = r.json()["token"]

    def hub(self, method, path, ok=(200, 201, 202, 204), **kw):
        """A hub API call with the login cookie (and the XSRF header it needs)."""
        headers = kw.pop("headers", {})
        if self.token:
            headers["Authorization"] = f"token {self.token}"
        else:
            headers["X-XSRFToken"] = self.s.cookies.get("_xsrf", "")
        r = self.s.request(method, f"{self.base}/hub/api/{path}", headers=headers, timeout=self.timeout, **kw)
        if ok and r.status_code not in ok:
            raise HubError(f"{self.name}: {method} /hub/api/{path} -> {r.status_code}: {r.text[:300]}")
        return r

    def server_state(self):
        """(ready, pending) of the user's default server, from the hub."""
        srv = self.hub("GET", f"users/{self.name}").json().get("servers", {}).get("")
        return (bool(srv and srv.get("ready")), srv.get("pending") if srv else None)

    def start(self, wait_s=600):
        """Start the server (if it is not running) and wait until it answers behind the proxy."""
        if not self.server_state()[0]:
            self.hub("POST", f"users/{self.name}/server", ok=(201, 202, 400))
        deadline = time.monotonic() + wait_s
        while not self.server_state()[0]:
            if self.server_state() == (False, None):
                raise HubError(f"{self.name}: the server stopped while starting (see the hub log)")
            if time.monotonic() > deadline:
                raise HubError(f"{self.name}: the server was not ready after {wait_s} s")
            time.sleep(2)
        # The hub adds the proxy route when it marks the server ready; wait until it answers.
        for _ in range(60):
            if self.api("GET", "status", ok=None).status_code == 200:
                return
            time.sleep(1)
        raise HubError(f"{self.name}: /user/{self.name}/api/status never answered 200 through the proxy")

    def stop(self):
        self.hub("DELETE", f"users/{self.name}/server", ok=(202, 204, 400))

    # --- the learner's Jupyter server, through the proxy --------------------------------------
    def api(self, method, path, user=None, ok=(200, 201, 204), **kw):
        """A Jupyter server REST call under /user/USER/ (default: this learner's own)."""
        user = user or self.name
        headers = {"Authorization": f"token {self.token}"}
        r = self.s.request(method, f"{self.base}/user/{user}/api/{path}", headers=headers,
                           allow_redirects=False, timeout=self.timeout, **kw)
        if ok and r.status_code not in ok:
            raise HubError(f"{self.name}: {method} /user/{user}/api/{path} -> {r.status_code}: {r.text[:300]}")
        return r

    def get_notebook(self, path):
        return self.api("GET", f"contents/{path}?content=1&type=notebook").json()["content"]

    def put_notebook(self, path, nb):
        self.api("PUT", f"contents/{path}", json={"type": "notebook", "format": "json", "content": nb})

    def run_cells(self, path, codes, cell_timeout=600):
        """Run codes one after the other in a new GoNB kernel of a session at path (as JupyterLab
        opens a notebook: the kernel's cwd is the notebook's folder), over the kernel websocket.
        Returns one (outputs, execution count, failure or None) per code run; stops at a failure."""
        sess = self.api("POST", "sessions", json={"path": path, "type": "notebook", "name": path.rsplit("/", 1)[-1],
                                                   "kernel": {"name": "gonb"}}).json()
        try:
            return asyncio.run(self._run(sess["kernel"]["id"], codes, cell_timeout))
        finally:
            self.api("DELETE", f"sessions/{sess['id']}", ok=(204, 404))

    async def _run(self, kid, codes, cell_timeout):
        req = HTTPRequest(self.ws_url(kid), headers={"Authorization": f"token {self.token}"},
                          request_timeout=self.timeout, connect_timeout=self.timeout)
        ws = await websocket_connect(req)
        session, results = uuid.uuid4().hex, []
        try:
            for code in codes:
                results.append(await execute(ws, session, self.name, code, cell_timeout))
                if results[-1][2]:
                    break
        finally:
            ws.close()
        return results

    def run_notebook(self, path, cell_timeout=600):
        """Execute every code cell of the notebook at path and fill in its outputs (not saved).
        Returns (notebook, failures), failures as "cell N: what" strings."""
        nb = self.get_notebook(path)
        cells = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
        results = self.run_cells(path, ["".join(c["source"]) for c in cells], cell_timeout)
        failures = []
        for cell, (outputs, count, why) in zip(cells, results):
            cell["outputs"], cell["execution_count"] = outputs, count
            if why:
                failures.append(f"cell {nb['cells'].index(cell)}: {why}")
        return nb, failures

    def ws_url(self, kid):
        u = urlsplit(self.base)
        scheme = "wss" if u.scheme == "https" else "ws"
        return f"{scheme}://{u.netloc}/user/{self.name}/api/kernels/{kid}/channels"


def _msg(session, username, msg_type, content, channel="shell"):
    return {
        "header": {"msg_id": uuid.uuid4().hex, "username": username, "session": session, "msg_type": msg_type,
                   "version": "5.3", "date": datetime.datetime.now(datetime.timezone.utc).isoformat()},
        "parent_header": {}, "metadata": {}, "content": content, "channel": channel,
    }


async def execute(ws, session, username, code, timeout):
    """Run code on the kernel behind websocket ws; return (nbformat outputs, execution count,
    failure reason or None). A failure is an error output, a panic or a non-zero exit status
    on stderr, as docker/nbrun.py judges a cell."""
    req = _msg(session, username, "execute_request", {"code": code, "silent": False, "store_history": True,
                                                       "user_expressions": {}, "allow_stdin": False,
                                                       "stop_on_error": True})
    await ws.write_message(json.dumps(req))
    outputs, count, idle, reply = [], None, False, None
    display = {}
    deadline = time.monotonic() + timeout
    while not (idle and reply):
        left = deadline - time.monotonic()
        if left <= 0:
            return outputs, count, f"no reply within {timeout} s"
        raw = await asyncio.wait_for(ws.read_message(), left)
        if raw is None:
            return outputs, count, "the kernel websocket closed"
        m = json.loads(raw)
        if m.get("parent_header", {}).get("msg_id") != req["header"]["msg_id"]:
            continue
        t, ct = m["msg_type"], m["content"]
        if t == "status":
            idle = ct["execution_state"] == "idle"
        elif t == "execute_reply":
            reply, count = ct, ct.get("execution_count")
        elif t == "stream":
            if outputs and outputs[-1]["output_type"] == "stream" and outputs[-1]["name"] == ct["name"]:
                outputs[-1]["text"] += ct["text"]
            else:
                outputs.append({"output_type": "stream", "name": ct["name"], "text": ct["text"]})
        elif t in ("display_data", "execute_result"):
            out = {"output_type": t, "data": ct["data"], "metadata": ct.get("metadata", {})}
            if t == "execute_result":
                out["execution_count"] = ct.get("execution_count")
            did = (ct.get("transient") or {}).get("display_id")
            if did:
                display[did] = out
            outputs.append(out)
        elif t == "update_display_data":
            did = (ct.get("transient") or {}).get("display_id")
            if did in display:
                display[did]["data"], display[did]["metadata"] = ct["data"], ct.get("metadata", {})
        elif t == "clear_output":
            outputs.clear()
        elif t == "error":
            outputs.append({"output_type": "error", "ename": ct["ename"], "evalue": ct["evalue"],
                            "traceback": ct.get("traceback", [])})
    for o in outputs:
        if o["output_type"] == "error":
            return outputs, count, f"error {o['ename']}: {o['evalue'][:200]}"
        if o["output_type"] == "stream" and o["name"] == "stderr" and STDERR_FAIL.search(o["text"]):
            return outputs, count, "stderr: " + STDERR_FAIL.search(o["text"]).group(0).strip()
    if reply.get("status") != "ok":
        return outputs, count, f"execute_reply status {reply.get('status')}: {reply.get('evalue', '')[:200]}"
    return outputs, count, None


def main(argv):
    if len(argv) >= 4 and argv[0] == "run-notebooks":
        url, user, password, paths = argv[1], argv[2], argv[3], argv[4:]
        me = Learner(url, user, password)
        me.start()
        bad = 0
        for p in paths:
            t0 = time.monotonic()
            _, failures = me.run_notebook(p)
            print(f"{user}: {p}: {'FAIL ' + '; '.join(failures) if failures else 'ok'} ({time.monotonic() - t0:.1f} s wall)",
                  flush=True)
            bad += bool(failures)
        return 1 if bad else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
