package capacity

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/sim"
)

// The simulator's capacity follows from its configuration: simBatch
// sequences per step, 2 ms per step whatever the batch, 10 tokens per
// answer (one per step, the first in the admitting step), so each slot
// serves one request per 20 ms: saturation is batch / 0.020 s. The search
// tests use 8 slots (400 req/s): at the 20 req/s start a request's 20 ms of
// service leaves the slots idle most of the time, so the first steps meet
// the 100 ms SLO even when a loaded, race-instrumented machine makes each
// step several times slower. The overload test uses 2 slots (100 req/s).
const (
	simBatch      = 8
	overloadBatch = 2
	simStep       = 2 * time.Millisecond
	simTokens     = 10
)

func saturation(batch int) float64 { return float64(batch) / (simTokens * 0.002) }

func newSim(t *testing.T, batch int) string {
	t.Helper()
	s := sim.New(sim.Config{MaxBatch: batch, DecodeStep: simStep, DecodePerSeq: 0, PrefillPerToken: 0, DefaultMaxTokens: simTokens, Seed: 1})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL
}

func config(t *testing.T, url string) Config {
	t.Helper()
	// Prompts that are not arithmetic get simTokens filler tokens; any
	// non-blank answer passes, so quality is judged and never the limit.
	file := filepath.Join(t.TempDir(), "any.jsonl")
	if err := os.WriteFile(file, []byte(`{"prompt": "say anything", "expect": {"regex": "\\S"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(file, 1)
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Bench:      loadgen.Config{URL: url, MaxTokens: simTokens, Timeout: 5 * time.Second, Seed: 1, Dataset: ds},
		Target:     0.9,
		SLOTTFTMS:  100,
		StartRate:  20,
		MaxRate:    1600,
		Growth:     2,
		Resolution: 60,
		Warmup:     200 * time.Millisecond,
		// 1 s at 20 req/s is about 20 attempts: even all qualifying, the
		// Wilson lower bound (0.84 at 20/20) is below 0.9, so it must extend.
		StepDuration:    time.Second,
		StepMaxDuration: 2 * time.Second,
		OutDir:          t.TempDir(),
	}
}

// On a loaded machine (test-flakes: -count=10 under stress-ng beside other
// builds) a stall of over 100 ms made 2 of the first step's 40 attempts miss
// the SLO at 20 req/s; at target 0.9, 38/40 is undecided even at the longest
// window, so no rate met. The search here asks for 0.8, starts at 10 req/s
// (a 1 s window is undecided and must extend), so a stall or two does not
// hide a rate that meets. Resolution 200 ends the bisection after the probe
// at 480 req/s and never probes the saturation point of 400 itself, where a
// short window may go either way.
//
// Seen again in make test (go test -race ./...) on a shared 2-core machine at
// load average 17: stalls made 3 of the 39 attempts of the 4 s window at
// 10 req/s miss the SLO, and 36/39 (Wilson [0.797, 0.973]) still holds 0.8,
// so the longest window was undecided and no rate met. Misses from stalls
// grow with the window's length, but the interval narrows faster: windows
// now extend to 8 s (about 80 attempts at 10 req/s), where up to 8 misses
// (72/80, Wilson lower bound 0.815) still meet. On an idle machine the 2 s
// window (20/20, lower bound 0.84) meets and nothing changes.
func TestSearchFindsCapacityBelowSaturation(t *testing.T) {
	saturationS := saturation(simBatch)
	c := config(t, newSim(t, simBatch))
	c.Target, c.StartRate, c.Resolution, c.StepMaxDuration = 0.8, 10, 200, 8*time.Second
	res, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxRateMeeting == nil || *res.MaxRateMeeting >= saturationS {
		t.Fatalf("answer %v, want a rate below the saturation %g req/s; steps %+v", res.MaxRateMeeting, saturationS, res.Steps)
	}
	ans := *res.MaxRateMeeting
	// The answer's margin is its own step's keep-up bound, not below 0,
	// and within the resolution (a step meets only so): the server may
	// sustain up to that much less (walk 35f, item 2).
	if a := res.AnswerStep(); a == nil || a.Load == nil || res.AnswerWithinPerS == nil ||
		*res.AnswerWithinPerS != max(0, a.Load.KeepUpBound) || *res.AnswerWithinPerS > c.Resolution {
		t.Errorf("answer within %v, want its step's keep-up bound, at least 0 and at most %g", res.AnswerWithinPerS, c.Resolution)
	}
	for _, s := range res.Steps {
		t.Logf("step %g req/s: %d/%d %s (%s)", s.Rate, s.Qualified, s.Attempts, s.Verdict, s.Reason)
	}
	above := -1.0
	seen := map[string]bool{}
	for _, s := range res.Steps {
		if s.Rate > ans && (above < 0 || s.Rate < above) {
			above = s.Rate
		}
		// Verdicts follow the Wilson interval exactly (an overloaded step,
		// stopped early or by OverloadTest, fails whatever its attainment).
		v, _, _, _ := Verdict(s.Qualified, s.Attempts, c.Target)
		if !s.Overloaded() && v != s.Verdict {
			t.Errorf("step %g: %d/%d gives %s, step says %s", s.Rate, s.Qualified, s.Attempts, v, s.Verdict)
		}
		// Each step's trace recomputes to its counts (with the attempts a
		// stop on overload cut off: CI saw 342/352 + 10) and is its own file.
		sum, err := metrics.SummarizeFile(s.Trace, metrics.Options{SLOsMS: []float64{c.SLOTTFTMS}})
		if err != nil || sum.Attempts != s.TraceAttempts() || sum.InFlight != s.InFlight || sum.Conditions[0].Qualified != s.Qualified {
			t.Errorf("step %g: trace %s does not recompute to %d/%d (%v)", s.Rate, s.Trace, s.Qualified, s.Attempts, err)
		}
		if seen[s.Trace] {
			t.Errorf("trace %s reused", s.Trace)
		}
		seen[s.Trace] = true
	}
	for _, s := range res.Steps {
		if s.Rate == above && s.Verdict == Meets {
			t.Errorf("the step above the answer (%g req/s) meets", above)
		}
		if s.Rate <= ans && s.Verdict != Meets {
			t.Errorf("a rate at or below the answer (%g) does not meet", s.Rate)
		}
	}
	if above < 0 {
		t.Errorf("no step above the answer %g", ans)
	}
	if first := res.Steps[0]; first.Extended == 0 {
		t.Errorf("the first step (%d attempts in %g s) was not extended: %+v", first.Attempts, first.WindowS, first)
	}
	files, _ := os.ReadDir(c.OutDir)
	if n := len(files); n < len(res.Steps)+1 { // the extended step wrote two traces
		t.Errorf("%d traces for %d steps", n, len(res.Steps))
	}
}

func TestOverloadedStepStopsEarly(t *testing.T) {
	c := config(t, newSim(t, overloadBatch))
	c.StartRate, c.MaxRate, c.Resolution = 3*saturation(overloadBatch), 1000, 10
	c.StepDuration, c.StepMaxDuration = 6*time.Second, 6*time.Second
	t0 := time.Now()
	s, err := c.runStepOnce(context.Background(), c.StartRate)
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict != Fails || !strings.Contains(s.Reason, "overload") {
		t.Errorf("step at 3× saturation: %s (%s), want fails for overload", s.Verdict, s.Reason)
	}
	if el := time.Since(t0); el >= 6*time.Second {
		t.Errorf("the overloaded step ran %v, its whole window", el)
	}
}

func TestInterruptKeepsFinishedSteps(t *testing.T) {
	c := config(t, newSim(t, simBatch))
	c.StepDuration = 300 * time.Millisecond
	// The first step must finish and meet, so that the search goes on to a second one to
	// interrupt: with a 100 ms SLO and target 0.9 a loaded machine (load average 20 in the flake
	// hunt) left it undecided or failing, and the search ended before any interrupt. 5 s and 0.5
	// are met by a handful of attempts.
	c.SLOTTFTMS, c.Target = 5000, 0.5
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.OnStep = func(s Step) {
		if s.Verdict != Interrupted {
			go func() { time.Sleep(100 * time.Millisecond); cancel() }()
		}
	}
	var runs []float64
	c.OnRun = func(rate float64, window time.Duration) {
		if window != c.StepDuration {
			t.Errorf("run at %g: window %v, want the first window %v", rate, window, c.StepDuration)
		}
		runs = append(runs, rate)
	}
	res, err := Search(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Provisional || len(res.Steps) != 2 || res.Steps[0].Verdict == Interrupted || res.Steps[1].Verdict != Interrupted {
		t.Fatalf("interrupted search: provisional %v, steps %+v", res.Provisional, res.Steps)
	}
	if len(runs) != 2 || runs[0] != res.Steps[0].Rate || runs[1] != res.Steps[1].Rate {
		t.Errorf("OnRun learned %v as the runs started; the steps are %g, %g", runs, res.Steps[0].Rate, res.Steps[1].Rate)
	}
}

func TestBadInputBeforeLoad(t *testing.T) {
	good := config(t, "http://127.0.0.1:1")
	for name, mod := range map[string]func(*Config){
		"target 0":   func(c *Config) { c.Target = 0 },
		"target 1.5": func(c *Config) { c.Target = 1.5 },
		"resolution": func(c *Config) { c.Resolution = 500 },
	} {
		c := good
		mod(&c)
		if _, err := Search(context.Background(), c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	_, err := Search(context.Background(), good)
	if err == nil || !strings.Contains(err.Error(), "not answering") {
		t.Errorf("server down: %v", err)
	}
	if files, _ := os.ReadDir(good.OutDir); len(files) != 0 {
		t.Errorf("%d traces written before the error", len(files))
	}
}

// The fewest attempts that can meet a target: all qualifying, the Wilson
// lower bound reaches 0.9 at 35 (34/34 falls short); one fewer is at best
// undecided; a target of 1 is never met.
func TestAttemptsToMeet(t *testing.T) {
	for target, want := range map[float64]int{0.9: 35, 0.5: 4, 0.95: 73} {
		n := AttemptsToMeet(target)
		if n != want {
			t.Errorf("target %g: %d attempts, want %d", target, n, want)
		}
		if v, _, _, _ := Verdict(int64(n-1), int64(n-1), target); v == Meets {
			t.Errorf("target %g: %d of %d already meets", target, n-1, n-1)
		}
	}
	if n := AttemptsToMeet(1); n != 0 {
		t.Errorf("target 1: %d, want 0 (never)", n)
	}
}
