package capacity

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/sim"
)

// The keep-up rule on counts (issue 35's engineer walk): a step meets only
// when its window shows that the server's saturation is within the
// resolution of the offered rate, λ − (completions − in flight at the
// start)/T ≤ --resolution.
func TestKeepUpRule(t *testing.T) {
	for _, c := range []struct {
		name              string
		offered, window   float64
		arr, done, n0, n1 int64
		expected, res     float64
		keepsUp, overload bool
	}{
		// The walk's 3 s step at 15 req/s on the default simulator
		// (saturation 14.3): 42 arrivals, in flight 24 → 28, 38
		// completions. Before, it met; its window shows no more than a
		// saturation of (38 − 24)/3 = 4.7 req/s.
		{"walk: 15/s above 14.3, 3 s", 15, 3, 42, 38, 24, 28, 14, 5, false, false},
		// A server that keeps up over 20 s at 4/s.
		{"keeps up, 4/s, 20 s", 4, 20, 80, 79, 4, 5, 4.4, 1, true, false},
		// Issue item 3: in flight 0 → 5 at 4/s is the level a filled
		// pipeline holds (4 × 1.1 s), not growth.
		{"fill from empty, 4/s", 4, 20, 159, 154, 0, 5, 4.4, 1, true, false},
		// Issue item 2: 7 → 18 at 10/s after a 1 s warm-up, E2E about
		// 1 s, 3 s window: a pipeline still filling, not overload.
		// Its completions, 25 − 7 begun in the window, show a saturation
		// of at least 6/s: within the walk's --resolution 5.
		{"warm-up transient, 10/s", 10, 3, 36, 25, 7, 18, 10.5, 5, true, false},
		{"10 % over, 3,000 attempts", 110, 30, 3300, 3000, 40, 340, 30, 5, false, true},
	} {
		lc, err := CheckLoad(LoadWindow{OfferedPerS: c.offered, WindowS: c.window, Arrivals: c.arr, Completions: c.done,
			InFlightStart: c.n0, InFlightEnd: c.n1, ExpectedInFlight: c.expected, Resolution: c.res})
		if err != nil {
			t.Fatal(err)
		}
		if lc.KeepsUp != c.keepsUp || lc.Overloaded != c.overload {
			t.Errorf("%s: keeps up %v, overloaded %v; want %v, %v (%+v)", c.name, lc.KeepsUp, lc.Overloaded, c.keepsUp, c.overload, lc)
		}
		if lc.GrowingUndecided != (!c.keepsUp && !c.overload) {
			t.Errorf("%s: undecided %v", c.name, lc.GrowingUndecided)
		}
		if lc.GrowingUndecided && (lc.DecideWindowS == nil || !(*lc.DecideWindowS > c.window)) {
			t.Errorf("%s: window to decide %v, want one longer than %g s", c.name, lc.DecideWindowS, c.window)
		}
	}
}

// A server at saturation μ completes at most μT + N₀ in a window, so a
// rate more than the resolution above μ never keeps up, whatever the
// arrivals did; below saturation, Poisson windows of a server that keeps
// up show it (seeded, so the counts are exact).
func TestKeepUpBoundHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const mu, T, res = 100.0, 3.0, 4.0
	for range 500 {
		// 5–10 % over: the server completes at most μT plus what it had begun.
		lambda := mu * (1.05 + 0.05*rng.Float64())
		n0 := poissonDraw(rng, 20)
		a := poissonDraw(rng, lambda*T)
		d := min(a+n0, int64(mu*T)+n0)
		lc, err := CheckLoad(LoadWindow{OfferedPerS: lambda, WindowS: T, Arrivals: a, Completions: d, InFlightStart: n0, InFlightEnd: n0 + a - d, ExpectedInFlight: 20, Resolution: res})
		if err != nil {
			t.Fatal(err)
		}
		if lc.KeepsUp {
			t.Fatalf("offered %.1f over a saturation of %g keeps up: %+v", lambda, mu, lc)
		}
	}
	shown := 0
	const runs = 1000
	// A window long enough for the arrivals' own noise: the bound is
	// about (L + λT − arrivals)/T, so res·T must pass L + 1.65·sqrt(λT).
	const long = 20.0
	for range runs {
		lambda := 0.7 * mu // a filled pipeline of about 10
		n0, n1 := poissonDraw(rng, 10), poissonDraw(rng, 10)
		a := poissonDraw(rng, lambda*long)
		d := max(a+n0-n1, 0)
		lc, err := CheckLoad(LoadWindow{OfferedPerS: lambda, WindowS: long, Arrivals: a, Completions: d, InFlightStart: n0, InFlightEnd: n1, ExpectedInFlight: 10, Resolution: res})
		if err != nil {
			t.Fatal(err)
		}
		if lc.Overloaded {
			t.Fatalf("a server that keeps up overloaded: %+v", lc)
		}
		if lc.KeepsUp {
			shown++
		}
	}
	if shown < runs*95/100 {
		t.Errorf("a server at 70 %% of its saturation shown to keep up in %d of %d %g s windows", shown, runs, long)
	}
}

