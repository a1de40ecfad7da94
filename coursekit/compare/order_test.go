package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The order runs are listed in changes nothing (the bootstrap draws them
// in an order of their own), and the same runs on both sides, listed in
// another order, differ by exactly 0, never by floating-point noise printed
// as "−0.00000000000182 ms" (the fifth engineer walk).
func TestRunOrderChangesNothing(t *testing.T) {
	o := compare.Options{}
	runs := []compare.Run{
		run(synth(load{n: 60, windowS: 10, fail: 0.1, ttftMS: 200, tokens: 8}, 1), "r1", o),
		run(synth(load{n: 60, windowS: 10, fail: 0.1, ttftMS: 210, tokens: 8}, 2), "r2", o),
		run(synth(load{n: 60, windowS: 10, fail: 0.1, ttftMS: 190, tokens: 8}, 3), "r3", o),
	}
	b := []compare.Run{run(synth(load{n: 60, windowS: 10, fail: 0.1, ttftMS: 300, tokens: 8}, 4), "b1", o), run(synth(load{n: 60, windowS: 10, fail: 0.1, ttftMS: 310, tokens: 8}, 5), "b2", o)}
	x, err := compare.Compare(runs, b, o)
	if err != nil {
		t.Fatal(err)
	}
	y, err := compare.Compare([]compare.Run{runs[2], runs[0], runs[1]}, []compare.Run{b[1], b[0]}, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range x.Metrics {
		n := y.Metrics[i]
		if *m.Diff != *n.Diff || !sameBound(m.CI95.Low, n.CI95.Low) || !sameBound(m.CI95.High, n.CI95.High) {
			t.Errorf("%s: %v [%v, %v] in one order, %v [%v, %v] in another", m.Name, *m.Diff, m.CI95.Low, m.CI95.High, *n.Diff, n.CI95.Low, n.CI95.High)
		}
	}
	aa, err := compare.Compare(runs, []compare.Run{runs[2], runs[1], runs[0]}, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range aa.Metrics {
		if m.Diff != nil && *m.Diff != 0 || m.Verdict == compare.Better || m.Verdict == compare.Worse {
			t.Errorf("%s: the same runs in another order differ by %v (%s)", m.Name, *m.Diff, m.Verdict)
		}
	}
	var buf bytes.Buffer
	if err := compare.Write(&buf, aa, cardfmt.Text, lang.EN); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "0.0000000") {
		t.Errorf("floating-point noise printed:\n%s", buf.String())
	}
}

func sameBound(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// A difference keeps three significant digits of its own, at least the
// digits its A and B are printed to, and only floating-point noise of a
// mean (the walk saw "−0.00000000000182 ms") prints 0: a real −1.53 /s once
// printed "−2 /s".
func TestDifferencesKeepTheirDigits(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		unit string
		a, b float64
		want string
	}{
		{"ms", 2473.4, 2473.45, "+0.05 ms"},
		{"ms", 140.2, 140.2 + 1.82e-12, "0 ms"},
		{"ms", 140.2, 140.26, "+0.06 ms"},
		{"token/s", 48.3, 48.3004, "+0.0004 token/s"},
		{"token/s", 48.3, 46.77, "−1.53 token/s"},
		{"share", 0.115, 0.18571, "+7.07 pp"},
	} {
		d := c.b - c.a
		r := &compare.Result{Metrics: []compare.Metric{{Name: "x", Unit: c.unit, A: f(c.a), B: f(c.b), Diff: f(d), CI95: compare.Bounds{Low: f(d), High: f(d)}, Method: compare.MethodBootstrap, Verdict: compare.Same}}}
		if got := compare.Cells(r, lang.EN)[0].Diff; got != c.want {
			t.Errorf("%s %v → %v: B − A printed %q, want %q", c.unit, c.a, c.b, got, c.want)
		}
	}
}
