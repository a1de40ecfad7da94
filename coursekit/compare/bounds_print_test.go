package compare_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// A bound of −0.348 /s beside values of 169 and 168 /s prints negative,
// and B − A keeps three significant digits: the walk of a 200k-request A/B
// saw "[−3, 0] /s … worse" and "−2 /s" for a true −1.53 (issue 36).
func TestSmallBoundKeepsItsSign(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	r := &compare.Result{Metrics: []compare.Metric{{Name: "goodput@1000ms", Unit: "/s", A: f(169.30), B: f(167.77), Diff: f(-1.53),
		CI95: compare.Bounds{Low: f(-2.9), High: f(-0.348)}, Method: compare.MethodPoisson, Verdict: compare.Worse}}}
	c := compare.Cells(r, lang.EN)[0]
	if c.Interval != "[−2.9, −0.348] /s" {
		t.Errorf("interval printed %q, want [−2.9, −0.348] /s", c.Interval)
	}
	if c.Diff != "−1.53 /s" {
		t.Errorf("B − A printed %q, want −1.53 /s", c.Diff)
	}
}

// The printed interval excludes 0 exactly when the verdict is better or
// worse, and no nonzero bound prints as 0 or with the other sign: over
// every metric of a few comparisons, in both languages.
func TestPrintedIntervalAgreesWithVerdict(t *testing.T) {
	o := compare.Options{}
	p := practice(t)
	f := func(v float64) *float64 { return &v }
	pairs := [][2]compare.Run{
		{run(p, "p", o), run(stretchTTFT(p, 1.5), "p15", o)},
		{run(p, "p", o), run(stretchTTFT(p, 1.01), "p101", o)},
		{run(failing(100, 20), "f20", o), run(failing(100, 50), "f50", o)},
		{run(synth(load{n: 3000, windowS: 20, fail: 0.05, ttftMS: 300, tokens: 20, open: true}, 1), "s1", o),
			run(synth(load{n: 3000, windowS: 20, fail: 0.05, ttftMS: 303, tokens: 20, open: true}, 2), "s2", o)},
	}
	var results []*compare.Result
	for _, pr := range pairs {
		r, err := compare.Compare([]compare.Run{pr[0]}, []compare.Run{pr[1]}, o)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	// Bounds of every size beside values of every size.
	var made []compare.Metric
	for _, u := range []string{"ms", "/s", "token/s", "share"} {
		for _, hi := range []float64{-0.348, -0.0004, -3e-7, 0.02, 1e-9} {
			v, w := 169.3, 168.1
			if u == "share" {
				v, w = 0.818, 0.817
			}
			verdict := compare.Same
			if hi < 0 {
				verdict = compare.Worse
			}
			made = append(made, compare.Metric{Name: "m", Unit: u, A: f(v), B: f(w), Diff: f(w - v), CI95: compare.Bounds{Low: f(-3), High: f(hi)}, Method: compare.MethodBootstrap, Verdict: verdict})
		}
	}
	results = append(results, &compare.Result{Metrics: made})
	for _, r := range results {
		for _, l := range []lang.Lang{lang.ZH, lang.EN} {
			for i, c := range compare.Cells(r, l) {
				m := r.Metrics[i]
				if m.Diff == nil {
					continue
				}
				lo, hi, ok := strings.Cut(strings.TrimPrefix(c.Interval[:strings.LastIndex(c.Interval, "]")], "["), ", ")
				if !ok {
					t.Fatalf("%s: interval %q", m.Name, c.Interval)
				}
				for _, b := range []struct {
					v    *float64
					text string
				}{{m.CI95.Low, lo}, {m.CI95.High, hi}} {
					if b.v == nil {
						continue
					}
					if *b.v != 0 && b.text == "0" || *b.v < 0 && !strings.HasPrefix(b.text, "−") || *b.v > 0 && !strings.HasPrefix(b.text, "+") {
						t.Errorf("%s: bound %v printed %q (%s)", m.Name, *b.v, b.text, c.Interval)
					}
				}
				excludes := strings.HasPrefix(lo, "+") || strings.HasPrefix(hi, "−")
				if excludes != m.Real() {
					t.Errorf("%s: printed %s, verdict %s", m.Name, c.Interval, m.Verdict)
				}
			}
		}
	}
}
