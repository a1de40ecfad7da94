package main

import (
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The end-of-run line says what ended the run and its real elapsed time
// against the planned window, and counts the attempts still running in
// proper English (no sentence at all for none).
func TestRunStateSaysWhatEndedTheRun(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	planned := trace.Window{StartMS: 0, EndMS: 30000}
	res := func(reason string, at *float64, el time.Duration, inflight int64, n int64) *loadgen.Result {
		return &loadgen.Result{Elapsed: el, Outcomes: map[string]int64{trace.InFlight.String(): inflight},
			RunEnd: trace.RunEnd{Reason: reason, AtMS: at, NumRequests: n, PlannedDurationMS: 30000, PlannedWindow: planned}}
	}
	for _, c := range []struct {
		name     string
		r        *loadgen.Result
		want     []string
		wantNone []string
	}{
		{"window", res(trace.RunCompleted, nil, 30400*time.Millisecond, 0, 0),
			[]string{"planned 30s window [0, 30000) ms ended", "done after 30.4s", "0.4s after it"}, nil},
		{"early drain", res(trace.RunCompleted, nil, 25500*time.Millisecond, 0, 0),
			[]string{"schedule done", "no send was planned in the rest of the 30s window", "done after 25.5s"}, []string{"ended;"}},
		{"num-requests", res(trace.RunNumRequests, f(3412), 3412*time.Millisecond, 0, 25),
			[]string{"--num-requests 25 reached", "ended at 3.412s", "instead of at 30s"}, nil},
		{"interrupt, none running", res(trace.RunInterrupted, f(12000), 12*time.Second, 0, 0),
			[]string{"interrupted at 12.000s of a planned 30s window (the window ends there)"}, []string{"0 attempt", "in_flight"}},
		{"interrupt, one running", res(trace.RunInterrupted, f(12000), 12*time.Second, 1, 0),
			[]string{"the 1 attempt still running is in_flight, not a failure"}, []string{"attempts"}},
		{"interrupt, three running", res(trace.RunInterrupted, f(12000), 12*time.Second, 3, 0),
			[]string{"the 3 attempts still running are in_flight, not failures"}, nil},
		{"interrupt in the drain", res(trace.RunInterrupted, f(30200), 30200*time.Millisecond, 2, 0),
			[]string{"after the planned 30s window [0, 30000) ms had ended", "the window is complete", "the 2 attempts"}, []string{"window ends there"}},
	} {
		got := runState(c.r)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, w := range c.wantNone {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q has %q", c.name, got, w)
			}
		}
	}
}

// A mistyped --api is named with its valid values, and nothing else is
// hinted (the loop flags have nothing to do with it).
func TestBenchUnknownAPI(t *testing.T) {
	code, _, errs := runCLI(t, "bench", "--rate", "5", "--api", "chatt")
	if code != 2 || !strings.Contains(errs, `--api "chatt": want chat or completions`) || strings.Contains(errs, "--replay") || strings.Contains(errs, "--concurrency") {
		t.Errorf("exit %d, %q", code, errs)
	}
	code, _, errs = runCLI(t, "bench", "--duration", "1s")
	if code != 2 || !strings.Contains(errs, "--rate R | --concurrency N | --replay TRACE") {
		t.Errorf("no loop: exit %d, %q: want the loop flags named", code, errs)
	}
}

// bench's end lines print the figures the card prints of the same trace
// (the window, the send lag, the client's wake-up lag) with the card's
// formatter (numfmt.Num), not format verbs of their own: %.3f printed the
// card's 16.5 as 16.500, and %g a 20-minute window's end as 1.2e+06.
func TestBenchEndLinesUseTheCardsNumbers(t *testing.T) {
	planned := trace.Window{StartMS: 0, EndMS: 1200000}
	res := &loadgen.Result{Elapsed: 1200 * time.Second, Sent: 3, Recorded: 3, Outcomes: map[string]int64{trace.OK.String(): 3},
		Window:    planned,
		Lag:       loadgen.LagStats{N: 3, P50: 0.1, P99: 16.5, Max: 381.335},
		ClientLag: loadgen.LagStats{N: 40, P50: 0.5, P99: 20, Max: 381.335},
		RunEnd:    trace.RunEnd{Reason: trace.RunCompleted, PlannedDurationMS: 1200000, PlannedWindow: planned}}
	var b strings.Builder
	benchLines(&b, res, loadgen.Config{}, "run.jsonl", false)
	got := b.String()
	for _, w := range []string{"window [0, 1200000) ms;", "send lag p50 0.1 ms, p99 16.5 ms, max 381.335 ms (n=3)",
		"client wake-up lag (a probe every 5ms): p50 0.5 ms, p99 20 ms, max 381.335 ms (n=40)"} {
		if !strings.Contains(got, w) {
			t.Errorf("end lines lack %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "e+") {
		t.Errorf("end lines print an exponent:\n%s", got)
	}
}
