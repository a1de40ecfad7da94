#!/usr/bin/env python3
"""Negative tests for docker/nbrun.py: the checker must fail bad notebooks.

Each case writes a small notebook into a temp dir, runs nbrun.py on it with the
real gonb kernel and checks the exit code and the message (notebook and cell
index). A good notebook must pass, so a broken kernel cannot make every case
"fail as expected". Run: python docker/test/nbrun_test.py (needs the kernel from
`make lab-setup`, found through JUPYTER_DATA_DIR).
"""

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = os.path.dirname(os.path.abspath(__file__))
NBRUN = os.path.join(os.path.dirname(HERE), "nbrun.py")  # docker/nbrun.py
GONB = {"name": "gonb", "display_name": "Go (gonb)", "language": "go"}
LANGUAGE_INFO = {"file_extension": ".go", "mimetype": "text/x-go", "name": "go"}
HELLO = '%%\nfmt.Println("hello")'


def write_nb(d, name, *sources):
    cells = [new_markdown_cell("# test")] + [new_code_cell(s) for s in sources]
    path = os.path.join(d, name + ".ipynb")
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": GONB, "language_info": LANGUAGE_INFO}), path)
    return path


def nbrun(*args, env=None):
    p = subprocess.run([sys.executable, NBRUN, *args], capture_output=True, text=True,
                       env=env, timeout=600)
    return p.returncode, p.stdout + p.stderr


def main():
    passed = failed = 0
    work = tempfile.mkdtemp(prefix="nbrun-test-")
    out = os.path.join(work, "out")

    def case(name, ok, detail):
        nonlocal passed, failed
        print(("ok   " if ok else "FAIL ") + name)
        if not ok:
            print("     " + detail.replace("\n", "\n     "))
        passed += ok
        failed += not ok

    # Positive control: a good notebook passes (cell 1 = first code cell).
    good = write_nb(work, "good", 'import "github.com/llmperf-course/course/coursekit"\n\n%%\nfmt.Println(coursekit.Version)')

    # Each bad cell comes after a good one, so the index must say "cell 2".
    bad = {
        "panic": ('%%\npanic("boom")', "stderr: panic: boom"),
        "compile-error": ('%%\nx := "x" + 1\nfmt.Println(x)', "error output"),
        "shell-false": ("!false", "stderr: exit status 1"),
        "os-exit": ('%%\nos.Exit(3)', "exit status 3"),
    }
    paths = {name: write_nb(work, name, HELLO, src) for name, (src, _) in bad.items()}

    # A Python kernel installed under the name "gonb" must be caught.
    fake = os.path.join(work, "fake-jupyter")
    spec = os.path.join(fake, "kernels", "gonb")
    os.makedirs(spec)
    with open(os.path.join(spec, "kernel.json"), "w") as f:
        json.dump({"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                   "display_name": "not gonb", "language": "python"}, f)
    fake_env = dict(os.environ, JUPYTER_DATA_DIR=fake, JUPYTER_PATH="")
    wrong = write_nb(work, "wrong-kernel", 'print("hello")')

    # A kernel that dies at startup: the failure shows the end of its log and of the GoNB log
    # it names (an image build keeps no files to look at afterwards).
    dying = os.path.join(work, "dying-jupyter")
    os.makedirs(os.path.join(dying, "kernels", "gonb"))
    gonb_log = os.path.join(work, "gonb.log")
    with open(gonb_log, "w") as f:
        f.write("\n==== earlier kernel\nold-section-marker\n\n==== this kernel\nthis-section-marker\n")
    with open(os.path.join(dying, "kernels", "gonb", "kernel.json"), "w") as f:
        json.dump({"argv": [sys.executable, "-c",
                            f"import sys; print('gonb kernel log: {gonb_log}', file=sys.stderr); "
                            "print('proxy-died-marker', file=sys.stderr); sys.exit(3)"],
                   "display_name": "dies", "language": "go"}, f)
    dying_env = dict(os.environ, JUPYTER_DATA_DIR=dying, JUPYTER_PATH="")

    # Three runs side by side: the good notebook alone (must exit 0), all bad ones in one
    # run (must exit 1 and name each one), and the fake kernel.
    with ThreadPoolExecutor(max_workers=3) as pool:
        f_good = pool.submit(nbrun, "--out", os.path.join(out, "good"), good)
        f_bad = pool.submit(nbrun, "--out", os.path.join(out, "bad"), *paths.values())
        f_wrong = pool.submit(nbrun, "--out", os.path.join(out, "wrong"), wrong, env=fake_env)
        f_dying = pool.submit(nbrun, "--out", os.path.join(out, "dying"), "--startup-timeout", "30", good,
                              env=dying_env)

    rc, log = f_good.result()
    case("good notebook passes", rc == 0 and "1 passed, 0 failed" in log and "FAIL" not in log, log)
    rc, log = f_bad.result()
    case("a run with bad notebooks exits 1", rc == 1 and f"0 passed, {len(bad)} failed" in log, log)
    for name, (_, want) in bad.items():
        lines = [l for l in log.splitlines() if l.startswith(f"FAIL {paths[name]}: ")]
        case(f"{name} fails", any(l.startswith(f"FAIL {paths[name]}: cell 2: ") and want in l for l in lines),
             "\n".join(lines) or log)
    rc, log = f_wrong.result()
    case("a non-GoNB kernel fails", rc == 1 and "kernel is not GoNB" in log, log)
    rc, log = f_dying.result()
    case("a kernel that dies at startup fails and shows its logs",
         rc == 1 and "| proxy-died-marker" in log and "| this-section-marker" in log
         and "old-section-marker" not in log, log)

    # The clean check: the committed form passes, the executed copy does not.
    rc, log = nbrun("--check-clean", good)
    case("clean notebook passes --check-clean", rc == 0, log)
    rc, log = nbrun("--check-clean", os.path.join(out, "good", "good.ipynb"))
    case("executed notebook fails --check-clean", rc == 1 and "output(s)" in log and "execution_count" in log, log)

    # Two cells with one id: nbformat renames one on load, so the check reads the file itself.
    with open(good) as f:
        raw = json.load(f)
    raw["cells"].append(dict(raw["cells"][-1]))
    twin = os.path.join(work, "twin.ipynb")
    with open(twin, "w") as f:
        json.dump(raw, f)
    rc, log = nbrun("--check-clean", twin)
    case("a notebook with a repeated cell id fails --check-clean", rc == 1 and "not unique" in log, log)

    # The committed notebook itself is never written.
    with open(good) as f:
        case("nbrun leaves the input notebook clean", '"outputs": []' in f.read(), "input was modified")

    print(f"nbrun-selftest: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
