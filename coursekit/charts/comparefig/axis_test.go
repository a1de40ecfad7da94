package comparefig_test

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/comparefig"
	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The axis is set by the estimates and bounded ends, not by the unbounded
// rows (the fifth engineer walk: ±1000 % to draw them squeezed the real
// intervals): it holds the lowest estimate, ends at most twice the largest
// estimate away, and a row's end beyond it, unbounded or not, stops at the
// edge with an arrow pointing out. The zero line carries no label (it
// stood on the first row's verdict; the subtitle says what the line is),
// and the start, 0 and the edge are ticks.
func TestForestAxisClipsWithArrows(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	m := func(name string, a, rel float64, lo, hi *float64, v string) compare.Metric {
		d := a * rel
		return compare.Metric{Name: name, A: f(a), B: f(a + d), Diff: f(d), Rel: f(rel), CI95: compare.Bounds{Low: lo, High: hi},
			Method: compare.MethodBootstrap, Verdict: v, Unit: "ms", LowerIsBetter: true}
	}
	r := &compare.Result{Metrics: []compare.Metric{
		m("ttft_ms.p50", 100, 0.1, f(-5), f(25), compare.Same),
		m("ttft_ms.p95", 100, -0.2, nil, nil, compare.Same),
		m("itl_ms.p50", 1, 3, f(1), f(9), compare.Worse),
	}}
	r.A.Traces, r.B.Traces = []string{"a"}, []string{"b"}
	opt := charttest.Decoded(t, comparefig.Forest(r, charts.WithLang(lang.EN)))
	x := opt["xAxis"].([]any)[0].(map[string]any)
	lo, hi := x["min"].(float64), x["max"].(float64)
	if lo > -20 || lo < -200 || hi < 300 || hi > 800 {
		t.Errorf("axis [%v, %v], want [−200…−20, 300…800]", lo, hi)
	}
	series := opt["series"].([]any)
	ends := func(i int) (l, r map[string]any) {
		d := series[i].(map[string]any)["data"].([]any)
		return d[0].(map[string]any), d[1].(map[string]any)
	}
	at := func(p map[string]any) float64 { return p["value"].([]any)[0].(float64) }
	arrow := func(p map[string]any) bool { return p["symbol"] == "arrow" }
	if l, r := ends(0); arrow(l) || arrow(r) || at(l) != -5 || at(r) != 25 {
		t.Errorf("a bounded row within the axis: %v %v", l, r)
	}
	if l, r := ends(1); !arrow(l) || !arrow(r) || at(l) != lo || at(r) != hi {
		t.Errorf("an unbounded row: ends %v %v, want arrows at the axis' edges", l, r)
	}
	if l, r := ends(2); arrow(l) || !arrow(r) || at(r) != hi {
		t.Errorf("a row past the axis: ends %v %v, want an arrow at the right edge", l, r)
	}
	zero := series[len(series)-1].(map[string]any)["markLine"].(map[string]any)["data"].([]any)[0].(map[string]any)
	if show := zero["label"].(map[string]any)["show"]; show != false {
		t.Errorf("the zero line is labelled (%v): the label stood on the first row's verdict", zero["label"])
	}
	// Ticks every step from the start: 0 is one, and the edge too.
	step := x["minInterval"].(float64)
	if x["maxInterval"] != step || int(-lo)%int(step) != 0 || int(hi)%int(step) != 0 {
		t.Errorf("ticks every %v from %v to %v: the start, 0 and the edge are not all ticks", step, lo, hi)
	}
}
