package main

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
)

// stoppedOverload is a step stopped early on overload whose window (5.3 s,
// the trace's to the stop) is not the overload test's (3.2 s, the span that
// stopped it).
func stoppedOverload(t *testing.T) capacity.Step {
	t.Helper()
	lc, err := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 400, WindowS: 3.2, Arrivals: 1280, Completions: 640, InFlightStart: 10, InFlightEnd: 650, Resolution: 125})
	if err != nil || !lc.Overloaded {
		t.Fatalf("fixture: %+v, %v", lc, err)
	}
	return capacity.Step{Rate: 400, Attempts: 700, Qualified: 700, InFlight: 650, WindowS: 5.3, Verdict: capacity.Fails,
		Reason: "stopped early: " + lc.Reason(), Load: &lc}
}

// Issue 35, item 2: a step stopped early printed the overload test's
// figures beside the step's window (5.3 s) although they came from the
// test's own (3.2 s). The text names the window beside the figures, in zh
// and en.
func TestCapacityTextLoadFiguresNameTheirWindow(t *testing.T) {
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Steps: []capacity.Step{stoppedOverload(t)}, BoundedBy: capacity.BoundNoRate}
	for lg, want := range map[lang.Lang]string{
		lang.EN: "    in the overload test's 3.2 s window: 640 completed = 200/s",
		lang.ZH: "    过载检验的 3.2 s 窗口里：完成 640 次 = 200 次/s",
	} {
		got := capacityTextIn(lg, r)
		if !strings.Contains(got, want) {
			t.Errorf("%s: the load figures do not name their window (%q):\n%s", lg, want, got)
		}
	}
	// Issue 35, item 3: one step is "1 step", not "1 steps".
	if got := capacityTextIn(lang.EN, r); !strings.Contains(got, "\n1 step in ") {
		t.Errorf("a search of one step:\n%s", got)
	}
}

// Issue 35, item 1: a step interrupted before its window began measured
// nothing (capacity.Step.BeforeWindow): its line says so, with no window,
// no "extended once" (its extended run never reached its window) and no
// load figures.
func TestCapacityTextStepInterruptedBeforeItsWindow(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	met := capacity.Step{Rate: 10, Attempts: 100, Qualified: 100, WindowS: 10, Verdict: capacity.Meets, Attainment: f(1), CILow: f(0.96), CIHigh: f(1)}
	before := capacity.Step{Rate: 20, Verdict: capacity.Interrupted, Extended: 1, BeforeWindow: true,
		Reason: "the search was interrupted before this step's window began (in its warm-up): nothing was measured"}
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Steps: []capacity.Step{met, before}, MaxRateMeeting: f(10), Provisional: true, BoundedBy: capacity.BoundInterrupted}
	for _, lg := range []lang.Lang{lang.EN, lang.ZH} {
		got := capacityTextIn(lg, r)
		var line string
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "  20 ") {
				line = l
			}
		}
		if !strings.HasSuffix(line, "（"+cardfmt.CapacityBeforeWindowIn(lg)+"）") && !strings.HasSuffix(line, "("+cardfmt.CapacityBeforeWindowIn(lg)+")") {
			t.Errorf("%s: the step's line %q does not say it was interrupted before its window:\n%s", lg, line, got)
		}
		for _, bad := range []string{cardfmt.CapacityExtendedIn(lg, 1), "0.0 s", "completed", "完成"} {
			if strings.Contains(line, bad) {
				t.Errorf("%s: %q in %q", lg, bad, line)
			}
		}
	}
}
