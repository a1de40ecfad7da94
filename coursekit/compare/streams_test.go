package compare_test

import (
	"bytes"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// streamRuns are three runs a side whose failure shares differ from run
// to run, so that the bootstrap, not the pooled Newcombe interval, sets
// the shares' intervals; every TTFT is far below 500 ms.
func streamRuns(o compare.Options) (a, b []compare.Run) {
	for i, fail := range []float64{0.05, 0.3, 0.15} {
		a = append(a, run(synth(load{n: 80, windowS: 10, fail: fail, ttftMS: 40, tokens: 8, open: true}, uint64(10+i)), "a", o))
		b = append(b, run(synth(load{n: 80, windowS: 10, fail: fail + 0.05, ttftMS: 45, tokens: 8, open: true}, uint64(20+i)), "b", o))
	}
	return a, b
}

// Identical data give identical intervals: with --slo-ttft 500ms and 1s
// on runs whose every TTFT is below 500 ms, the two qualified rates hold
// the same counts run by run, and their intervals and verdicts agree (the
// walk saw two such rows differ: one random stream per metric name).
func TestIdenticalCountsIdenticalIntervals(t *testing.T) {
	o := compare.Options{}
	o.Card.TTFTMS = []float64{500, 1000}
	a, b := streamRuns(o)
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{"qualified_rate@500ms", "qualified_rate@1000ms"}, {"goodput@500ms", "goodput@1000ms"}} {
		x, y := metric(t, r, pair[0]), metric(t, r, pair[1])
		if !sameFloats(x.ARuns, y.ARuns) || !sameFloats(x.BRuns, y.BRuns) {
			t.Fatalf("%s and %s: the fixture's counts differ", pair[0], pair[1])
		}
		if !sameBound(x.CI95.Low, y.CI95.Low) || !sameBound(x.CI95.High, y.CI95.High) || x.Verdict != y.Verdict {
			t.Errorf("identical data: %s [%v, %v] %s, %s [%v, %v] %s", x.Name, *x.CI95.Low, *x.CI95.High, x.Verdict, y.Name, *y.CI95.Low, *y.CI95.High, y.Verdict)
		}
	}
}

// A metric's interval does not depend on which other metrics are
// computed: adding a percentile (--percentiles) leaves every other
// metric's interval as it was, one run a side or three; the same seed
// twice gives the same output, byte for byte.
func TestOtherMetricsLeaveAnIntervalAlone(t *testing.T) {
	base := compare.Options{}
	for _, more := range []compare.Options{
		{TTFT: []float64{0.5, 0.9, 0.95, 0.99}},
		{TTFT: []float64{0.25, 0.5, 0.95, 0.99}},
		{ITL: []float64{0.5, 0.75, 0.95}},
		{E2E: []float64{0.5, 0.95}},
	} {
		for _, n := range []int{1, 3} {
			x, y := compareRuns(t, base, n), compareRuns(t, more, n)
			for _, m := range x.Metrics {
				o := metric(t, y, m.Name)
				if !sameBound(m.CI95.Low, o.CI95.Low) || !sameBound(m.CI95.High, o.CI95.High) || m.Verdict != o.Verdict {
					t.Errorf("%d run(s) a side: %s is [%v, %v] %s, with more percentiles (TTFT %v, E2E %v, gaps %v) [%v, %v] %s", n, m.Name, *m.CI95.Low, *m.CI95.High, m.Verdict, more.TTFT, more.E2E, more.ITL, *o.CI95.Low, *o.CI95.High, o.Verdict)
				}
			}
		}
	}
	for _, n := range []int{1, 3} {
		x := compareRuns(t, base, n)
		var p, q bytes.Buffer
		if err := compare.Write(&p, x, cardfmt.JSON, lang.EN); err != nil {
			t.Fatal(err)
		}
		if err := compare.Write(&q, compareRuns(t, base, n), cardfmt.JSON, lang.EN); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.Bytes(), q.Bytes()) {
			t.Errorf("%d run(s) a side: the same seed gave two outputs", n)
		}
	}
}

// compareRuns compares the first n of streamRuns' runs a side under o.
func compareRuns(t *testing.T, o compare.Options, n int) *compare.Result {
	t.Helper()
	a, b := streamRuns(o)
	r, err := compare.Compare(a[:n], b[:n], o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func sameFloats(x, y []*float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !sameBound(x[i], y[i]) {
			return false
		}
	}
	return true
}
