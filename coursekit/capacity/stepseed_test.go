package capacity

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// StepSeed is a function of the search's seed, the rate and the run: the
// same inputs give the same seed, and changing any one changes it.
func TestStepSeedDeterministicAndDistinct(t *testing.T) {
	base := StepSeed(1, 20, 0)
	if StepSeed(1, 20, 0) != base {
		t.Fatal("StepSeed is not deterministic")
	}
	for name, other := range map[string]uint64{
		"another rate":        StepSeed(1, 40, 0),
		"a bisected rate":     StepSeed(1, 20.001, 0),
		"a longer re-run":     StepSeed(1, 20, 1),
		"another search seed": StepSeed(2, 20, 0),
	} {
		if other == base {
			t.Errorf("%s gives the same seed %d", name, base)
		}
	}
	for _, s := range []uint64{base, StepSeed(0, 0.45, 3), StepSeed(^uint64(0), 1e6, 0)} {
		if s >= 1<<53 {
			t.Errorf("seed %d has more than 53 bits: a JSON reader with doubles would misread it", s)
		}
	}
}

// stepSchedule reads a step's trace: the seed its header records and its
// first arrival gap in units of the mean gap (gap × rate), which is the same
// for every rate when the steps share one schedule scaled by 1/λ.
func stepSchedule(t *testing.T, s Step) (seed uint64, firstGap float64) {
	t.Helper()
	tr, err := trace.ReadFile(s.Trace)
	if err != nil {
		t.Fatal(err)
	}
	var cond struct {
		Seed json.Number `json:"seed"`
	}
	dec := json.NewDecoder(bytes.NewReader(tr.Header.Conditions))
	dec.UseNumber()
	if err := dec.Decode(&cond); err != nil {
		t.Fatal(err)
	}
	if seed, err = parseUint(cond.Seed.String()); err != nil {
		t.Fatalf("%s: header seed %q: %v", s.Trace, cond.Seed, err)
	}
	var at []float64
	for i := range tr.Attempts {
		var m struct {
			ScheduledMS *float64 `json:"scheduled_ms"`
		}
		if err := json.Unmarshal(tr.Attempts[i].Meta, &m); err == nil && m.ScheduledMS != nil {
			at = append(at, *m.ScheduledMS)
		}
	}
	slices.Sort(at)
	at = slices.Compact(at)
	if len(at) < 2 {
		t.Fatalf("%s: %d scheduled sends, want at least 2", s.Trace, len(at))
	}
	return seed, (at[1] - at[0]) / 1000 * s.Rate
}

func parseUint(s string) (uint64, error) {
	var v uint64
	err := json.Unmarshal([]byte(s), &v)
	return v, err
}

// Two steps of one search draw different schedules: their seeds differ, as
// their traces' headers record them, and so do their first arrival gaps in
// units of the mean gap (one schedule scaled by 1/λ gives them equal). The
// same search run again gives every rate it ran the same seed.
func TestSearchStepsDrawTheirOwnSchedules(t *testing.T) {
	url := newSim(t, simBatch)
	run := func() *Result {
		c := config(t, url)
		c.StartRate, c.MaxRate, c.Growth, c.Resolution = 20, 40, 2, 10 // two steps, far below saturation
		c.Target = 0.8
		res, err := Search(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Steps) < 2 {
			t.Fatalf("%d steps, want 2: %+v", len(res.Steps), res.Steps)
		}
		return res
	}
	first := run()
	a, b := first.Steps[0], first.Steps[1]
	if a.Seed == b.Seed {
		t.Errorf("steps %g and %g req/s share the seed %d", a.Rate, b.Rate, a.Seed)
	}
	var gaps []float64
	for _, s := range first.Steps {
		seed, gap := stepSchedule(t, s)
		if seed != s.Seed {
			t.Errorf("step %g req/s: JSON seed %d, its trace's header %d", s.Rate, s.Seed, seed)
		}
		if want := StepSeed(1, s.Rate, s.Extended); s.Seed != want {
			t.Errorf("step %g req/s (extended %d): seed %d, want StepSeed %d", s.Rate, s.Extended, s.Seed, want)
		}
		gaps = append(gaps, gap)
	}
	if d := gaps[0] - gaps[1]; d > -1e-3 && d < 1e-3 {
		t.Errorf("first arrival gaps × rate %g and %g: one schedule scaled by 1/λ", gaps[0], gaps[1])
	}
	js, err := json.Marshal(a)
	if err != nil || !strings.Contains(string(js), `"seed":`) {
		t.Errorf("step JSON without its seed: %s (%v)", js, err)
	}
	again := run()
	key := func(s Step) [2]float64 { return [2]float64{s.Rate, float64(s.Extended)} }
	seeds := map[[2]float64]uint64{}
	for _, s := range first.Steps {
		seeds[key(s)] = s.Seed
	}
	same := 0
	for _, s := range again.Steps {
		if want, ok := seeds[key(s)]; ok {
			same++
			if s.Seed != want {
				t.Errorf("step %g req/s run again: seed %d, first %d", s.Rate, s.Seed, want)
			}
		}
	}
	if same == 0 {
		t.Errorf("the two searches share no step: %+v vs %+v", first.Steps, again.Steps)
	}
}

// A window with clearly fewer arrivals than offered (its schedule happened
// to be light) says so in its keep-up reason, the bound staying against
// the offered rate; a window with the arrivals offered does not.
func TestArrivalsShortSaysSo(t *testing.T) {
	check := func(arrivals int64) LoadCheck {
		t.Helper()
		// 0.45 req/s for 40 s plans λW = 18 arrivals; 18 − 1.96·sqrt(18) = 9.68.
		lc, err := CheckLoad(LoadWindow{OfferedPerS: 0.45, WindowS: 40, Arrivals: arrivals, Completions: arrivals, Resolution: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		return lc
	}
	light := check(8)
	if !light.ArrivalsShort || light.ArrivalsExpected != 18 {
		t.Fatalf("8 arrivals where 18 were expected: short %v, expected %g", light.ArrivalsShort, light.ArrivalsExpected)
	}
	if want := 0.45 - 8.0/40; light.KeepUpBound != want {
		t.Errorf("bound %g, want %g: against the offered rate", light.KeepUpBound, want)
	}
	want := "8 arrivals in 40.0 s where λW ≈ 18.0 were expected: this window tested a lighter load than λ; the bound is against λ"
	if r := light.notShownReason(); !strings.HasSuffix(r, "; "+want) {
		t.Errorf("light window's reason:\n%s\nwant it to end with %q", r, want)
	}
	if r := light.ArrivalsShortReason(); r != want {
		t.Errorf("ArrivalsShortReason %q, want %q", r, want)
	}
	for _, n := range []int64{18, 10} { // 10 is within 1.96 standard errors of 18
		normal := check(n)
		if normal.ArrivalsShort || normal.ArrivalsShortReason() != "" || strings.Contains(normal.notShownReason(), "lighter load") || strings.Contains(normal.keepsUpReason(), "lighter load") {
			t.Errorf("%d arrivals where 18 were expected: short %v, reason %q", n, normal.ArrivalsShort, normal.notShownReason())
		}
	}
	kept := check(8)
	kept.KeepUpBound = 0 // a window that keeps up says it too
	if r := kept.keepsUpReason(); !strings.HasSuffix(r, "; "+want) {
		t.Errorf("keeps-up reason %q lacks the arrivals sentence", r)
	}
}
