package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/sim"
	"github.com/llmperf-course/course/coursekit/trace"
)

// lockedBuffer is a bytes.Buffer that a command's goroutine may write while
// the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// simStderr is `sim`'s stderr: it keeps what sim writes, and sends the
// address its first line names ("... on http://ADDR (POST ...") once, as a
// learner reads it off the terminal.
type simStderr struct {
	lockedBuffer
	addr chan string
	once sync.Once
}

var simListening = regexp.MustCompile(`on http://(\S+) \(`)

func (s *simStderr) Write(p []byte) (int, error) {
	n, err := s.lockedBuffer.Write(p)
	if m := simListening.FindStringSubmatch(s.String()); m != nil {
		s.once.Do(func() { s.addr <- m[1] })
	}
	return n, err
}

// runSim runs `coursekit sim ARGS --addr 127.0.0.1:0` in-process until ctx
// ends; it returns the address sim printed, its exit code once it ends, and
// its stderr.
func runSim(t *testing.T, ctx context.Context, args ...string) (addr string, done <-chan int, stderr *simStderr) {
	t.Helper()
	stderr = &simStderr{addr: make(chan string, 1)}
	exited := make(chan int, 1)
	go func() {
		exited <- runContext(ctx, append([]string{"sim", "--addr", "127.0.0.1:0"}, args...), &bytes.Buffer{}, stderr)
	}()
	select {
	case addr = <-stderr.addr:
	case code := <-exited:
		t.Fatalf("sim exited %d: %s", code, stderr.String())
	case <-time.After(time.Minute): // only if it hangs
		t.Fatal("sim did not start")
	}
	return addr, exited, stderr
}

// `coursekit sim` + `coursekit bench` produce a trace that `coursekit card`
// reads, all in-process on 127.0.0.1:0.
func TestSimBenchCard(t *testing.T) {
	ctx, stopSim := context.WithCancel(context.Background())
	defer stopSim()
	addr, simDone, simErr := runSim(t, ctx, "--decode-step", "1ms", "--max-batch", "32", "--model", "tiny")

	out := filepath.Join(t.TempDir(), "trace.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "50", "--arrival", "constant", "--duration", "600ms",
		"--warmup", "100ms", "--timeout", "1m", "--max-tokens", "5", "--progress", "200ms", "--out", out)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	for _, want := range []string{"coursekit bench:", "TTFT p50", "done after", "recorded 35 (ok 35)", "next: coursekit card " + out} {
		if !strings.Contains(errs, want) {
			t.Errorf("bench stderr lacks %q:\n%s", want, errs)
		}
	}

	code, card, errs := runCLI(t, "card", out, "--format", "json")
	if code != 0 {
		t.Fatalf("card exit %d: %s", code, errs)
	}
	var c struct {
		Attempts        int64           `json:"attempts"`
		CompleteSuccess int64           `json:"complete_successes"`
		OutsideWindow   int64           `json:"outside_window"`
		WindowS         float64         `json:"window_s"`
		TraceConditions json.RawMessage `json:"trace_conditions"`
	}
	if err := json.Unmarshal([]byte(card), &c); err != nil {
		t.Fatal(err)
	}
	var cond struct{ Model, Loop, Arrival string }
	json.Unmarshal(c.TraceConditions, &cond)
	// 50/s over 700 ms plans 35 sends, 5 of them in the warm-up. The card
	// places an attempt by when it was sent, so a send that lagged past an
	// edge of the window counts where it landed: compare with the trace.
	tr, err := trace.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	inWindow, plannedWarm := 0, 0
	for _, a := range tr.Attempts {
		if tr.Header.Window.Contains(a.StartMS) {
			inWindow++
		}
		var m struct {
			Scheduled float64 `json:"scheduled_ms"`
		}
		if json.Unmarshal(a.Meta, &m) == nil && m.Scheduled < 100 {
			plannedWarm++
		}
	}
	if len(tr.Attempts) != 35 || plannedWarm != 5 || c.Attempts != int64(inWindow) || c.CompleteSuccess != c.Attempts || c.OutsideWindow != int64(35-inWindow) || c.WindowS != 0.6 ||
		cond.Model != "tiny" || cond.Loop != "open" || cond.Arrival != "constant" {
		t.Errorf("card %d attempts, %d ok, %d outside, window %g s, conditions %+v; trace %d attempts, %d started in the window, %d planned in the warm-up",
			c.Attempts, c.CompleteSuccess, c.OutsideWindow, c.WindowS, cond, len(tr.Attempts), inWindow, plannedWarm)
	}

	stopSim()
	select {
	case code := <-simDone:
		if code != 0 || !strings.Contains(simErr.String(), "stopped") || strings.Contains(simErr.String(), "warning") {
			t.Errorf("sim exit %d: %s", code, simErr.String())
		}
	case <-time.After(time.Minute): // only if it hangs
		t.Fatal("sim did not stop")
	}
}

