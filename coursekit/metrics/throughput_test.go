package metrics_test

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The unit's trace: 8 complete successes of 10 attempts carrying 29 output
// tokens, in a 10 s window.
func TestThroughputKeepsItsParts(t *testing.T) {
	th := unitSummary(t, metrics.Options{}).Throughput
	for _, c := range []struct {
		r        metrics.Ratio
		num, val float64
		unit     string
	}{
		{th.CompleteSuccesses, 8, 0.8, metrics.UnitSuccessesPerS},
		{th.Attempts, 10, 1, metrics.UnitAttemptsPerS},
		{th.OutputTokens, 29, 2.9, metrics.UnitTokensPerS},
	} {
		if c.r.Num != c.num || c.r.Den != 10 || val(c.r.Value) != c.val || c.r.Unit != c.unit {
			t.Errorf("%+v, want %g / 10 = %g %s", c.r, c.num, c.val, c.unit)
		}
	}
	if th.Window != metrics.ThroughputWindow {
		t.Errorf("window %q", th.Window)
	}
}

// Attempts count by send time; those that ended after the window closed
// (drained) are counted apart in the Summary, once, for every view
// (walk 35e F3): complete successes and a failure ending after the
// window's end, one ending exactly at it (within: walk 35f 3), one in
// flight (not ended), and the qualified among them.
func TestThroughputCountsWhatEndedAfterTheWindow(t *testing.T) {
	h := trace.Header{Trace: "llm-serving/v1", Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000}}
	ok := func(id string, start, end float64, q trace.Quality) trace.Attempt {
		return trace.Attempt{ID: id, Request: id, StartMS: start, Outcome: trace.OK, Quality: q,
			Events: []trace.Event{{TMS: start + 100, Tokens: 1}, {TMS: end, Tokens: 1}}, EndMS: end, HasEnd: true}
	}
	tr := &trace.Trace{Header: h, Attempts: []trace.Attempt{
		ok("a", 100, 500, trace.Pass),
		ok("b", 800, 1000, trace.Pass), // ends as the window closes: within it
		ok("g", 700, 1001, trace.Pass), // after it
		ok("c", 900, 1500, trace.Fail),
		ok("d", 1200, 1300, trace.Pass), // sent after the window: not counted
		{ID: "e", Request: "e", StartMS: 950, Outcome: trace.Timeout, EndMS: 2000, HasEnd: true},
		{ID: "f", Request: "f", StartMS: 990, Outcome: trace.InFlight},
	}}
	for _, opts := range []metrics.Options{{}, {Latency: metrics.LatencySLO{E2EMS: 5000}}} {
		s := metrics.Summarize(tr, opts)
		got := s.Throughput.EndedAfterWindow
		if want := (metrics.EndedCounts{Attempts: 3, CompleteSuccesses: 2}); got != want {
			t.Errorf("%+v: ended after the window %+v, want %+v", opts.Latency, got, want)
		}
		// a and b ended within; f is in flight, in neither count
		if got, want := s.Throughput.EndedWithinWindow, (metrics.EndedCounts{Attempts: 2, CompleteSuccesses: 2}); got != want {
			t.Errorf("%+v: ended within the window %+v, want %+v", opts.Latency, got, want)
		}
		if c := s.Conditions[0]; c.Qualified != 3 || c.QualifiedEndedAfterWindow != 1 || c.QualifiedEndedWithinWindow != 2 {
			t.Errorf("%+v: qualified %d, %d ended after the window, %d within; want 3, 1, 2", opts.Latency, c.Qualified, c.QualifiedEndedAfterWindow, c.QualifiedEndedWithinWindow)
		}
	}
}
