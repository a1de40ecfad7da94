package textcheck

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"testing"

	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/charts/comparefig"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/charts/paths"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

type echart interface {
	render.Renderer
	JSON() map[string]interface{}
}

// chartStrings renders each chart and returns every string of its ECharts
// option (titles, subtitles, axis names, legends, labels, tooltips): the
// text a learner reads in a chart, as the chart code built it at run time.
func chartStrings(c echart) []string {
	if s, ok := c.(interface{ Validate() }); ok {
		s.Validate()
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(jsonRoundTrip(c.JSON()))
	return out
}

type namedChart struct {
	name string
	c    echart
}

// unitCharts are the charts the notebooks and the report draw, for the
// unit's traces.
func unitCharts(t *testing.T) []namedChart {
	t.Helper()
	var all []namedChart
	add := func(name string, c echart) { all = append(all, namedChart{name, c}) }
	for _, name := range []string{"trace.jsonl", "practice.jsonl", "timeline.jsonl"} {
		tr, err := trace.ReadFile(filepath.Join(repo, "data", "unit01", name))
		if err != nil {
			t.Fatal(err)
		}
		s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000, 500}})
		add("Funnel "+name, tracefig.Funnel(s, 0))
		add("Attempts "+name, tracefig.Attempts(tr, 1000))
		add("TTFTDistribution "+name, tracefig.TTFTDistribution(tr))
		add("SLOSweep "+name, tracefig.SLOSweep(tr, nil, []float64{500, 1000}))
		for i := range tr.Attempts {
			if i < 6 {
				add("Timeline "+name+" "+tr.Attempts[i].ID, tracefig.Timeline(&tr.Attempts[i]))
			}
		}
		runs := []labfig.Run{{Name: "开环 12 次/s", Trace: tr}, {Name: "闭环 4 个用户", Trace: tr}}
		add("SendRate "+name, labfig.SendRate(runs, 1000, 12))
		add("Queue "+name, labfig.Queue(runs))
		add("TTFT "+name, labfig.TTFT(runs, 2500))
		add("BusyVsTTFT "+name, labfig.BusyVsTTFT(runs[0], 1000))
		add("Goodput "+name, labfig.Goodput(runs, 1000, 1000))
		add("ServerSplit "+name, labfig.ServerSplit(runs[0]))
	}
	for _, name := range []string{"trace.jsonl", "practice.jsonl"} {
		tr, err := trace.ReadFile(filepath.Join(repo, "data", "unit01", name))
		if err != nil {
			t.Fatal(err)
		}
		pts := lab.PercentileByN(tr, 0.95, 8, 72, 500)
		add("PercentileByN "+name, labfig.PercentileByN("图 10.1 P95 的 95% 区间随样本数变化", "前 n 个完整成功；次序统计量法，双侧，每侧 ≤ 2.5%", 0.95, "ms", pts))
	}
	// Notebook 10's search, as lab.CapacityChart copies it (a rule with a
	// latency SLO, every verdict, an early stop, a provisional answer).
	pf := func(v float64) *float64 { return &v }
	res := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, LatencySLO: metrics.LatencySLO{E2EMS: 3000}, Model: "smollm2-135m",
		MaxRateMeeting: pf(10), Provisional: true, ElapsedS: 40.2, Steps: []capacity.Step{
			{Rate: 10, Attempts: 40, Qualified: 40, Attainment: pf(1), CILow: pf(0.912), CIHigh: pf(1), Verdict: capacity.Meets, WindowS: 4, Extended: 1, BusyMean: pf(0.98), P95TTFTMS: pf(50)},
			{Rate: 40, Attempts: 30, Qualified: 8, Attainment: pf(0.27), CILow: pf(0.14), CIHigh: pf(0.44), Verdict: capacity.Fails, Reason: "stopped early: overload", WindowS: 1.5},
			{Rate: 20, Attempts: 20, Qualified: 20, Attainment: pf(1), CILow: pf(0.84), CIHigh: pf(1), Verdict: capacity.Undecided, WindowS: 1},
			{Rate: 30, Verdict: capacity.Interrupted},
		}}
	add("CapacityAttainment", labfig.CapacityAttainment(lab.CapacityChart(res)))
	add("CapacityLoad", labfig.CapacityLoad(lab.CapacityChart(res)))
	add("System", paths.System())
	add("Map", paths.Map(card.PathMap{Task: card.InferenceTask, SamplingPoint: "客户端发请求"}))
	v := 120.0
	add("Forest", comparefig.Forest(unitComparison(t)))
	add("Compare", labfig.Compare("槽位和事件间隔", "4 个用户，每次最多 32 个 token", "事件间隔 P50（ms）", "ms", []string{"1 个槽位", "4 个槽位"}, []*float64{&v, nil}))
	return all
}

// Every chart the notebooks and the report draw writes full-width
// punctuation next to Chinese, as the notebooks' own text does.
func TestChartTextIsFullWidth(t *testing.T) {
	for _, x := range unitCharts(t) {
		for _, s := range chartStrings(x.c) {
			for _, p := range ChartPunctuation(s) {
				t.Errorf("%s: half-width punctuation in Chinese chart text: %q (in %q)", x.name, p, s)
			}
		}
	}
}

// jsonRoundTrip turns the option's Go values (go-echarts structs) into
// plain JSON values.
func jsonRoundTrip(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}
