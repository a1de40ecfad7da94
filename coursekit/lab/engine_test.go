package lab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The engine's plumbing, with a stand-in for serve.py that speaks its
// contract (the ready line, SIGINT); the real engine is tested by
// `make test-engine` (engine_real_test.go).
const fakeServe = `
import signal, sys, time
args = sys.argv[1:]
port = args[args.index("--port") + 1]
if "--fail" in open(__file__).read().split("#FLAGS")[-1]:
    print("engine: model file x.gguf is missing", file=sys.stderr, flush=True)
    sys.exit(2)
signal.signal(signal.SIGINT, lambda *a: (print("engine: stopping", file=sys.stderr, flush=True), sys.exit(0)))
print("loading", " ".join(args), file=sys.stderr, flush=True)
print("engine: ready on http://127.0.0.1:" + port, flush=True)
while True:
    time.sleep(0.05)
#FLAGS`

func python3(t *testing.T) string {
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed by the engine and its tests:", err)
	}
	return p
}

func writeFake(t *testing.T, flags string) string {
	p := filepath.Join(t.TempDir(), "serve.py")
	if err := os.WriteFile(p, []byte(fakeServe+flags+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEngineStartsOnLoopbackAndStopsOnSIGINT(t *testing.T) {
	e := Engine{Python: python3(t), Serve: writeFake(t, ""), Parallel: 4, NoPromptCache: true}
	p, err := e.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.URL, "http://127.0.0.1:") {
		t.Errorf("URL %s", p.URL)
	}
	if p.Info.Threads != 1 || p.Info.Parallel != 4 || p.Info.Ctx != 2048 || !p.Info.NoPromptCache || p.Info.StartMS <= 0 {
		t.Errorf("info %+v", p.Info)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	log := p.Log()
	for _, want := range []string{"--threads 1", "--parallel 4", "--no-cache-prompt", "engine: stopping"} {
		if !strings.Contains(log, want) {
			t.Errorf("engine log lacks %q:\n%s", want, log)
		}
	}
	if err := p.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

func TestEngineThatFailsToStartSaysWhy(t *testing.T) {
	e := Engine{Python: python3(t), Serve: writeFake(t, "--fail"), StartTimeout: 30 * time.Second}
	_, err := e.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "x.gguf is missing") || !strings.Contains(err.Error(), "stopped before it was ready") {
		t.Fatalf("err %v", err)
	}
}

func TestMissingEngineNamesTheSetupCommand(t *testing.T) {
	e := Engine{Python: filepath.Join(t.TempDir(), "no-python")}
	_, err := e.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "make engine-setup") || !strings.Contains(err.Error(), EnginePythonEnv) {
		t.Fatalf("err %v", err)
	}
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	b := &tailBuffer{max: 8}
	b.Write([]byte("0123456789"))
	b.Write([]byte("ab"))
	if got := b.String(); got != "456789ab" {
		t.Fatalf("%q", got)
	}
}
