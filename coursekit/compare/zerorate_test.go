package compare_test

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/compare"
)

// With several runs a side, a share at 0 % or 100 % in every run gives
// the hierarchical bootstrap nothing to redraw: 0 failures in 3×60
// attempts on both sides read [0, 0] pp, certainty no sample gives. The
// interval is the hull of the bootstrap's and the pooled Newcombe
// interval's, so it is never narrower than what the attempts alone allow.
func TestZeroAndFullSharesAreNotCertain(t *testing.T) {
	o := compare.Options{Resamples: 300}
	side := func(f int) []compare.Run {
		var out []compare.Run
		for i := range 3 {
			tr := failing(60, f)
			tr.Attempts[0].StartMS += float64(i) // three distinct runs
			out = append(out, run(tr, "r", o))
		}
		return out
	}
	for _, c := range []struct {
		fa, fb  int
		verdict string
	}{{0, 0, compare.Same}, {0, 60, compare.Worse}, {60, 0, compare.Better}} {
		r, err := compare.Compare(side(c.fa), side(c.fb), o)
		if err != nil {
			t.Fatal(err)
		}
		m := metric(t, r, "failure_rate")
		diff := float64(c.fb-c.fa) / 60
		if m.Method != compare.MethodHierarchicalNewcombe || m.Verdict != c.verdict {
			t.Errorf("%d/60 against %d/60 (3 runs a side): %s by %s, want %s by %s", c.fa, c.fb, m.Verdict, m.Method, c.verdict, compare.MethodHierarchicalNewcombe)
		}
		// Not certain: the interval reaches past the observed difference
		// on every side that is not the bound of what a share can be.
		lo, hi := *m.CI95.Low, *m.CI95.High
		if (diff > -1 && !(lo < diff)) || (diff < 1 && !(hi > diff)) {
			t.Errorf("%d/60 against %d/60: interval [%v, %v] claims certainty at %v", c.fa, c.fb, lo, hi, diff)
		}
	}
}
