package capacity

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/sim"
	"github.com/llmperf-course/course/coursekit/trace"
)

// reports are progress reports every 250 ms of the window at offered
// rate: sent and done grow by the given counts per report.
func reports(sent, done []int64) []loadgen.Progress {
	var out []loadgen.Progress
	var s, d int64
	for i := range sent {
		s, d = s+sent[i], d+done[i]
		out = append(out, loadgen.Progress{Phase: "window", Elapsed: time.Duration(i+1) * 250 * time.Millisecond, Sent: s, Done: d, InFlight: s - d})
	}
	return out
}

// The early stop is the overload test itself on the window's counts so
// far (the slope's interval wholly above 0 and the growth beyond its
// standard error), not a run of rising reports. In the engineer's case the
// in-flight count rose in each of 6 reports, 3 → 15 over 1.25 s, while
// completions held the offered 14/s: before, that stopped the step.
func TestOverloadWatchUsesTheSlopeInterval(t *testing.T) {
	// 14/s offered: 3.5 per report. Sends bunch up, completions keep pace
	// over the window, the in-flight count climbs for six reports.
	kept := reports([]int64{3, 5, 5, 4, 5, 4, 1, 2, 3, 3, 3, 4}, []int64{0, 3, 3, 2, 3, 2, 4, 5, 5, 5, 5, 4})
	w := newOverloadWatch(14)
	for _, p := range kept {
		if r := w.observe(p); r != "" {
			t.Fatalf("stopped at %v with %d in flight: %s", p.Elapsed, p.InFlight, r)
		}
	}
	// 100/s offered, 60/s completed: a queue growing by 40/s is decided
	// within a few reports, with the interval in the reason.
	sent, done := make([]int64, 20), make([]int64, 20)
	for i := range sent {
		sent[i], done[i] = 25, 15
	}
	w = newOverloadWatch(100)
	var reason string
	for _, p := range reports(sent, done) {
		if reason = w.observe(p); reason != "" {
			break
		}
	}
	if !strings.HasPrefix(reason, "overload: ") || !strings.Contains(reason, "offered − completed") {
		t.Fatalf("a queue growing by 40/s: reason %q", reason)
	}
}

// stoppedStep runs one step at four times the saturation of a one-slot
// simulator for a 20 s window, which the overload watch stops early, and
// the config it ran under.
func stoppedStep(t *testing.T) (Step, Config) {
	t.Helper()
	sc := sim.Config{MaxBatch: 1, DecodeStep: 2 * time.Millisecond, DefaultMaxTokens: 16, Seed: 1}
	sat := simSaturation(sc, promptTokens) // 31.25 req/s
	cfg := looseConfig(t, startSim(t, sc), sc.DefaultMaxTokens)
	cfg.StepDuration, cfg.StepMaxDuration = 20*time.Second, 20*time.Second
	s, err := cfg.runStepOnce(context.Background(), math.Round(4*sat))
	if err != nil {
		t.Fatal(err)
	}
	return s, cfg
}

// A step stopped early on overload says so in its trace: run_end.reason
// is "overload", not "interrupted" (which means Ctrl-C or a cancelled
// search), and the card reads the trace.
func TestStoppedEarlyTraceSaysOverload(t *testing.T) {
	s, cfg := stoppedStep(t)
	if s.Verdict != Fails || !s.StoppedEarly() || !s.Overloaded() {
		t.Fatalf("four times the saturation for 20 s: %s (%s), want stopped early on overload", s.Verdict, s.Reason)
	}
	tr, err := trace.ReadFile(s.Trace)
	if err != nil {
		t.Fatal(err)
	}
	end, err := tr.Header.RunEnd()
	if err != nil {
		t.Fatal(err)
	}
	if end == nil || end.Reason != trace.RunOverload || end.AtMS == nil || !end.CutShort() {
		t.Fatalf("run_end %+v, want reason %q with its at_ms", end, trace.RunOverload)
	}
	// The attempts the stop cut off are in flight, not failures: beside
	// the step's attempts, not among them (issue 35's walk, item 2).
	sum, err := cardopts.SummarizeFile(s.Trace, cfg.Flags())
	if err != nil {
		t.Fatal(err)
	}
	if s.InFlight == 0 || s.InFlight != sum.InFlight || s.Attempts != sum.Attempts-sum.InFlight || s.TraceAttempts() != sum.Attempts {
		t.Errorf("step attempts %d, in flight %d; the trace's card: %d attempts, %d in flight", s.Attempts, s.InFlight, sum.Attempts, sum.InFlight)
	}
}

// A pipeline filling from empty is not a growing queue (issue 35's walk,
// items 2 and 3): at 4 req/s with answers of about 1.1 s, the window opens
// with nothing in flight and nothing completes for its first second while
// the count rises to the 4–5 a filled pipeline holds. Counted from 0 that
// was 2.2 standard errors of growth, with completions below the offered
// rate: the step stopped as overload. Counted from the level (the reports'
// mean, or rate × the previous step's time in flight), it is not.
func TestOverloadWatchIgnoresTheFill(t *testing.T) {
	fill := reports([]int64{0, 1, 1, 1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0})
	for _, expected := range []float64{0, 4.4} {
		w := newOverloadWatch(4)
		w.expected = expected
		for _, p := range fill {
			if r := w.observe(p); r != "" {
				t.Fatalf("expected level %g: stopped at %v with %d in flight: %s", expected, p.Elapsed, p.InFlight, r)
			}
		}
	}
}
