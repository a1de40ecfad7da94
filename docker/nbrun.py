#!/usr/bin/env python3
"""Run GoNB notebooks headless and fail on anything that went wrong.

    python docker/nbrun.py [--timeout-cell S] [--out DIR] [--trust] NOTEBOOK|DIR...
    python docker/nbrun.py --check-clean NOTEBOOK|DIR...
    python docker/nbrun.py --smoke

Run mode executes each notebook top to bottom with the `gonb` kernel through
nbclient (cwd = the notebook's folder), writes the executed copy into --out
(default: a new temp dir; the committed notebook is never written), prints the
kernel start, per-cell and whole-notebook wall times, and exits 1 naming the
notebook and cell index on:
  * an `error` output;
  * a stderr line starting "panic:" or matching "exit status N" (GoNB does not
    turn a failing `!` shell line into an error, and v0.11.3 did not for panics);
  * GoNB's error HTML (class gonb-err-location);
  * a kernel that is not GoNB (a Python kernel named "gonb" would run nothing).

--check-clean exits 1 if a notebook has outputs or execution counts (committed
notebooks are stored clean; CI executes them), is not set to the gonb kernel, or
carries another language_info than the kernel reports (JupyterLab would mark it
modified on open).

--smoke starts the gonb kernel, runs one tiny Go cell, prints the kernel start
and first-cell times and exits 1 with a hint if either fails (`make lab` runs
it before starting JupyterLab).

The kernel is found the usual Jupyter way (JUPYTER_PATH / JUPYTER_DATA_DIR):
`make lab-setup` installs it into .lab/jupyter and the make targets point
JUPYTER_DATA_DIR there.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time

import nbformat
import nbformat.sign
from nbclient import NotebookClient

KERNEL = "gonb"
# What JupyterLab writes into a notebook from the kernel's reply (docker/kernel_proxy.py sends
# exactly this); a notebook that carries anything else is marked modified as soon as it opens.
LANGUAGE_INFO = {"file_extension": ".go", "mimetype": "text/x-go", "name": "go"}
STDERR_FAIL = re.compile(r"^(panic: |exit status \d+\s*$)", re.M)
GONB_ERR_HTML = "gonb-err-location"


def find_notebooks(args):
    """Expand folders into the notebooks under them (sorted), skipping checkpoints."""
    found = []
    for a in args:
        if os.path.isdir(a):
            for root, dirs, files in os.walk(a):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".ipynb")]
        elif os.path.isfile(a):
            found.append(a)
        else:
            sys.exit(f"nbrun: {a}: no such notebook or folder")
    return found


def text_of(value):
    return "".join(value) if isinstance(value, list) else (value or "")


def check_cells(nb):
    """Return [(cell_index, reason)] for every failing cell of an executed notebook."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        stderr = ""
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            if kind == "error":
                problems.append((i, f"error output: {out.get('ename', '')}: {out.get('evalue', '')}".strip()))
            elif kind == "stream" and out.get("name") == "stderr":
                stderr += text_of(out.get("text"))
            elif kind in ("display_data", "execute_result", "update_display_data"):
                html = text_of(out.get("data", {}).get("text/html"))
                if GONB_ERR_HTML in html:
                    problems.append((i, "GoNB error HTML (gonb-err-location) in output"))
        # GoNB streams stderr in fragments: match lines over the joined text.
        for m in STDERR_FAIL.finditer(stderr):
            line = stderr[m.start():].split("\n", 1)[0]
            problems.append((i, f"stderr: {line.strip()}"))
    return problems


def first_line(cell):
    src = text_of(cell.get("source")).strip().splitlines()
    return src[0][:60] if src else ""


