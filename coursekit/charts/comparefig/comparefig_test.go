package comparefig_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/comparefig"
	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// result compares a with b, one run each, named name.
func result(t *testing.T, a, b *trace.Trace, name string) *compare.Result {
	t.Helper()
	o := compare.Options{}
	run := func(tr *trace.Trace) compare.Run {
		return compare.Run{Name: name, Summary: cardopts.MustSummarize(tr, o.CardFlags(), cardopts.Resampling())}
	}
	r, err := compare.Compare([]compare.Run{run(a)}, []compare.Run{run(b)}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// slower is tr with every stream starting and ending d ms later.
func slower(tr *trace.Trace, d float64) *trace.Trace {
	out := &trace.Trace{Header: tr.Header}
	for _, a := range tr.Attempts {
		a.Events = slices.Clone(a.Events)
		for i := range a.Events {
			a.Events[i].TMS += d
		}
		if a.HasEnd {
			a.EndMS += d
		}
		out.Attempts = append(out.Attempts, a)
	}
	return out
}

// One row per metric, in the report's order; each row's point is B − A as
// a share of A in %, inside its interval, coloured by the verdict.
func TestForestRows(t *testing.T) {
	p := charttest.UnitTrace(t, "practice.jsonl")
	r := result(t, p, slower(p, 100), "practice.jsonl")
	opt := charttest.Decoded(t, comparefig.Forest(r))
	y := opt["yAxis"].([]any)[0].(map[string]any)
	var names []string
	for _, n := range y["data"].([]any) {
		names = append(names, n.(string))
	}
	// Each row ends with its verdict (a label on the point could be left
	// out: the walk saw rows without their ~).
	var want []string
	for _, m := range r.Metrics {
		if m.Unit == "share" {
			want = append(want, m.Name+"（pp） · "+compare.VerdictName(lang.ZH, m.Verdict)) // percentage points
			continue
		}
		want = append(want, m.Name+" · "+compare.VerdictName(lang.ZH, m.Verdict))
	}
	if y["axisLabel"].(map[string]any)["interval"] != "0" {
		t.Errorf("y axis labels %v: want every row's label shown (interval 0)", y["axisLabel"])
	}
	if !slices.Equal(names, want) {
		t.Fatalf("rows %v, want %v", names, want)
	}
	series := opt["series"].([]any)
	if len(series) != len(want)+1 {
		t.Fatalf("%d series, want an interval per metric and the points", len(series))
	}
	points := series[len(series)-1].(map[string]any)["data"].([]any)
	for i, m := range r.Metrics {
		pt := points[i].(map[string]any)
		x := pt["value"].([]any)[0].(float64)
		iv := series[i].(map[string]any)["data"].([]any)
		lo, hi := iv[0].(map[string]any)["value"].([]any)[0].(float64), iv[1].(map[string]any)["value"].([]any)[0].(float64)
		if x < lo || x > hi {
			t.Errorf("%s: point %v outside its interval [%v, %v]", m.Name, x, lo, hi)
		}
		color := pt["itemStyle"].(map[string]any)["color"].(string)
		wantColor := map[string]string{compare.Better: "#3ba272", compare.Worse: "#d93b3b", compare.Same: "#9a9a9a"}[m.Verdict]
		if color != wantColor {
			t.Errorf("%s (%s): colour %s, want %s", m.Name, m.Verdict, color, wantColor)
		}
		tip := pt["tooltip"].(map[string]any)["formatter"].(string)
		if !strings.Contains(tip, m.Name) || !strings.Contains(tip, "<br/>") || strings.Contains(tip, "‹br") {
			t.Errorf("%s: tooltip %q", m.Name, tip)
		}
	}
	if m := r.Metrics[0]; m.Verdict != compare.Worse {
		t.Errorf("100 ms more TTFT: %s is %s", m.Name, m.Verdict)
	}
}

// A share is drawn in percentage points, so a failure rate of 0 % on A is
// drawn (it was "not drawn" as a share of A), its row marked (pp). A
// percentile too small to bound is drawn dashed to the axis' edge.
func TestForestLeftOutAndUnbounded(t *testing.T) {
	u := charttest.UnitTrace(t, "trace.jsonl")
	ok := &trace.Trace{Header: u.Header}
	for _, a := range u.Attempts {
		if a.Outcome == trace.OK {
			ok.Attempts = append(ok.Attempts, a)
		}
	}
	r := result(t, ok, u, "trace.jsonl") // A has no failure: failure_rate's A is 0
	opt := charttest.Decoded(t, comparefig.Forest(r, charts.WithLang(lang.EN)))
	sub := opt["title"].(map[string]any)["subtext"].(string)
	if strings.Contains(sub, "failure_rate") || !strings.Contains(sub, "percentage points") {
		t.Errorf("subtitle %q: failure_rate left out, or the pp not said", sub)
	}
	rows := opt["yAxis"].([]any)[0].(map[string]any)["data"].([]any)
	if !slices.Contains(rows, any("failure_rate (pp) · ~")) {
		t.Errorf("rows %v: no failure_rate (pp)", rows)
	}
	x := opt["xAxis"].([]any)[0].(map[string]any)
	edge := x["max"].(float64)
	series := opt["series"].([]any)
	found := false
	for _, s := range series[:len(series)-1] {
		sm := s.(map[string]any)
		d := sm["data"].([]any)
		hi := d[1].(map[string]any)["value"].([]any)
		if strings.HasPrefix(hi[1].(string), "ttft_ms.p95 ") {
			found = true
			if hi[0].(float64) != edge || sm["lineStyle"].(map[string]any)["type"] != "dashed" {
				t.Errorf("ttft_ms.p95 of 8 successes: drawn to %v (edge %v), style %v", hi[0], edge, sm["lineStyle"])
			}
		}
	}
	if !found {
		t.Error("ttft_ms.p95 is not drawn")
	}
}

// The page is offline, holds the plot and the table, and shows a trace's
// name as text.
func TestWritePage(t *testing.T) {
	u := charttest.UnitTrace(t, "trace.jsonl")
	r := result(t, u, u, charttest.Evil)
	var b bytes.Buffer
	if err := comparefig.WritePage(&b, r, lang.ZH); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	if strings.Contains(h, charttest.Evil) || strings.Contains(h, "<img src=x onerror") {
		t.Error("a trace's name reached the page as markup")
	}
	for _, want := range []string{"compare_forest", "<table", "ttft_ms.p50", "A：1 次运行"} {
		if !strings.Contains(h, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(h, "<script src") {
		t.Error("the page loads a script")
	}
}
