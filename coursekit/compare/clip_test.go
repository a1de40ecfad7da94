package compare_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The observed values bound no true difference: with 2 runs a side,
// Welch's t over the runs reaches below −A (the true A may exceed the
// observed mean), and the interval must keep it, not stop at −Â or +B̂.
// Only a share difference is clipped, to [−1, 1], and the result says so.
func TestIntervalsNotClippedToObservedValues(t *testing.T) {
	o := compare.Options{Resamples: 300}
	side := func(seed uint64, ls ...load) []compare.Run {
		var out []compare.Run
		for i, l := range ls {
			out = append(out, run(synth(l, seed+uint64(i)), "r", o))
		}
		return out
	}
	a := side(1, load{n: 60, windowS: 20, fail: 0.02, ttftMS: 300, tokens: 8}, load{n: 60, windowS: 20, fail: 0.4, ttftMS: 450, tokens: 8})
	b := side(11, load{n: 60, windowS: 20, fail: 0.1, ttftMS: 350, tokens: 8}, load{n: 600, windowS: 20, fail: 0.95, ttftMS: 700, tokens: 8})
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	m := metric(t, r, "ttft_ms.p50")
	lo, hi := welchOf(values(t, m.ARuns), values(t, m.BRuns))
	if !(lo < -*m.A && hi > *m.B) {
		t.Fatalf("test setup: Welch [%v, %v] does not reach past [−A, B] = [%v, %v]", lo, hi, -*m.A, *m.B)
	}
	if m.CI95.Low == nil || m.CI95.High == nil || *m.CI95.Low > lo+1e-9*-lo || *m.CI95.High < hi-1e-9*hi {
		t.Errorf("ttft_ms.p50: interval %s, want it to hold Welch's [%v, %v] (not clipped to [−A, B] = [%v, %v])", bounds(m.CI95), lo, hi, -*m.A, *m.B)
	}
	for _, m := range r.Metrics {
		if m.Unit != "share" && len(m.Clipped) > 0 {
			t.Errorf("%s: clipped %v; only a share difference may be clipped", m.Name, m.Clipped)
		}
	}
	f := metric(t, r, "failure_rate")
	if !slices.Equal(f.Clipped, []string{compare.ClippedLow, compare.ClippedHigh}) || *f.CI95.Low != -1 || *f.CI95.High != 1 {
		t.Errorf("failure_rate over runs %v against %v: interval %v–%v clipped %v, want [−1, 1] with both bounds named clipped",
			values(t, f.ARuns), values(t, f.BRuns), *f.CI95.Low, *f.CI95.High, f.Clipped)
	}
	for _, l := range []lang.Lang{lang.EN, lang.ZH} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		want := map[lang.Lang]string{lang.EN: "Clipped: failure_rate", lang.ZH: "截断：failure_rate"}[l]
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%s report lacks the clipping note %q:\n%s", l, want, buf.String())
		}
	}
	var js bytes.Buffer
	if err := compare.Write(&js, r, cardfmt.JSON, lang.EN); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"clipped": [`) {
		t.Error("JSON lacks the clipped field")
	}
}

// bounds prints an interval, ±∞ on an unbounded side.
func bounds(b compare.Bounds) string {
	lo, hi := "−∞", "+∞"
	if b.Low != nil {
		lo = fmt.Sprint(*b.Low)
	}
	if b.High != nil {
		hi = fmt.Sprint(*b.High)
	}
	return "[" + lo + ", " + hi + "]"
}
