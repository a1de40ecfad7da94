package capacity

import (
	"context"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/sim"
)

// simSaturation is the most requests per second simulator c finishes with
// answers of c.DefaultMaxTokens tokens and prompts of in tokens: a full
// batch of B takes K steps of DecodeStep + (B−1)·DecodePerSeq, and admits B
// sequences whose prefill (in·PrefillPerToken each) it pays once. Timer
// overhead only makes a real step longer, so the simulator's true
// saturation is at most this.
func simSaturation(c sim.Config, in int) float64 {
	b, k := float64(c.MaxBatch), float64(c.DefaultMaxTokens)
	full := k*(c.DecodeStep+time.Duration(c.MaxBatch-1)*c.DecodePerSeq).Seconds() + b*float64(in)*c.PrefillPerToken.Seconds()
	return b / full
}

// ms is f milliseconds, for simulator configurations below a millisecond.
func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// promptTokens is what the simulator counts in config's prompt ("say anything").
const promptTokens = 2

func startSim(t *testing.T, c sim.Config) string {
	t.Helper()
	s := sim.New(c)
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL
}

// looseConfig is config with SLOs no queue of a few seconds can miss, so
// that only the overload rule can fail a step: without it every step here
// meets.
func looseConfig(t *testing.T, url string, tokens int) Config {
	c := config(t, url)
	c.Bench.MaxTokens, c.Bench.Timeout = tokens, time.Minute
	c.SLOTTFTMS = 60_000
	c.Warmup = 500 * time.Millisecond
	return c
}

// A step offered 5–10 % above a simulator's known saturation fails for
// overload, whatever its attainment (every attempt qualifies under these
// SLOs). The windows hold enough attempts for the rule to see the excess
// (OverloadTest: about 3.84(1+δ)/δ², 1,600 at 5 % and 420 at 10 %, with
// margin); the test states the verdict, not how long anything took.
// Before the overload rule every one of these steps met.
func TestStepAboveSaturationFailsForOverload(t *testing.T) {
	for _, c := range []struct {
		name     string
		sim      sim.Config
		over     float64
		attempts float64
	}{
		{"batch 1, 16 tokens, 10 % over", sim.Config{MaxBatch: 1, DecodeStep: ms(0.4), DefaultMaxTokens: 16}, 1.10, 800},
		{"batch 4, 16 tokens, prefill, 10 % over", sim.Config{MaxBatch: 4, DecodeStep: ms(0.5), DecodePerSeq: ms(0.1), PrefillPerToken: ms(0.25), DefaultMaxTokens: 16}, 1.10, 800},
		{"batch 8, 64 tokens, 10 % over", sim.Config{MaxBatch: 8, DecodeStep: ms(0.5), DefaultMaxTokens: 64}, 1.10, 800},
		{"batch 8, 16 tokens, 5 % over", sim.Config{MaxBatch: 8, DecodeStep: ms(2), DefaultMaxTokens: 16}, 1.05, 2500},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.sim.Seed = 1
			sat := simSaturation(c.sim, promptTokens)
			rate := math.Round(c.over*sat*10) / 10
			cfg := looseConfig(t, startSim(t, c.sim), c.sim.DefaultMaxTokens)
			cfg.StepDuration = time.Duration(c.attempts / rate * float64(time.Second))
			cfg.StepMaxDuration = cfg.StepDuration
			s, err := cfg.runStepOnce(context.Background(), rate)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("saturation %.1f, offered %g: %d/%d %s (%s)", sat, rate, s.Qualified, s.Attempts, s.Verdict, s.Reason)
			if s.Verdict != Fails || !s.Overloaded() {
				t.Errorf("offered %g req/s, %.0f%% of the saturation %.1f: %s (%s), want fails for overload", rate, c.over*100, sat, s.Verdict, s.Reason)
			}
			if !s.StoppedEarly() && (s.Load == nil || !(s.Load.SlopeLow > 0) || s.Load.InFlightEnd <= s.Load.InFlightStart) {
				t.Errorf("overload without its evidence: %+v", s.Load)
			}
		})
	}
}

