package comparefig_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/comparefig"
	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// An A/A pair whose intervals all lie within ±2 % gets an axis fitted to
// them, 0 among its ticks, and no row squeezed onto 0: the walk's chart of
// two 200k-request runs started at −100 % and drew every row as a dot on
// the zero line. An unbounded row still ends at both edges with arrows.
func TestForestAxisFitsSmallIntervals(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	m := func(name string, rel, lo, hi float64) compare.Metric {
		a := 200.0
		return compare.Metric{Name: name, A: f(a), B: f(a * (1 + rel)), Diff: f(a * rel), Rel: f(rel),
			CI95: compare.Bounds{Low: f(a * lo), High: f(a * hi)}, Method: compare.MethodBootstrap, Verdict: compare.Same, Unit: "ms", LowerIsBetter: true}
	}
	open := m("ttft_ms.p99", 0.004, 0, 0)
	open.CI95 = compare.Bounds{}
	r := &compare.Result{Metrics: []compare.Metric{
		m("ttft_ms.p50", -0.001, -0.005, 0.002), m("ttft_ms.p95", 0.008, -0.001, 0.016),
		m("goodput@1000ms", -0.009, -0.017, -0.0002), open,
	}}
	r.A.Traces, r.B.Traces = []string{"a"}, []string{"b"}
	opt := charttest.Decoded(t, comparefig.Forest(r, charts.WithLang(lang.EN)))
	x := opt["xAxis"].([]any)[0].(map[string]any)
	lo, hi, step := x["min"].(float64), x["max"].(float64), x["minInterval"].(float64)
	if lo > -1.7 || hi < 1.6 || lo < -10 || hi > 10 {
		t.Errorf("axis [%v, %v] %%: want it to hold [−1.7, +1.6] %% and stay within ±10 %%", lo, hi)
	}
	if k := -lo / step; k != float64(int(k)) {
		t.Errorf("axis [%v, %v] in steps of %v: 0 is no tick", lo, hi, step)
	}
	series := opt["series"].([]any)
	d := series[3].(map[string]any)["data"].([]any)
	for i, edge := range []float64{lo, hi} {
		p := d[i].(map[string]any)
		if p["symbol"] != "arrow" || p["value"].([]any)[0].(float64) != edge {
			t.Errorf("the unbounded row's end %v: want an arrow at %v", p, edge)
		}
	}
}

// The subtitle is wrapped, not cut: with many metrics left out (A is 0
// for every rate of several SLOs) each is named whole, and no line is
// wider than the chart's title area holds (the walk saw "goodput@200…").
func TestForestSubtitleWraps(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	var ms []compare.Metric
	var names []string
	for _, slo := range []int{200, 500, 1000, 2000, 5000} {
		for _, kind := range []string{"qualified_rate", "goodput"} {
			name := fmt.Sprintf("%s@%dms", kind, slo)
			names = append(names, name)
			ms = append(ms, compare.Metric{Name: name, A: f(0), B: f(0.2), Diff: f(0.2), CI95: compare.Bounds{Low: f(0.1), High: f(0.3)}, Verdict: compare.Better, Unit: "/s"})
		}
	}
	r := &compare.Result{Metrics: ms}
	r.A.Traces, r.B.Traces = []string{"a"}, []string{"b"}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		opt := charttest.Decoded(t, comparefig.Forest(r, charts.WithLang(l)))
		sub := opt["title"].(map[string]any)["subtext"].(string)
		for _, n := range names {
			if !strings.Contains(sub, n) {
				t.Errorf("%v: subtitle does not name %s whole:\n%s", l, n, sub)
			}
		}
		for _, line := range strings.Split(sub, "\n") {
			w := utf8.RuneCountInString(line)
			for _, r := range line {
				if r >= 0x2e80 {
					w++ // a Chinese character is two columns wide
				}
			}
			if w > 110 {
				t.Errorf("%v: a subtitle line %d columns wide: %q", l, w, line)
			}
		}
	}
}
