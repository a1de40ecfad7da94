package labfig_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/class"
	"github.com/llmperf-course/course/coursekit/charts/comparefig"
	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/charts/paths"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/web"
)

// notebookOptionsFile holds the option of every chart kind as nb.Chart sends it to
// JupyterLab. The course's lab extension keeps only the ECharts options on its allowlist
// (docker/labextension/src/echarts-options.js); the browser test
// (docker/test/browser/renderer.test.mjs) draws each of these and checks that the
// allowlist keeps every key of them, so a chart that starts using a new option fails there
// until the allowlist knows it. `go test ./coursekit/charts/labfig -run TestNotebookOptionsFile -update` rewrites the file.
const notebookOptionsFile = "../../../docker/test/browser/testdata/course-chart-options.json"

// It sits with the lab figures because their test helpers (runs, capacity searches) build
// most of the inputs; it draws every family.

var update = flag.Bool("update", false, "rewrite "+notebookOptionsFile)

// everyChart is one chart of each kind the course draws, in Chinese and, for some, in
// English, with hostile text where a chart takes text from a trace or a card.
func everyChart(t testing.TB) map[string]web.Chart {
	unit := charttest.UnitTrace(t, "trace.jsonl")
	tl := charttest.UnitTrace(t, "timeline.jsonl")
	many := charttest.UnitTrace(t, "practice.jsonl") // more rows than fit: the attempts chart scrolls (dataZoom)
	many.Attempts = many.Attempts[:tracefig.AttemptRows+2]
	s := metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{1000, 500}})
	runs := []labfig.Run{labRun("开环"), labRun(evil)}
	v := 12.5
	pts := []labfig.IntervalPoint{
		{N: 8, Value: fp(2000), Low: fp(800), NeedNHigh: 72},
		{N: 72, Value: fp(698.44), Low: fp(562.6), High: fp(979.1)},
		{N: 1802, Value: fp(738.8), Low: fp(684.7), High: fp(790.6)},
	}
	gauges := func(p, d float64) map[string]float64 {
		return map[string]float64{"llamacpp:requests_processing": p, "llamacpp:requests_deferred": d}
	}
	gt, err := trace.ReadFile(charttest.UnitPath("trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	scrapes := []trace.Scrape{{TMS: 0.5, Values: gauges(1, 0)}, {TMS: 1000, Values: gauges(1, 2)},
		{TMS: 1800, Error: "connection refused"}, {TMS: 2600, Values: gauges(0, 1)}}

	// The runtime check's own go-echarts bar (notebooks/00-runtime-check.ipynb).
	bar := ec.NewBar()
	bar.SetGlobalOptions(
		ec.WithInitializationOpts(opts.Initialization{Width: "640px", Height: "320px"}),
		ec.WithTitleOpts(opts.Title{Title: "每个请求的首字时延（毫秒）"}),
		ec.WithAnimation(false),
	)
	bar.SetXAxis([]string{"r1", "r3"}).AddSeries("TTFT", []opts.BarData{{Value: 180}, {Value: 95}})

	en := charts.WithLang(lang.EN)
	return map[string]web.Chart{
		"runtime_check_bar":    bar,
		"system_paths":         paths.System(),
		"path_map":             paths.Map(charttest.UnitPathMap()),
		"timeline":             tracefig.Timeline(&tl.Attempts[0]),
		"attempts":             tracefig.Attempts(unit, 1000),
		"attempts_en":          tracefig.Attempts(unit, 1000, en),
		"attempts_scrolling":   tracefig.Attempts(many, 1000),
		"ttft_cdf":             tracefig.TTFTDistribution(unit),
		"funnel_1s":            tracefig.Funnel(s, 0),
		"funnel_500ms":         tracefig.Funnel(s, 1),
		"slo_sweep":            tracefig.SLOSweep(unit, nil, nil),
		"slo_sweep_marked":     tracefig.SLOSweep(unit, []float64{250, 500, 1000, 2000}, []float64{1000}),
		"lab_send_rate":        labfig.SendRate(runs, 1000, 10),
		"lab_queue":            labfig.Queue(runs),
		"lab_ttft":             labfig.TTFT(runs, 2500),
		"lab_busy_vs_ttft":     labfig.BusyVsTTFT(runs[0], 1000),
		"lab_goodput":          labfig.Goodput([]labfig.Run{rated("答对"), rated("答错一次", "b")}, 1000, 1000),
		"engine_compare":       labfig.Compare("TTFT", "说明", "TTFT P50 (ms)", "ms", []string{"1 个槽位", evil}, []*float64{&v, nil}),
		"engine_server_split":  labfig.ServerSplit(engineRun()),
		"capacity_attainment":  labfig.CapacityAttainment(capacitySearch()),
		"capacity_load":        labfig.CapacityLoad(capacitySearch()),
		"percentile_by_n":      labfig.PercentileByN("图 01.20 P95 的区间", "练习 trace", 0.95, "ms", pts),
		"server_gauges":        tracefig.ServerGauges(gt, scrapes),
		"class_scores":         class.ScoreDistribution([]string{"0–10%", "10–20%"}, []int{1, 3}, "说明"),
		"class_pass_rates":     class.PassRates([]string{evil, "b"}, []int{2, 5}, 5),
		"class_mistakes":       class.Mistakes([]string{evil}, []int{4}, 5),
		"class_mistakes_empty": class.Mistakes(nil, nil, 0),
		"compare_forest":       comparefig.Forest(abResult(t, unit)),
	}
}

// abResult compares tr with itself, its TTFTs and ends 300 ms later.
func abResult(t testing.TB, tr *trace.Trace) *compare.Result {
	o := compare.Options{}
	late := &trace.Trace{Header: tr.Header}
	for _, a := range tr.Attempts {
		a.Events = append([]trace.Event(nil), a.Events...)
		for i := range a.Events {
			a.Events[i].TMS += 300
		}
		if a.HasEnd {
			a.EndMS += 300
		}
		late.Attempts = append(late.Attempts, a)
	}
	r, err := compare.Compare([]compare.Run{{Name: "a", Summary: cardopts.MustSummarize(tr, o.CardFlags(), cardopts.Resampling())}},
		[]compare.Run{{Name: "b", Summary: cardopts.MustSummarize(late, o.CardFlags(), cardopts.Resampling())}}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNotebookOptionsFile keeps notebookOptionsFile equal to what the charts send now.
func TestNotebookOptionsFile(t *testing.T) {
	all := everyChart(t)
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	type entry struct {
		Name   string          `json:"name"`
		Height string          `json:"height"`
		Option json.RawMessage `json:"option"`
	}
	var entries []entry
	for _, name := range names {
		out, err := web.NotebookOutput(all[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		height := out.Metadata[web.MIMEType].(map[string]string)["height"]
		entries = append(entries, entry{name, height, json.RawMessage(out.Data[web.MIMEType].(string))})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(entries); err != nil {
		t.Fatal(err)
	}
	got := b.Bytes()
	if *update {
		if err := os.MkdirAll(filepath.Dir(notebookOptionsFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(notebookOptionsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(notebookOptionsFile)
	if err != nil {
		t.Fatalf("%v (run go test ./coursekit/charts/labfig -run TestNotebookOptionsFile -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the charts send now: run go test ./coursekit/charts/labfig -run TestNotebookOptionsFile -update, then the browser test "+
			"docker/test/browser/renderer.test.mjs (the lab extension's allowlist must keep every option)", notebookOptionsFile)
	}
}