// A search on a simulator of known saturation answers at most that
// saturation, and within --resolution below what the simulator achieves on
// this machine. The configuration's saturation (250 req/s) is an upper
// bound: every step of the simulator waits on a timer, and on a loaded
// machine the wake-ups come late, so its steps are longer (seen: 2 ms steps
// saturating below 135 req/s on a shared 2-core machine). So the test first
// measures the achieved saturation, the completion rate of a step offered
// twice the configured one (a server that falls behind completes at its
// own rate whatever arrives), and places the search around it: it starts at
// 0.54 of it, doubles, and bisects to a resolution of 0.14 of it. The
// achieved rate moves with the machine's load; the hard property is the
// configured saturation, which no answer may pass, and the answer must be
// within the resolution below the achieved one.
func TestSearchAnswerNotAboveSaturation(t *testing.T) {
	// Long steps and short answers: a wake-up late by a few ms is a small
	// part of a 40 ms step (with 10 ms steps under stress-ng --cpu 2 the
	// achieved saturation fell from 39 to 13 req/s within one search).
	// The batch is wide so that the step at 1.08 holds the ~650 attempts the
	// overload rule needs to see 8 % (3.84·1.08/0.08²); with 8 slots (50
	// req/s) a 3 s window held 166 and the answer was 53.5 req/s.
	sc := sim.Config{MaxBatch: 32, DecodeStep: 40 * time.Millisecond, DefaultMaxTokens: 4, Seed: 1}
	sat := simSaturation(sc, promptTokens) // 200 req/s
	url := startSim(t, sc)
	probe := looseConfig(t, url, sc.DefaultMaxTokens)
	probe.StepDuration, probe.StepMaxDuration = 2*time.Second, 2*time.Second
	// Under stress-ng the simulator can stall for a whole short window
	// (seen: no completion in it, an achieved rate of 0): probe again, up
	// to three times, for a window that completed something.
	var over Step
	for try := 1; try <= 3; try++ {
		probe.OutDir = t.TempDir()
		var err error
		if over, err = probe.runStepOnce(context.Background(), 2*sat); err != nil {
			t.Fatal(err)
		}
		if over.Load != nil && over.Load.CompletionPerS > 0 {
			break
		}
		t.Logf("probe %d: nothing completed in its window (%+v)", try, over.Load)
	}
	if over.Load == nil || !over.Overloaded() {
		t.Fatalf("a step at twice the saturation: %s (%s), %+v", over.Verdict, over.Reason, over.Load)
	}
	// Completions come a batch at a time (32 every 160 ms), and a step
	// stopped early is judged on the span that stopped it (about a second):
	// one batch more than the rate allows is in it by where it starts.
	achieved := over.Load.CompletionPerS
	if slack := float64(sc.MaxBatch) / over.Load.WindowS; achieved > sat*1.02+slack {
		t.Fatalf("the simulator completed %.1f req/s in %.2f s, above its configured saturation %g and one batch (%.1f/s)", achieved, over.Load.WindowS, sat, slack)
	}
	c := looseConfig(t, url, sc.DefaultMaxTokens)
	c.StartRate, c.Growth, c.MaxRate, c.Resolution = 0.54*achieved, 2, 2*sat, 0.14*achieved
	// A short first window: a step whose queue seems to grow is extended
	// (runStep), and the extensions must not pull the answer down.
	c.StepDuration, c.StepMaxDuration = time.Second, 4*time.Second
	res, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("configured saturation %g, achieved %.1f", sat, achieved)
	for _, s := range res.Steps {
		t.Logf("step %g req/s: %d/%d %s (%s)", s.Rate, s.Qualified, s.Attempts, s.Verdict, s.Reason)
	}
	// A step just over the saturation may meet: the rule sees an excess δ
	// only with about 3.84(1+δ)/δ² attempts in the window (docs/capacity.md);
	// 208 req/s (4 % over) met with 834 attempts, which show 7 %.
	var ansStep *Step
	for i, s := range res.Steps {
		if res.MaxRateMeeting != nil && s.Rate == *res.MaxRateMeeting && s.Verdict == Meets {
			ansStep = &res.Steps[i]
		}
	}
	if ansStep == nil || ansStep.Rate > sat*(1+detectableExcess(ansStep.Attempts)) {
		t.Fatalf("answer %v (step %+v), want at most the saturation %g plus the excess its attempts can show", res.MaxRateMeeting, ansStep, sat)
	}
	ans := *res.MaxRateMeeting
	if res.BoundedBy != BoundFailingStep {
		t.Fatalf("bounded by %q, want %q", res.BoundedBy, BoundFailingStep)
	}
	// The lowest step above the answer failed for overload (the SLOs here
	// cannot fail it), and the server's completion rate in that step is the
	// saturation it achieved then: under stress-ng it was seen to fall from
	// 178 to 54 req/s within one search, so the answer is measured against
	// it, not against the probe's. Within the resolution below it: no false
	// overload pulled the answer down.
	var above *Step
	for i, s := range res.Steps {
		if s.Rate > ans && (above == nil || s.Rate < above.Rate) {
			above = &res.Steps[i]
		}
	}
	// Or it was left undecided because its longest window (4 s) could not
	// show the server keeping up within the resolution (the keep-up rule:
	// near saturation that takes r·T ≳ L + 1.96·sqrt(λT)); then its
	// completions are what the server showed it could do.
	notShown := above != nil && above.Verdict == Undecided && above.Load != nil && above.Load.GrowingUndecided
	if above == nil || !(above.Overloaded() || notShown) || above.Load == nil {
		t.Fatalf("the step above the answer %g: %+v, want failed for overload or not shown to keep up, with its load evidence", ans, above)
	}
	if then := above.Load.CompletionPerS; ans < then-c.Resolution {
		t.Errorf("answer %g, more than the resolution %g below the %.1f req/s the server completed at %g", ans, c.Resolution, then, above.Rate)
	}
	for _, s := range res.Steps {
		if s.Rate > sat*(1+detectableExcess(s.Attempts)) && s.Verdict == Meets {
			t.Errorf("step %g above saturation %g by more than its %d attempts can hide meets", s.Rate, sat, s.Attempts)
		}
	}
}

