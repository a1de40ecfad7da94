"""Samples the learners' containers from the host while they work (docker/test/hub/capacity.sh).

    python sampler.py OUT.json CONTAINER...      runs until SIGTERM, then writes OUT.json

Per container, from its cgroup (v1 or v2) and /proc: CPU seconds used (cpuacct / cpu.stat:
CPU time, not wall time, so other load on the machine does not inflate it), the cgroup's
memory peak and current use, and the peak resident memory of each kind of process —
the Jupyter server, the GoNB kernel, gopls, the Go toolchain (go, compile, link), the
compiled cell programs, the real engine (notebook 09's llama.cpp, serve.py) — summed over the processes of that kind alive at one sample.
"""

import json
import os
import signal
import subprocess
import sys
import time

KINDS = [
    ("jupyter server", lambda c, a: "jupyterhub-singleuser" in a or c.startswith("jupyterhub-sin")),
    ("gonb kernel", lambda c, a: c == "gonb"),
    ("gopls", lambda c, a: c == "gopls"),
    ("go toolchain", lambda c, a: c in ("go", "compile", "link", "asm", "vet", "cgo", "goimports")),
    ("cell programs", lambda c, a: c.startswith("gonb_")),
    ("engine", lambda c, a: "serve.py" in a),
]


def cgroup_dirs(pid):
    """(memory dir, cpu dir, v2?) of the process's cgroup."""
    lines = open(f"/proc/{pid}/cgroup").read().splitlines()
    v1 = {}
    for line in lines:
        _, ctrls, path = line.split(":", 2)
        if ctrls == "":
            v2 = "/sys/fs/cgroup" + path
        for c in ctrls.split(","):
            v1[c] = path
    if "memory" in v1:
        return f"/sys/fs/cgroup/memory{v1['memory']}", f"/sys/fs/cgroup/cpuacct{v1['cpuacct']}", False
    return v2, v2, True


def read_int(path):
    return int(open(path).read().split()[0])


def cpu_seconds(cpu_dir, v2):
    if v2:
        for line in open(f"{cpu_dir}/cpu.stat"):
            if line.startswith("usage_usec"):
                return int(line.split()[1]) / 1e6
    return read_int(f"{cpu_dir}/cpuacct.usage") / 1e9


def mem_now(mem_dir, v2):
    if v2:
        return read_int(f"{mem_dir}/memory.current")
    return read_int(f"{mem_dir}/memory.usage_in_bytes")


def mem_peak(mem_dir, v2):
    try:
        return read_int(f"{mem_dir}/memory.peak" if v2 else f"{mem_dir}/memory.max_usage_in_bytes")
    except OSError:
        return None


def mem_stat(mem_dir):
    """memory.stat as ints: rss/cache (v1) or anon/file (v2): the processes' memory and the page
    cache (here mostly the Go build cache and module files the builds read and write)."""
    try:
        return {k: int(v) for k, v in (line.split() for line in open(f"{mem_dir}/memory.stat"))}
    except OSError:
        return {}


def procs(mem_dir):
    try:
        return [int(p) for p in open(f"{mem_dir}/cgroup.procs").read().split()]
    except OSError:
        return []


def rss_kib(pid):
    comm = open(f"/proc/{pid}/comm").read().strip()
    args = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return comm, args, int(line.split()[1])
    return comm, args, 0


def main():
    out, names = sys.argv[1], sys.argv[2:]
    stats = {}
    for n in names:
        pid = int(subprocess.check_output(["podman", "inspect", "--format", "{{.State.Pid}}", n]).strip())
        mem_dir, cpu_dir, v2 = cgroup_dirs(pid)
        if not v2:
            try:  # start the peak from now (the idle server's start-up is measured apart)
                open(f"{mem_dir}/memory.max_usage_in_bytes", "w").write("0")
            except OSError:
                pass
        stats[n] = {"mem_dir": mem_dir, "cpu_dir": cpu_dir, "v2": v2, "cpu_start_s": cpu_seconds(cpu_dir, v2),
                    "mem_start": mem_now(mem_dir, v2), "mem_max_sampled": 0, "kinds_peak_kib": {k: 0 for k, _ in KINDS},
                    "kinds_peak_kib_other": 0, "samples": 0}
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    t0 = time.time()
    while not stop:
        for n, s in stats.items():
            try:
                s["mem_max_sampled"] = max(s["mem_max_sampled"], mem_now(s["mem_dir"], s["v2"]))
                st = mem_stat(s["mem_dir"])
                for k in ("rss", "cache", "anon", "file"):
                    if k in st:
                        s.setdefault("stat_peak", {})[k] = max(s.get("stat_peak", {}).get(k, 0), st[k])
                sums = {k: 0 for k, _ in KINDS}
                other = 0
                for p in procs(s["mem_dir"]):
                    try:
                        comm, args, kib = rss_kib(p)
                    except OSError:
                        continue
                    for k, match in KINDS:
                        if match(comm, args):
                            sums[k] += kib
                            break
                    else:
                        other += kib
                for k in sums:
                    s["kinds_peak_kib"][k] = max(s["kinds_peak_kib"][k], sums[k])
                s["kinds_peak_kib_other"] = max(s["kinds_peak_kib_other"], other)
                s["samples"] += 1
            except OSError:
                pass
        time.sleep(0.5)
    for n, s in stats.items():
        s["cpu_s"] = cpu_seconds(s["cpu_dir"], s["v2"]) - s["cpu_start_s"]
        s["mem_peak"] = mem_peak(s["mem_dir"], s["v2"])
        s["mem_end"] = mem_now(s["mem_dir"], s["v2"])
        s["mem_stat_end"] = {k: v for k, v in mem_stat(s["mem_dir"]).items() if k in ("rss", "cache", "anon", "file")}
    json.dump({"sampled_s": time.time() - t0, "containers": stats}, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
