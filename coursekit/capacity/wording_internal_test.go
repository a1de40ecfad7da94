package capacity

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// The JSON stop reason of a search in which nothing met said "the highest
// rate that meets (0 req/s)": with nothing met there is no such rate.
func TestBisectedReasonWhenNothingMet(t *testing.T) {
	got := bisectedReason(0, 0.5, 1)
	if strings.Contains(got, "meets (0") || strings.Contains(got, "highest rate that meets") {
		t.Errorf("stop reason %q names a meeting rate of 0", got)
	}
	if !strings.Contains(got, "no rate searched meets") || !strings.Contains(got, "0.5 req/s") || !strings.Contains(got, "--resolution 1 req/s") {
		t.Errorf("stop reason %q", got)
	}
}

// A step's completion rate is printed as the card prints a rate (117 in
// 8 s is 14.625 /s there), not rounded to two decimals.
func TestCompletionRateAsTheCardPrintsIt(t *testing.T) {
	lc, err := CheckLoad(LoadWindow{OfferedPerS: 15, WindowS: 8, Arrivals: 120, Completions: 117, InFlightStart: 3, InFlightEnd: 6, Resolution: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := lc.Figures().CompletionPerS; got != "14.625" {
		t.Errorf("completion rate printed %q, want 14.625", got)
	}
}

// A window can fail the overload test while its keep-up bound is within
// the resolution: the reason says which rule failed. And the "slope" is
// offered − completed, λ − completions/T, not the measured change of the
// in-flight count: the reason calls it that.
func TestOverloadReasonWithinResolution(t *testing.T) {
	lc, err := CheckLoad(LoadWindow{OfferedPerS: 5, WindowS: 10, Arrivals: 50, Completions: 25, InFlightStart: 2, InFlightEnd: 27, Resolution: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !lc.Overloaded || lc.KeepUpBound > lc.Resolution {
		t.Fatalf("fixture: overloaded %v, bound %g", lc.Overloaded, lc.KeepUpBound)
	}
	r := lc.Reason()
	if strings.Contains(r, "in-flight slope") || !strings.Contains(r, "offered − completed +2.50/s") {
		t.Errorf("reason %q: not named offered − completed", r)
	}
	if !strings.Contains(r, "within --resolution 5/s: the overload test failed, not the keep-up test") {
		t.Errorf("reason %q does not say which rule failed", r)
	}
	// A window short by more than the resolution says nothing of it.
	far, _ := CheckLoad(LoadWindow{OfferedPerS: 110, WindowS: 30, Arrivals: 3300, Completions: 3000, InFlightStart: 40, InFlightEnd: 340, Resolution: 5})
	if !far.Overloaded || strings.Contains(far.Reason(), "within --resolution") {
		t.Errorf("reason %q", far.Reason())
	}
}

// A step failed on overload while the client itself woke late: its reason
// says the client was late and that the evidence may be the client's delay.
func TestOverloadReasonSaysTheClientWasLate(t *testing.T) {
	lc, _ := CheckLoad(LoadWindow{OfferedPerS: 5, WindowS: 10, Arrivals: 50, Completions: 25, InFlightStart: 2, InFlightEnd: 27, Resolution: 5})
	s := Step{Rate: 5, Verdict: Fails, Load: &lc, Reason: lc.Reason(), ClientLag: &metrics.ClientLag{Attempts: 50, OverBound: 12, BoundMS: 5, MaxMS: 606}}
	s.noteLate()
	if !strings.Contains(s.Reason, "the client was late (wake-up lag over 5 ms in 12 attempts, at most 606 ms)") || !strings.Contains(s.Reason, "the client's own delay") {
		t.Errorf("reason %q", s.Reason)
	}
	// On time: nothing added.
	on := Step{Rate: 5, Verdict: Fails, Load: &lc, Reason: lc.Reason(), ClientLag: &metrics.ClientLag{Attempts: 50, BoundMS: 5, MaxMS: 2}}
	on.noteLate()
	if on.Reason != lc.Reason() {
		t.Errorf("an on-time client's reason %q", on.Reason)
	}
}

// A bisection below a rate that did not meet stopped running rates whose
// longest window cannot hold the attempts meeting the target needs (35 at
// 0.9): 20 req/s fails here (no TTFT is under 1 µs), and 10 req/s × 2 s is
// about 20 attempts, so the search ends before it, naming 17.5 req/s.
func TestSearchDoesNotRunRatesThatCannotMeet(t *testing.T) {
	c := config(t, newSim(t, simBatch))
	c.SLOTTFTMS, c.Resolution, c.StepMaxDuration = 0.001, 1, 2*time.Second
	res, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Steps {
		if s.Rate*c.StepMaxDuration.Seconds() < float64(res.AttemptsToMeet) {
			t.Errorf("ran %g req/s, which cannot meet within %s: %+v", s.Rate, c.StepMaxDuration, s)
		}
	}
	if res.StoppedBefore == nil || *res.StoppedBefore != 10 || !res.StoppedCannotMeet() {
		t.Fatalf("stopped before %v; steps %+v", res.StoppedBefore, res.Steps)
	}
	if got := res.LowestDecidableRate(); got != 17.5 {
		t.Errorf("lowest decidable rate %g, want 35 / 2 s = 17.5", got)
	}
	for _, want := range []string{"stopped before 10 req/s", "35 ÷ 2s = 17.5 req/s", "--step-max-duration", "--target"} {
		if !strings.Contains(res.StopReason, want) {
			t.Errorf("stop reason %q lacks %q", res.StopReason, want)
		}
	}
	if res.MaxRateMeeting != nil || res.AnswerWithinPerS != nil {
		t.Errorf("answer %v within %v", res.MaxRateMeeting, res.AnswerWithinPerS)
	}
}
