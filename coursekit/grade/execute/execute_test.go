package execute

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A failing cell is named by its position and first line, with the panic
// GoNB printed rather than the checker's generic complaint, even when the
// kernel flushed the panic line in two stream outputs.
func TestRunFailureQuotesTheCell(t *testing.T) {
	executed := []byte(`{"cells": [
	 {"cell_type": "markdown", "source": "# x", "outputs": []},
	 {"cell_type": "code", "source": ["%%\n", "var xs []int\n", "fmt.Println(xs[3])\n"], "outputs": [
	  {"output_type": "stream", "name": "stderr", "text": "panic: "},
	  {"output_type": "stream", "name": "stderr", "text": ["runtime error: index out of range [3] with length 0\n", "\n", "goroutine 1 [running]:\n"]},
	  {"output_type": "display_data", "data": {"text/html": "<div class=\"gonb-err-location\">…</div>"}},
	  {"output_type": "error", "ename": "ERROR", "evalue": "exit status 2", "traceback": []}]}]}`)
	log := "== x\nFAIL /tmp/w/submission.ipynb: cell 1: GoNB error HTML (gonb-err-location) in output\n"
	msg, detail := runFailure(log, executed, time.Minute)
	want := "从头重新运行时第 2 个单元格（以“var xs []int”开头）出错：panic: runtime error: index out of range [3] with length 0"
	if msg != want || !strings.Contains(detail, "gonb-err-location") {
		t.Errorf("runFailure =\n%q, %q\nwant\n%q", msg, detail, want)
	}
	msg, _ = runFailure("FAIL x: notebook: CellTimeoutError: A cell timed out", nil, 20*time.Second)
	if msg != "有一个单元格的运行超过了每个单元格 20s 的时限。" {
		t.Errorf("timeout message %q", msg)
	}
}

// The container is started with no network, no capabilities and the
// submission read-only.
func TestContainerExecutorArgs(t *testing.T) {
	e := &ContainerExecutor{Image: "llmperf-course-lab:latest", Memory: "2g"}
	args := strings.Join(e.Args(ExecJob{Name: "3-ann", Dir: "/tmp/sub", Notebook: "submission.ipynb", CellTimeout: 90 * time.Second}), " ")
	for _, want := range []string{"run --rm --name coursekit-grade-3-ann", "--network none", "--cap-drop ALL", "--security-opt no-new-privileges",
		"-v /tmp/sub:/submission:ro", "--memory 2g", "llmperf-course-lab:latest sh -c", "coursekit-grade submission.ipynb 90"} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %q:\n%s", want, args)
		}
	}
}

// fakeEngine writes a shell script standing in for podman: it logs its
// arguments and does what script says.
func fakeEngine(t *testing.T, script string) (engine, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	engine = filepath.Join(dir, "podman")
	body := "#!/bin/sh\necho \"$*\" >>" + log + "\n" + script + "\n"
	if err := os.WriteFile(engine, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatal(err)
	}
	return engine, log
}

// Run reads the executed notebook from stdout; a timeout removes the
// container by name; a runaway output is cut at MaxBytes; the engine's own
// failure (exit 125) is an environment failure.
func TestContainerExecutorRun(t *testing.T) {
	job := ExecJob{Name: "1-ann", Dir: t.TempDir(), Notebook: "submission.ipynb", CellTimeout: time.Second, MaxBytes: 1 << 20}

	engine, _ := fakeEngine(t, `[ "$1" = run ] && { echo '{"nbformat": 4}'; echo "== log" >&2; }`)
	res := (&ContainerExecutor{Engine: engine, Image: "img"}).Run(context.Background(), job)
	if res.Infra != nil || res.ExitCode != 0 || strings.TrimSpace(string(res.Executed)) != `{"nbformat": 4}` || !strings.Contains(res.Log, "== log") {
		t.Errorf("ok run: %+v", res)
	}

	engine, _ = fakeEngine(t, `[ "$1" = run ] && { echo "FAIL x: cell 2: error output" >&2; exit 1; }`)
	res = (&ContainerExecutor{Engine: engine, Image: "img"}).Run(context.Background(), job)
	if res.Infra != nil || res.ExitCode != 1 {
		t.Errorf("failed notebook: %+v", res)
	}

	engine, _ = fakeEngine(t, `[ "$1" = run ] && { echo "Error: image not known" >&2; exit 125; }`)
	res = (&ContainerExecutor{Engine: engine, Image: "img"}).Run(context.Background(), job)
	if res.Infra == nil || !strings.Contains(res.Infra.Error(), "image not known") {
		t.Errorf("engine failure: %+v", res)
	}

	engine, _ = fakeEngine(t, `[ "$1" = run ] && head -c 3000000 /dev/zero`)
	res = (&ContainerExecutor{Engine: engine, Image: "img"}).Run(context.Background(), job)
	if !res.TooLarge || len(res.Executed) > 1<<20 {
		t.Errorf("runaway output: TooLarge %v, %d bytes kept", res.TooLarge, len(res.Executed))
	}

	engine, calls := fakeEngine(t, `[ "$1" = run ] && exec sleep 30`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res = (&ContainerExecutor{Engine: engine, Image: "img"}).Run(ctx, job)
	if !res.TimedOut {
		t.Errorf("hung run: %+v", res)
	}
	b, _ := os.ReadFile(calls)
	if !strings.Contains(string(b), "rm -f -t 0 coursekit-grade-1-ann") {
		t.Errorf("the container was not removed on timeout; engine calls:\n%s", b)
	}

	engine, _ = fakeEngine(t, `[ "$1" = image ] && { echo "Error: img: image not known" >&2; exit 125; }`)
	if err := (&ContainerExecutor{Engine: engine, Image: "img"}).CheckImage(context.Background()); err == nil || !strings.Contains(err.Error(), "image not known") {
		t.Errorf("CheckImage = %v", err)
	}
}