// What bounds an answer: a failing step above it, the search's limit when
// every step met up to it (a lower bound, not a capacity), or an
// interruption. Pure logic: the live searches above give failing_step.
func TestAnswerBoundedBy(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	meets := func(r float64) Step { return Step{Rate: r, Verdict: Meets} }
	for _, c := range []struct {
		steps []Step
		ans   *float64
		want  string
	}{
		{[]Step{meets(30), meets(60)}, f(60), BoundMaxRate},
		{[]Step{meets(30), {Rate: 60, Verdict: Fails}, meets(45)}, f(45), BoundFailingStep},
		{[]Step{meets(30), {Rate: 60, Verdict: Undecided}}, f(30), BoundFailingStep},
		{[]Step{meets(30), {Rate: 60, Verdict: Interrupted}}, f(30), BoundInterrupted},
		{[]Step{{Rate: 30, Verdict: Fails}}, nil, BoundNoRate},
	} {
		if got := boundedBy(c.steps, answer(c.steps), 60); got != c.want {
			t.Errorf("steps %+v: bounded by %q, want %q", c.steps, got, c.want)
		}
		r := &Result{MaxRateMeeting: answer(c.steps), BoundedBy: boundedBy(c.steps, answer(c.steps), 60)}
		if r.AtLeast() != (c.want == BoundMaxRate) {
			t.Errorf("steps %+v: at least %v", c.steps, r.AtLeast())
		}
		if got := answer(c.steps); (got == nil) != (c.ans == nil) || (got != nil && *got != *c.ans) {
			t.Errorf("steps %+v: answer %v, want %v", c.steps, got, c.ans)
		}
	}
}

// detectableExcess is the smallest excess δ over saturation that a window of n
// attempts shows at 95 %: the δ that solves n = 3.84(1+δ)/δ² (docs/capacity.md).
func detectableExcess(n int64) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	z2 := 1.96 * 1.96
	return (z2 + math.Sqrt(z2*z2+4*float64(n)*z2)) / (2 * float64(n))
}

// A step offered 5–10 % above a simulator's known saturation never meets,
// even when its first window is too short for the overload test to decide:
// a queue seen growing but not yet decided extends the step (as a Wilson-
// undecided one does) up to --step-max-duration, and one still undecided
// there is undecided, not meets. Before this rule a 1 s window at these
// rates met: in flight 2 → 21, completions 53/s against the offered
// 68.8/s but within their interval, and every attempt qualified. The
// longest window here is too short to decide 5 % (about 1,600 attempts),
// so "undecided" is an allowed outcome; "meets" is not.
func TestShortStepAboveSaturationNeverMeets(t *testing.T) {
	for _, c := range []struct {
		name string
		sim  sim.Config
		over float64
	}{
		{"batch 1, 16 tokens, 10 % over", sim.Config{MaxBatch: 1, DecodeStep: ms(1), DefaultMaxTokens: 16}, 1.10},
		{"batch 4, 16 tokens, prefill, 5 % over", sim.Config{MaxBatch: 4, DecodeStep: ms(2), DecodePerSeq: ms(0.5), PrefillPerToken: ms(0.5), DefaultMaxTokens: 16}, 1.05},
		{"batch 8, 64 tokens, 7 % over", sim.Config{MaxBatch: 8, DecodeStep: ms(1), DefaultMaxTokens: 64}, 1.07},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.sim.Seed = 1
			sat := simSaturation(c.sim, promptTokens)
			rate := math.Round(c.over*sat*10) / 10
			cfg := looseConfig(t, startSim(t, c.sim), c.sim.DefaultMaxTokens)
			// Short steps (issue 35's walk: 3 s), and a resolution finer
			// than the excess: a queue growing faster than the resolution
			// must never meet.
			cfg.StepDuration, cfg.StepMaxDuration = 3*time.Second, 3*time.Second
			cfg.Resolution = 0.03 * sat
			s, err := cfg.runStep(context.Background(), rate, new(int))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("saturation %.1f, offered %g: %d/%d %s after %d extensions (%s)", sat, rate, s.Qualified, s.Attempts, s.Verdict, s.Extended, s.Reason)
			if s.Verdict == Meets {
				t.Errorf("offered %g req/s, %.0f%% of the saturation %.1f, meets (%s; load %+v)", rate, c.over*100, sat, s.Reason, s.Load)
			}
		})
	}
}
