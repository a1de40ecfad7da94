"""The checks of `make test-hub`, run by docker/test/test-hub.sh against a real hub it started:

    python test_hub.py spawn     (a) (b) (c) (e) (f), the learners' deliverables, the instructor
    python test_hub.py cull      (d) on a hub restarted with a short idle-culler timeout

Everything goes through the hub's public URL as the learners and the instructor would; the
engine (podman inspect / exec) is asked only to read back what the hub made. Settings come
from the environment docker/test/test-hub.sh sets (HUB_URL, PREFIX, IMAGE, HUB_NET, passwords...).
Each check prints "ok: ..." or raises; a failure exits 1.
"""

import json
import os
import posixpath
import subprocess
import sys
import time

from hubclient import HubError, Learner

E = os.environ
URL, PREFIX, IMAGE, NET = E["HUB_URL"], E["PREFIX"], E["IMAGE"], E["HUB_NET"]
LEARNERS = E["COURSEHUB_LEARNERS"].split(",")
INSTRUCTOR = E["COURSEHUB_INSTRUCTORS"]
USER_PW, ADMIN_PW = E["COURSEHUB_TEST_USER_PASSWORD"], E["COURSEHUB_TEST_ADMIN_PASSWORD"]
CPU, MEM = float(E["COURSEHUB_CPU_LIMIT"]), E["COURSEHUB_MEM_LIMIT"]
DELIVERABLE = "notebooks/unit01/06-deliverable.ipynb"
GO_CELL = 'import "github.com/llmperf-course/course/coursekit"\n%%\nfmt.Println("coursekit", coursekit.Version, "from", os.Getenv("JUPYTERHUB_USER"))'
BROWSER_NB = "hub-browser.ipynb"
BROWSER_CELL = 'import "github.com/llmperf-course/course/coursekit"\n%%\nfmt.Println("coursekit", coursekit.Version, "在浏览器里运行")'
passed = 0