def out_path(nb_path, base, out_dir):
    rel = os.path.relpath(os.path.abspath(nb_path), base)
    dst = os.path.join(out_dir, rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    return dst


def kernel_logs(kernel_log, lines=30):
    """The end of a failed kernel's logs, indented, for the terminal (a build log keeps nothing else:
    the files are gone with the build container). The kernel log holds the proxy's own output; its
    line "gonb kernel log: PATH" names GoNB's log, of which this kernel's section is the last one."""
    def tail(path, start_marker=None):
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError as e:
            return [f"({e})"]
        if start_marker and start_marker in text:
            text = text[text.rfind(start_marker):]
        return text.rstrip().splitlines()[-lines:] or ["(empty)"]

    out = [f"     --- {kernel_log} (last {lines} lines)"]
    own = tail(kernel_log)
    out += ["     | " + l[:300] for l in own]
    for l in own:
        if l.startswith("gonb kernel log: "):
            gonb_log = l.split(": ", 1)[1].strip()
            out += [f"     --- {gonb_log}, this kernel's section (last {lines} lines)"]
            out += ["     | " + g[:300] for g in tail(gonb_log, "\n==== ")]
    return "\n".join(out)


def run_one(path, dst, timeout_cell, startup_timeout, trust, kernel_log):
    nb = nbformat.read(path, as_version=4)
    nbdir = os.path.dirname(os.path.abspath(path))
    times, starts = {}, {}
    kernel = {}
    t0 = time.perf_counter()

    client = NotebookClient(
        nb,
        kernel_name=KERNEL,
        timeout=timeout_cell,
        startup_timeout=startup_timeout,
        allow_errors=True,  # run every cell; the checker reports all failures
        resources={"metadata": {"path": nbdir}},
    )

    async def on_start(notebook):
        kernel["start_s"] = time.perf_counter() - t0
        spec = client.km.kernel_spec
        # The gonb binary: argv[0], or behind docker/kernel_proxy.py after its "--".
        argv = spec.argv if spec and spec.argv else []
        kernel["argv0"] = next((a for a in argv if os.path.basename(a) == KERNEL), argv[0] if argv else "")
        kernel["spec_dir"] = getattr(spec, "resource_dir", "")
        msg_id = client.kc.kernel_info()
        reply = await client.async_wait_for_reply(msg_id)
        content = reply["content"] if reply else {}
        kernel["implementation"] = content.get("implementation", "")
        kernel["language"] = content.get("language_info", {}).get("name", "")

    def on_execute(cell, cell_index):
        starts[cell_index] = time.perf_counter()

    def on_executed(cell, cell_index, execute_reply):
        times[cell_index] = time.perf_counter() - starts.get(cell_index, time.perf_counter())

    client.on_notebook_start = on_start
    client.on_cell_execute = on_execute
    client.on_cell_executed = on_executed

    problems = []
    try:
        with open(kernel_log, "wb") as log:  # GoNB logs a lot to stderr
            client.execute(stdout=log, stderr=log)
    except Exception as e:  # timeout, dead kernel, kernel that would not start
        problems.append((None, f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"))
    total = time.perf_counter() - t0

    is_gonb = (
        os.path.basename(kernel.get("argv0", "")) == "gonb"
        and kernel.get("implementation", "").lower() == "gonb"
        and kernel.get("language") == "go"
    )
    if kernel and not is_gonb:
        problems.append((None, "kernel is not GoNB: argv0=%r implementation=%r language=%r (spec %s)" % (
            kernel.get("argv0"), kernel.get("implementation"), kernel.get("language"), kernel.get("spec_dir"))))
    problems += check_cells(nb)

    if trust:
        nbformat.sign.NotebookNotary().sign(nb)
    nbformat.write(nb, dst)

    print(f"== {path}: kernel {kernel.get('implementation', '?')} started in {kernel.get('start_s', float('nan')):.2f} s")
    for i, cell in enumerate(nb.cells):
        if i in times:
            print(f"   cell {i:2d}  {times[i]:6.2f} s  {first_line(cell)}")
    print(f"   whole notebook {total:.2f} s -> {dst}")
    return problems


def check_clean(paths):
    bad = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            ids = [c.get("id") for c in json.load(f).get("cells", [])]
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        issues = []
        # nbformat renames a repeated id on load (a warning, not an error); JupyterLab does too.
        repeated = sorted({i for i in ids if i and ids.count(i) > 1})
        if repeated:
            issues.append(f"cell ids {repeated} are not unique")
        ks = nb.metadata.get("kernelspec", {}).get("name")
        if ks != KERNEL:
            issues.append(f"metadata.kernelspec.name is {ks!r}, want {KERNEL!r}")
        li = dict(nb.metadata.get("language_info", {}))
        if li != LANGUAGE_INFO:
            issues.append(f"metadata.language_info is {li!r}, want {LANGUAGE_INFO!r} (what the kernel reports)")
        for i, cell in enumerate(nb.cells):
            if "id" not in cell:
                issues.append(f"cell {i}: no id")
            if cell.cell_type != "code":
                continue
            if cell.get("outputs"):
                issues.append(f"cell {i}: has {len(cell.outputs)} output(s)")
            if cell.get("execution_count") is not None:
                issues.append(f"cell {i}: execution_count {cell.execution_count}")
        if nb.metadata.get("signature"):
            issues.append("notebook carries a trust signature")
        for msg in issues:
            print(f"nbrun: {path}: {msg}", file=sys.stderr)
        bad += bool(issues)
        print(f"{'FAIL' if issues else 'ok  '} clean: {path}")
    return bad


def smoke(startup_timeout, cell_timeout):
    """Start the gonb kernel and run one cell; return an exit code."""
    from jupyter_client.kernelspec import NoSuchKernel
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name=KERNEL)
    try:
        spec = km.kernel_spec
    except NoSuchKernel:
        print(f"smoke: no Jupyter kernel named {KERNEL!r} (JUPYTER_DATA_DIR={os.environ.get('JUPYTER_DATA_DIR', '')}): "
              "run `make lab-setup`", file=sys.stderr)
        return 1
    log_path = os.path.join(tempfile.mkdtemp(prefix="gonb-smoke-"), "kernel.log")
    t0 = time.perf_counter()
    out, errors = [], []
    with open(log_path, "wb") as log:
        try:
            km.start_kernel(stdout=log, stderr=log)
        except Exception as e:
            print(f"smoke: could not start {spec.argv[0]}: {e}", file=sys.stderr)
            return 1
        kc = km.client()
        kc.start_channels()
        try:
            try:
                kc.wait_for_ready(timeout=startup_timeout)
            except RuntimeError as e:
                print(f"smoke: the gonb kernel did not become ready in {startup_timeout:.0f} s: {e}", file=sys.stderr)
                print(kernel_logs(log_path), file=sys.stderr)
                return 1
            t_ready = time.perf_counter() - t0

            def hook(msg):
                c = msg["content"]
                if msg["msg_type"] == "stream":
                    (errors if c.get("name") == "stderr" else out).append(c.get("text", ""))
                elif msg["msg_type"] == "error":
                    errors.append(f"{c.get('ename')}: {c.get('evalue')}")

            t1 = time.perf_counter()
            reply = kc.execute_interactive('%%\nfmt.Println("gonb-smoke-ok")', timeout=cell_timeout, output_hook=hook)
            t_cell = time.perf_counter() - t1
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=False)
    ok = reply["content"].get("status") == "ok" and "gonb-smoke-ok" in "".join(out)
    if not ok:
        print("smoke: the gonb kernel started but could not run a Go cell:", file=sys.stderr)
        for e in errors:
            print("   " + e.strip()[:2000], file=sys.stderr)
        print(kernel_logs(log_path), file=sys.stderr)
        return 1
    print(f"smoke: gonb kernel ready in {t_ready:.2f} s, first cell ran in {t_cell:.2f} s ({spec.argv[0]})")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("notebooks", nargs="*", metavar="NOTEBOOK", help="notebooks or folders to search")
    p.add_argument("--timeout-cell", type=float, default=600, metavar="S", help="seconds per cell (default 600)")
    p.add_argument("--startup-timeout", type=float, default=60, metavar="S", help="seconds for the kernel to start")
    p.add_argument("--out", metavar="DIR", help="where executed copies go (default: a new temp dir)")
    p.add_argument("--trust", action="store_true",
                   help="sign the executed copies so JupyterLab runs their scripts when reopened")
    p.add_argument("--check-clean", action="store_true",
                   help="only check that the notebooks carry no outputs or execution counts")
    p.add_argument("--smoke", action="store_true", help="start the gonb kernel and run one tiny cell")
    a = p.parse_args(argv)

    if a.smoke:
        return smoke(a.startup_timeout, min(a.timeout_cell, 120))
    if not a.notebooks:
        p.error("give at least one notebook or folder")

    paths = find_notebooks(a.notebooks)
    if not paths:
        sys.exit("nbrun: no notebooks found in " + " ".join(a.notebooks))

    if a.check_clean:
        bad = check_clean(paths)
        print(f"nbrun clean check: {len(paths) - bad} passed, {bad} failed")
        return 1 if bad else 0

    out_dir = os.path.abspath(a.out or tempfile.mkdtemp(prefix="nbrun-"))
    base = os.path.commonpath([os.path.dirname(os.path.abspath(q)) for q in paths])
    failed = 0
    for path in paths:
        dst = out_path(path, base, out_dir)
        if os.path.exists(dst) and os.path.samefile(dst, path):
            sys.exit(f"nbrun: refusing to overwrite the committed notebook {path}; choose another --out")
        log = os.path.splitext(dst)[0] + ".kernel.log"
        problems = run_one(path, dst, a.timeout_cell, a.startup_timeout, a.trust, log)
        for idx, reason in problems:
            where = "notebook" if idx is None else f"cell {idx}"
            print(f"FAIL {path}: {where}: {reason}", file=sys.stderr)
        if problems:
            print(f"     kernel log: {log}", file=sys.stderr)
        if any(idx is None for idx, _ in problems):  # the kernel itself failed: show why, here
            print(kernel_logs(log), file=sys.stderr)
        failed += bool(problems)
    print(f"nbrun: {len(paths) - failed} passed, {failed} failed (executed copies in {out_dir})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
