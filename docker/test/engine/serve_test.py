"""docker/engine/serve.py's start-up contract, against the real engine (make test-engine runs it):
a taken port and a missing model are refused with a clear message before anything loads,
the ready line comes only once /health answers 200, and Ctrl-C stops it with status 0.
Ports come from the OS (port 0), so runs in parallel do not collide."""

import os
import signal
import socket
import subprocess
import sys
import time
import unittest
import urllib.request

# serve.py runs from its own folder, as `make engine` runs it (a stray copy.py elsewhere would shadow Python's own).
ENGINE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "engine")
SERVE = os.path.join(ENGINE, "serve.py")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def serve(*args, **kw):
    return subprocess.Popen([sys.executable, SERVE, *args], cwd=ENGINE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


class ServeTest(unittest.TestCase):
    def test_taken_port_is_named(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        try:
            p = serve("--port", str(port))
            out, err = p.communicate(timeout=60)
        finally:
            s.close()
        self.assertEqual(p.returncode, 2, err)
        self.assertIn(f"port {port} on 127.0.0.1 is already in use", err)
        self.assertIn(f"ENGINE_PORT={port + 1}", err)
        self.assertNotIn("ready", out)

    def test_missing_model_is_named(self):
        p = serve("--port", str(free_port()), "--model", os.path.join(ENGINE, "no-such-model.gguf"))
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 2, err)
        self.assertIn("no-such-model.gguf is missing", err)

    def test_bad_knob_is_refused(self):
        p = serve("--port", str(free_port()), "--threads", "0")
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 2, err)
        self.assertIn("--threads 0", err)

    def test_ready_means_healthy_and_ctrl_c_stops_cleanly(self):
        port = free_port()
        p = serve("--port", str(port))
        try:
            line = p.stdout.readline()
            self.assertIn(f"engine: ready on http://127.0.0.1:{port}", line)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
                self.assertEqual(r.status, 200)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as r:
                self.assertIn(b'"smollm2-135m"', r.read())
            p.send_signal(signal.SIGINT)
            p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
            p.stdout.close()
            err = p.stderr.read()
            p.stderr.close()
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("engine: stopping", err)
        # The port is free again once it has stopped (TIME_WAIT aside, as a server binds).
        deadline = time.monotonic() + 10
        while True:
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
            finally:
                s.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