def ok(msg):
    global passed
    passed += 1
    print("   ok:", msg, flush=True)


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def podman(*args):
    r = subprocess.run(["podman", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def inspect(name):
    return json.loads(podman("inspect", "--type", "container", name))[0]


def in_container(name, *cmd):
    return podman("exec", name, *cmd)


def mem_bytes(s):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * units[s[-1].upper()]) if s[-1].upper() in units else int(s)


def note_cell(who):
    """A markdown cell the learner adds: their own words, so each collected file is theirs."""
    return {"cell_type": "markdown", "id": f"note-{who}", "metadata": {}, "source": f"{who} 的笔记:我先检查分母。"}


# A UDP connect() only looks up a route: it sends no packet. With no route out it fails with
# ENETUNREACH; on a network with a route it succeeds. 198.51.100.1 is a documentation address.
ROUTE_PROBE = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.connect(("198.51.100.1", 9))
    print("route-out")
except OSError as e:
    print("no-route", e.errno)
defaults = [l for l in open("/proc/net/route").read().splitlines()[1:] if l.split()[1] == "00000000"]
print("default-routes", len(defaults))
"""

HUB_PROBE = """
import json, os, urllib.request
u = os.environ["JUPYTERHUB_API_URL"]
print(u, json.load(urllib.request.urlopen(u, timeout=30))["version"])
"""


def cgroup_limits(name):
    """CPU quota/period and memory limit as the container itself sees them (cgroup v1 or v2)."""
    out = in_container(name, "sh", "-c",
                       "cat /sys/fs/cgroup/cpu.max /sys/fs/cgroup/memory.max 2>/dev/null || "
                       "cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us "
                       "/sys/fs/cgroup/memory/memory.limit_in_bytes").split()
    # v2: cpu.max is "QUOTA PERIOD", then memory.max; v1: quota, period, limit: the same order
    return int(out[0]), int(out[1]), int(out[2])


def phase_spawn():
    image_id = podman("image", "inspect", "--format", "{{.Id}}", IMAGE).strip()
    me = {u: Learner(URL, u, USER_PW) for u in LEARNERS}
    ok(f"learners {', '.join(LEARNERS)} logged in at {URL}/hub/login and got API tokens")
    for u in LEARNERS:
        me[u].start()
    ok("each learner's server started through the hub API and answers behind the proxy")

    # (a) own container from the course image, uid 1000, own named volume
    vols = {}
    for u in LEARNERS:
        name = f"{PREFIX}-{u}"
        ins = inspect(name)
        check(ins["State"]["Running"], f"{name} is not running")
        check(ins["Image"] == image_id, f"{name} runs image {ins['Image'][:12]}, not {IMAGE} ({image_id[:12]})")
        uid = in_container(name, "id", "-u").strip()
        check(uid == "1000", f"{name}: processes run as uid {uid}, want 1000")
        top = podman("top", name, "user", "args")
        check("jupyterhub-singleuser" in top and all(line.split()[0] in ("USER", "learner", "1000") for line in top.splitlines() if line.strip()),
              f"{name}: a process runs as another user than learner:\n{top}")
        mounts = [m for m in ins["Mounts"] if m["Destination"] == "/home/learner/work"]
        check(len(mounts) == 1 and mounts[0]["Type"] == "volume" and mounts[0]["Name"] == name,
              f"{name}: /home/learner/work is {mounts}, want the named volume {name}")
        vols[u] = {m.get("Name") or m.get("Source") for m in ins["Mounts"]}
        ok(f"(a) {u}: own container {name} from {IMAGE} ({image_id[:12]}), every process uid 1000, named volume {name} at /home/learner/work")
    a, b = LEARNERS[0], LEARNERS[1]
    check(not (vols[a] & vols[b]), f"{a} and {b} share mounts: {vols[a] & vols[b]}")
    ok(f"(c) {a} and {b} share no volume or mount ({sorted(vols[a])} vs {sorted(vols[b])})")

    # (b) a GoNB cell importing coursekit, over the kernel websocket behind the hub's proxy
    for u in LEARNERS:
        [(outputs, _, why)] = me[u].run_cells("hubtest.ipynb", [GO_CELL])
        text = "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")
        check(why is None and f"from {u}" in text and "coursekit " in text, f"{u}: the Go cell failed ({why}): {outputs}")
        ok(f"(b) {u}: GoNB cell importing coursekit ran over ws://…/user/{u}/api/kernels/…/channels: {text.strip()!r}")

    # the learners do their deliverable in their own server and save it (collected below)
    for u in LEARNERS:
        nb, failures = me[u].run_notebook(DELIVERABLE)
        check(not failures, f"{u}: {DELIVERABLE} failed through the hub: {failures}")
        check(any(o.get("output_type") == "display_data" and any("coursekit" in k for k in o.get("data", {}))
                  for cell in nb["cells"] for o in cell.get("outputs", [])),
              f"{u}: the self-check left no card output")
        nb["cells"].append(note_cell(u))
        me[u].put_notebook(DELIVERABLE, nb)
    ok(f"{', '.join(LEARNERS)} ran {DELIVERABLE} top to bottom in their own servers (self-check output saved, own note added)")

    # (c) learner A cannot reach learner B's server or files through the hub
    for path in ["status", "contents", f"contents/{DELIVERABLE}", "kernels"]:
        r = me[a].api("GET", path, user=b, ok=None)
        check(r.status_code == 403, f"{a} GET /user/{b}/api/{path} answered {r.status_code}, want 403")
    r = me[a].s.get(f"{URL}/user/{b}/lab", allow_redirects=True, timeout=60)
    check(r.status_code == 403 and "/hub/" in r.url, f"{a}'s browser session at /user/{b}/lab ended at {r.url} with {r.status_code}, want the hub's 403")
    r = me[a].hub("GET", f"users/{b}", ok=None)
    check(r.status_code in (403, 404), f"{a} GET /hub/api/users/{b} answered {r.status_code}")
    r = me[a].hub("GET", "users", ok=None)
    check(r.status_code == 403 or [x["name"] for x in r.json()] == [a], f"{a} can list other users: {r.status_code} {r.text[:200]}")
    ok(f"(c) {a}'s token and browser session get 403 from {b}'s server (status, contents, the deliverable, kernels, /lab)")
    bob_note = in_container(f"{PREFIX}-{b}", "cat", posixpath.join("/home/learner/work", DELIVERABLE))
    alice_view = in_container(f"{PREFIX}-{a}", "sh", "-c", f"grep -rl 'note-{b}' /home /tmp /opt 2>/dev/null || true")
    check(f"note-{b}" in bob_note and alice_view.strip() == "", f"{b}'s note is visible in {a}'s container: {alice_view}")
    ok(f"(c) {b}'s saved work is nowhere in {a}'s container")

    teacher = Learner(URL, INSTRUCTOR, ADMIN_PW)
    names = sorted(x["name"] for x in teacher.hub("GET", "users").json())
    check(set(LEARNERS) <= set(names), f"the instructor lists users {names}")
    ok(f"instructor {INSTRUCTOR} (admin password) lists the users: {names}")

    # (e) limits, read back from the engine and from inside the container
    for u in LEARNERS:
        name = f"{PREFIX}-{u}"
        hc = inspect(name)["HostConfig"]
        quota, period, mem = cgroup_limits(name)
        check(hc["CpuQuota"] == int(CPU * hc["CpuPeriod"]) and hc["CpuPeriod"] > 0, f"{name}: CpuQuota {hc['CpuQuota']} / CpuPeriod {hc['CpuPeriod']}, want {CPU} CPUs")
        check(hc["Memory"] == mem_bytes(MEM), f"{name}: Memory {hc['Memory']}, want {MEM}")
        check(quota == hc["CpuQuota"] and period == hc["CpuPeriod"] and mem == hc["Memory"],
              f"{name}: the container's cgroup says quota {quota} period {period} memory {mem}")
        check(hc.get("PidsLimit") == 1024, f"{name}: PidsLimit {hc.get('PidsLimit')}")
        check("no-new-privileges" in " ".join(hc.get("SecurityOpt") or []), f"{name}: SecurityOpt {hc.get('SecurityOpt')}")
        caps = in_container(name, "sh", "-c", "grep CapBnd /proc/self/status").split()[-1]
        check(int(caps, 16) == 0, f"{name}: bounding capability set {caps}, want none")
        ok(f"(e) {u}: CPU {hc['CpuQuota']}/{hc['CpuPeriod']} = {CPU} CPUs, memory {hc['Memory']} B ({MEM}), pids 1024, no-new-privileges, no capabilities — engine and the container's cgroup agree")

    # (f) an internal network with no route out, and the hub still reachable
    net = json.loads(podman("network", "inspect", NET))[0]
    check(net.get("internal") is True, f"network {NET} is not internal: {net}")
    for u in LEARNERS:
        name = f"{PREFIX}-{u}"
        nets = list(inspect(name)["NetworkSettings"]["Networks"])
        check(nets == [NET], f"{name} is on networks {nets}, want only {NET}")
        probe = in_container(name, "python3", "-c", ROUTE_PROBE).split()
        check(probe[:1] == ["no-route"] and probe[-1] == "0", f"{name}: route probe {probe}, want no route out and no default route")
        hub = in_container(name, "python3", "-c", HUB_PROBE).strip()
        ok(f"(f) {u}: only on internal network {NET}, no default route, connect() out fails ({' '.join(probe[:2])}); the hub API answers: {hub}")
    control = podman("run", "--rm", "--name", f"{PREFIX}-probe", "--network", "podman", IMAGE, "python3", "-c", ROUTE_PROBE).split()
    check(control[:1] == ["route-out"], f"the route probe says {control} on podman's default network: it cannot tell")
    ok("(f) the same probe finds a route out on podman's default network (the probe can tell)")
    # a notebook for the browser check (docker/test/hub/browser.mjs) in the first learner's server
    me[a].put_notebook(BROWSER_NB, {
        "nbformat": 4, "nbformat_minor": 5, "cells": [{"cell_type": "code", "id": "go-cell", "metadata": {}, "outputs": [],
                                                         "execution_count": None, "source": BROWSER_CELL}],
        "metadata": {"kernelspec": {"name": "gonb", "display_name": "Go (gonb)", "language": "go"}}})
    print(f"test_hub spawn: {passed} checks passed", flush=True)


def phase_cull():
    a = LEARNERS[0]
    me = Learner(URL, a, USER_PW)
    me.start()
    nb = me.get_notebook(DELIVERABLE)
    check(any(c.get("id") == f"note-{a}" for c in nb["cells"]), f"{a}'s note from before the hub restart is gone")
    ok(f"(d) {a}'s deliverable edited before the restart is there after a new spawn (volume {PREFIX}-{a})")
    nb["cells"].append({"cell_type": "markdown", "id": "after-cull", "metadata": {}, "source": "剔除之后还在。"})
    me.put_notebook(DELIVERABLE, nb)
    check(me.api("GET", "kernels").json() == [], f"{a} still has running kernels")
    container = f"{PREFIX}-{a}"
    t0 = time.monotonic()
    while me.server_state()[0] or me.server_state()[1]:
        if time.monotonic() - t0 > 900:
            raise AssertionError(f"{a}'s idle server was not culled within 900 s")
        time.sleep(3)
    idle_s = time.monotonic() - t0
    for _ in range(30):
        if subprocess.run(["podman", "container", "exists", container]).returncode != 0:
            break
        time.sleep(1)
    else:
        raise AssertionError(f"{container} still exists after the cull")
    log = open(E["HUB_LOG"], encoding="utf-8", errors="replace").read()
    check(f"Culling server {a} " in log, "the hub log has no 'Culling server' line from jupyterhub-idle-culler")
    ok(f"(d) jupyterhub-idle-culler stopped {a}'s idle server (timeout {E['COURSEHUB_CULL_TIMEOUT']} s, stopped {idle_s:.0f} s after the last edit); container removed, volume kept")
    check(subprocess.run(["podman", "volume", "exists", container]).returncode == 0, f"volume {container} is gone")
    me.start()
    nb = me.get_notebook(DELIVERABLE)
    ids = [c.get("id") for c in nb["cells"]]
    check("after-cull" in ids and f"note-{a}" in ids, f"{a}'s edits are gone after the cull: {ids[-3:]}")
    ok(f"(d) after the next spawn {a}'s edited notebook is still there (both edits)")
    me.stop()
    print(f"test_hub cull: {passed} checks passed", flush=True)


if __name__ == "__main__":
    try:
        {"spawn": phase_spawn, "cull": phase_cull}[sys.argv[1]]()
    except (AssertionError, HubError) as e:
        print(f"\ntest_hub {sys.argv[1]}: FAIL: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