// Interrupting bench (SIGINT) leaves a valid trace in which every attempt
// sent is recorded, the window ends at the interrupt, the unfinished
// attempts are in flight, and the card says the run was cut short. The
// interrupt comes once five requests are in the server's engine; the
// answers are far too long to finish before it.
func TestBenchInterrupted(t *testing.T) {
	s := sim.New(sim.Config{DecodeStep: 20 * time.Millisecond, MaxBatch: 64})
	ts := httptest.NewServer(s)
	defer func() { s.Close(); ts.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for st := s.Stats(); st.QueueDepth+st.BatchSize < 5 && ctx.Err() == nil; st = s.Stats() {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	out := filepath.Join(t.TempDir(), "trace.jsonl")
	code, _, errs := runCLIContext(t, ctx, "bench", "--url", ts.URL, "--rate", "50", "--duration", "10m", "--timeout", "10m", "--max-tokens", "1000000", "--out", out)
	if code != 0 || !strings.Contains(errs, "interrupted at ") || !strings.Contains(errs, "of a planned 600s window") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	tr, err := trace.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	re, err := tr.Header.RunEnd()
	if err != nil || re == nil || re.Reason != trace.RunInterrupted || re.PlannedDurationMS != 600000 || tr.Header.Window.EndMS != *re.AtMS {
		t.Fatalf("run_end %+v, window %+v, %v", re, tr.Header.Window, err)
	}
	inflight := 0
	for _, a := range tr.Attempts {
		switch a.Outcome {
		case trace.InFlight:
			if tr.Header.Window.Contains(a.StartMS) {
				inflight++ // the card counts the window's attempts
			}
		case trace.OK:
		default:
			t.Errorf("attempt %s: %s", a.ID, a.Outcome)
		}
	}
	if len(tr.Attempts) < 5 || inflight == 0 || !strings.Contains(errs, "recorded "+strconv.Itoa(len(tr.Attempts))) {
		t.Errorf("%d attempts, %d in flight; %s", len(tr.Attempts), inflight, errs)
	}
	code, card, _ := runCLI(t, "card", out)
	if code != 0 || !strings.Contains(card, "这次运行被提前中断了") || !strings.Contains(card, "计划测量 600 s") ||
		!strings.Contains(card, strconv.Itoa(inflight)+" 次尝试记为在途，不算失败") {
		t.Errorf("card %d:\n%s", code, card)
	}
}

// Bad flags are exit code 2 and never reach the network.
func TestSimBenchBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--duration", "1s"},
		{"bench", "--rate", "5", "--concurrency", "2"},
		{"bench", "--rate", "5", "--arrival", "weibull"},
		{"bench", "--rate", "5", "--arrival", "constant", "--burstiness", "0.5"},
		{"bench", "--concurrency", "2", "--arrival", "poisson"},
		{"bench", "--rate", "5", "--url", "ftp://127.0.0.1:1"},
		{"bench", "--rate", "-1"},
		{"bench", "--rate", "5", "--api", "embeddings"},
		{"bench", "--rate", "5", "--timeout", "-1s"},
		{"bench", "--rate", "5", "--no-such-flag"},
		{"bench", "--rate", "5", "extra"},
		{"bench", "--rate", "5", "--api-key-env", "COURSEKIT_TEST_SURELY_UNSET"},
		{"sim", "--fail-503", "2"},
		{"sim", "--max-batch", "0"},
		{"sim", "--addr", "no-port"},
		{"sim", "--slowdown", "0"},
		{"sim", "--allow-host", "sim.internal:8000"},
		{"sim", "--allow-host", "http://sim.internal"},
		{"sim", "--allow-host", ""},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "": false, "0.0.0.0": false, "10.0.0.5": false} {
		if isLoopback(host) != want {
			t.Errorf("isLoopback(%q) != %v", host, want)
		}
	}
}

// --allow-host takes names and IPs (repeated or comma-separated), never a
// port or a URL.
func TestSimAllowHostFlag(t *testing.T) {
	var got []string
	f := hostsFlag{&got}
	for _, v := range []string{"sim.internal", "10.0.0.5, [::1]", "fe80::1", "*"} {
		if err := f.Set(v); err != nil {
			t.Errorf("--allow-host %q: %v", v, err)
		}
	}
	if want := "sim.internal,10.0.0.5,::1,fe80::1,*"; f.String() != want {
		t.Errorf("hosts %q, want %q", f.String(), want)
	}
}