// Printed bounds are rounded outwards, with decimals added until the
// comparison the rule made shows: 16.4976 below 16.5 is not "16.5", and a
// slope low of 0.0024 above 0 is not "0.00" (issue 35's walk, item 6).
func TestFiguresShowTheComparison(t *testing.T) {
	lc := LoadCheck{FellBehind: true, Overloaded: true, OfferedPerS: 16.5, CompletionLow: 11.71, CompletionHigh: 16.4976, SlopePerS: 2.4, SlopeLow: 0.0024, SlopeHigh: 4.7901, KeepUpBound: 0.99999, Resolution: 1}
	f := lc.Figures()
	for got, want := range map[string]string{f.CompletionHigh: "16.498", f.CompletionLow: "11.71", f.SlopeLow: "+0.002", f.SlopeHigh: "+4.80", f.KeepUpBound: "0.99999"} {
		if got != want {
			t.Errorf("printed %q, want %q (%+v)", got, want, f)
		}
	}
	// The reason the stderr line prints is made of the same strings as
	// the text output's load line.
	r := lc.Reason()
	for _, s := range []string{f.CompletionHigh, f.SlopeLow, f.SlopeHigh, "below the offered 16.5/s"} {
		if !strings.Contains(r, s) {
			t.Errorf("reason %q lacks %q", r, s)
		}
	}
}

// Issue 35's walk, item 3: far below saturation a step is never left
// undecided on overload; a pipeline that fills from empty in a short
// warm-up is not a growing queue. 26 % of the simulator's saturation, a
// warm-up shorter than one attempt's time in flight, several steps.
func TestFarBelowSaturationNeverUndecided(t *testing.T) {
	// Long simulator steps (20 ms), so that under stress-ng --cpu 2 a
	// wake-up late by 10 ms leaves the simulator well above 26 %: with 2 ms
	// steps its achieved saturation fell below the offered 19 req/s and
	// the queue really grew. The pipeline holds about 4, as in the walk.
	sc := sim.Config{MaxBatch: 16, DecodeStep: 20 * time.Millisecond, DefaultMaxTokens: 4, Seed: 1}
	sat := simSaturation(sc, promptTokens) // 200 req/s
	url := startSim(t, sc)
	cfg := looseConfig(t, url, sc.DefaultMaxTokens)
	cfg.Warmup = 10 * time.Millisecond // shorter than an attempt's ~80 ms in flight
	cfg.Resolution = 0.1 * sat
	cfg.StepDuration, cfg.StepMaxDuration = 3*time.Second, 6*time.Second
	rate := math.Round(0.26 * sat)
	for i := range 3 {
		cfg.Bench.Seed = uint64(i + 1)
		cfg.OutDir = t.TempDir()
		s, err := cfg.runStep(context.Background(), rate, new(int))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d, %g req/s (saturation %.1f): %d/%d %s after %d extensions (%s)", i+1, rate, sat, s.Qualified, s.Attempts, s.Verdict, s.Extended, s.Reason)
		// Never undecided. Under stress-ng --cpu 2 beside other jobs the
		// simulator itself was seen to stall (8 completions in 1.26 s at 52
		// req/s offered): a step may then fail for overload, but only on
		// its own evidence, completions wholly below the offered rate.
		switch {
		case s.Verdict == Undecided:
			t.Errorf("seed %d: %g req/s, 26 %% of the saturation %.1f: undecided (%s)", i+1, rate, sat, s.Reason)
		case s.Overloaded() && s.Load != nil && s.Load.CompletionHigh >= rate && !s.StoppedEarly():
			t.Errorf("seed %d: overload with completions reaching the offered rate: %+v", i+1, s.Load)
		case s.Verdict != Meets && !s.Overloaded():
			t.Errorf("seed %d: %g req/s, 26 %% of the saturation %.1f: %s (%s), want meets", i+1, rate, sat, s.Verdict, s.Reason)
		}
	}
}

// Issue 35's walk, item 3, as a seeded simulation of the walk's step: 4
// req/s into a server far below saturation whose attempts take 1.1 s each
// (an M/D/∞ pipeline), a 2 s warm-up, a 20 s window and --resolution 1,
// extended once to 40 s as --step-max-duration 40s does. The pipeline
// holds about 4.4, and a window that opens with 0 in flight is chance,
// not a fill to be read as growth. Over 500 seeded steps none is
// overloaded and none is left undecided at its longest window.
func TestFarBelowSaturationSeededNeverUndecided(t *testing.T) {
	const lambda, w, warm = 4.0, 1.1, 2.0
	rng := rand.New(rand.NewPCG(35, 3))
	window := func(T float64) LoadCheck {
		var a, d, n0, n1 int64
		var inFlight float64
		end := warm + T
		for at := rng.ExpFloat64() / lambda; at < end; at += rng.ExpFloat64() / lambda {
			done := at + w
			if at >= warm {
				a++
			}
			if done >= warm && done < end {
				d++
				inFlight += w
			}
			if at < warm && done >= warm {
				n0++
			}
			if done >= end {
				n1++
			}
		}
		lc, err := CheckLoad(LoadWindow{OfferedPerS: lambda, WindowS: T, Arrivals: a, Completions: d, InFlightStart: n0, InFlightEnd: n1,
			ExpectedInFlight: lambda * inFlight / float64(max(d, 1)), Resolution: 1})
		if err != nil {
			t.Fatal(err)
		}
		return lc
	}
	extended := 0
	for i := range 500 {
		lc := window(20)
		if lc.GrowingUndecided {
			extended++
			lc = window(40)
		}
		if lc.Overloaded || lc.GrowingUndecided {
			t.Errorf("step %d: overloaded %v, undecided %v: %+v", i, lc.Overloaded, lc.GrowingUndecided, lc)
		}
	}
	t.Logf("%d of 500 steps extended to 40 s", extended)
}
