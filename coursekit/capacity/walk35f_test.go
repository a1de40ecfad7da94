package capacity

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Walk 35f, item 1: an all-undecided search wrote "bounded_by":
// "no_rate_met" beside "undecided": true, and a stop reason "no rate
// searched meets: bisected down to 1 req/s, …, which does not meet", while
// its text said "undecided". Its JSON now says undecided in both.
func TestUndecidedSearchJSONSaysUndecided(t *testing.T) {
	c := config(t, newSim(t, simBatch))
	// About 6 attempts in a step's only window: even all qualifying, the
	// Wilson lower bound is far below 0.9, so the first step is undecided
	// and the bisection has nowhere to go within --resolution 2 of 0. The
	// window is 3 s and the SLO loose, so that a loaded machine (a client
	// 600 ms late, seen at load 10) neither empties the window of
	// completions, which fails the overload test, nor fails attempts.
	c.StartRate, c.MaxRate, c.Resolution = 2, 8, 2
	c.SLOTTFTMS = 4000
	c.StepDuration, c.StepMaxDuration = 3*time.Second, 3*time.Second
	res, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Undecided || res.MaxRateMeeting != nil {
		t.Fatalf("fixture: undecided %v, answer %v, steps %+v", res.Undecided, res.MaxRateMeeting, res.Steps)
	}
	if res.BoundedBy != BoundUndecided {
		t.Errorf("bounded_by %q, want %q", res.BoundedBy, BoundUndecided)
	}
	for _, want := range []string{"undecided: no step could decide either way (too few attempts", "so this is not \"no rate meets\"", "bisected down to 2 req/s, the lowest rate searched, within --resolution 2 req/s of 0"} {
		if !strings.Contains(res.StopReason, want) {
			t.Errorf("stop reason %q lacks %q", res.StopReason, want)
		}
	}
	if strings.Contains(res.StopReason, "no rate searched meets") || strings.Contains(res.StopReason, "does not meet") {
		t.Errorf("stop reason %q calls undecided not meeting", res.StopReason)
	}
}

// --previous reads both the old JSON of an undecided search
// ("no_rate_met" beside "undecided": true) and the new ("undecided") as
// one answer, and neither as the answer of a search in which a step failed.
func TestAgainReadsOldAndNewUndecided(t *testing.T) {
	undecidedSteps := []Step{{Rate: 1, Verdict: Undecided}}
	cur := &Result{Target: 0.9, Method: "wilson", Steps: undecidedSteps, BoundedBy: boundedBy(undecidedSteps, nil, 4), Undecided: true, MaxRate: 4}
	if cur.BoundedBy != BoundUndecided {
		t.Fatalf("bounded_by %q", cur.BoundedBy)
	}
	var old Result
	b, _ := json.Marshal(cur)
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	old.BoundedBy = BoundNoRate // as written before it said undecided
	for _, pair := range [][2]*Result{{&old, cur}, {cur, &old}, {cur, cur}} {
		if ag := Again(pair[0], pair[1]); !ag.Same || ag.PreviousBound != BoundUndecided || ag.Bound != BoundUndecided {
			t.Errorf("same %v, bounds %q and %q", ag.Same, ag.PreviousBound, ag.Bound)
		}
	}
	failed := []Step{{Rate: 1, Verdict: Fails}}
	no := &Result{Target: 0.9, Method: "wilson", Steps: failed, BoundedBy: boundedBy(failed, nil, 4), MaxRate: 4}
	if ag := Again(no, cur); ag.Same || ag.PreviousBound != BoundNoRate {
		t.Errorf("no rate meets beside undecided: same %v, previous bound %q", ag.Same, ag.PreviousBound)
	}
}

// Walk 35f, item 2: the answer's caveat used the full --resolution ("may
// sustain up to 1 req/s less") while its own step's line said it completed
// at least the offered rate, or may be short by up to 0.50/s. The margin
// is the answer step's keep-up bound, not below 0; a saved search whose
// answer_within_per_s holds the resolution reads its step's bound too.
func TestAnswerMarginIsItsStepsBound(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	load := func(w LoadWindow) *LoadCheck {
		l, err := CheckLoad(w)
		if err != nil {
			t.Fatal(err)
		}
		return &l
	}
	// The walk's simulator: 14 req/s, 57 completed in 4 s, 3 begun before:
	// short by at most 14 − 54/4 = 0.5/s.
	r := &Result{Resolution: 1, MaxRateMeeting: f(14), AnswerWithinPerS: f(1), Steps: []Step{
		{Rate: 14, Verdict: Meets, Load: load(LoadWindow{OfferedPerS: 14, WindowS: 4, Arrivals: 59, Completions: 57, InFlightStart: 3, InFlightEnd: 5, Resolution: 1})},
		{Rate: 15, Verdict: Fails}}}
	m, ok := r.AnswerMargin()
	if !ok || !m.Measured() || m.PerS != 0.5 || r.AnswerWithin() != 0.5 || m.Resolution != 1 || m.Rate != 14 {
		t.Errorf("margin %+v (%v), within %g; want its step's bound 0.5", m, ok, r.AnswerWithin())
	}
	// The walk's engine: 1 req/s, 44 completed in 40 s, 1 begun before:
	// the bound is −0.075, the window completed at least the offered rate.
	r = &Result{Resolution: 1, MaxRateMeeting: f(1), AnswerWithinPerS: f(1), Steps: []Step{
		{Rate: 1, Verdict: Meets, Load: load(LoadWindow{OfferedPerS: 1, WindowS: 40, Arrivals: 44, Completions: 44, InFlightStart: 1, InFlightEnd: 1, Resolution: 1})}}}
	if m, _ := r.AnswerMargin(); !m.Measured() || m.PerS != 0 || r.AnswerWithin() != 0 {
		t.Errorf("margin %+v, within %g; want 0", m, r.AnswerWithin())
	}
	// No load check: the resolution, as before.
	r.Steps[0].Load = nil
	r.AnswerWithinPerS = nil
	if m, _ := r.AnswerMargin(); m.Measured() || m.PerS != 1 {
		t.Errorf("margin without a load check %+v, want the resolution", m)
	}
	r.MaxRateMeeting = nil
	if _, ok := r.AnswerMargin(); ok || r.AnswerWithin() != 0 {
		t.Errorf("no answer, yet a margin")
	}
}

// Walk 35f, item 4: the load figures printed a hyphen ("offered −
// completed -0.16/s (95% interval [-0.60, +0.19])") where every other view
// prints the minus sign "−"; a window that completed at least the offered
// rate said "short of it by 0/s". The JSON keeps its numbers.
func TestLoadFiguresMinusSign(t *testing.T) {
	// The walk's simulator at 1 req/s: 37 completed in 32 s.
	c, err := CheckLoad(LoadWindow{OfferedPerS: 1, WindowS: 32, Arrivals: 36, Completions: 37, InFlightStart: 1, Resolution: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := c.Figures()
	if f.Slope != "−0.16" || f.SlopeLow != "−0.60" || f.SlopeHigh != "+0.19" {
		t.Errorf("slope %s [%s, %s], want −0.16 [−0.60, +0.19]", f.Slope, f.SlopeLow, f.SlopeHigh)
	}
	if c.SlopePerS >= 0 {
		t.Errorf("the number itself changed: %g", c.SlopePerS)
	}
	if r := c.keepsUpReason(); strings.Contains(r, "by 0/s") || !strings.Contains(r, "completed at least the offered 1/s in the window") {
		t.Errorf("keeps-up reason %q", r)
	}
}
