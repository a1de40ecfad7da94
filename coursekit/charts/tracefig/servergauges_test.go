package tracefig_test

import (
	"math"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

func gaugeTrace(t *testing.T) *trace.Trace {
	t.Helper()
	tr, err := trace.Read(strings.NewReader(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":3000}}
{"attempt":"a","start_ms":0,"outcome":"ok","http_status":200,"events":[{"t_ms":100}],"end_ms":2500}
{"attempt":"b","start_ms":500,"outcome":"ok","http_status":200,"events":[{"t_ms":600}],"end_ms":1500}
{"attempt":"c","start_ms":900,"outcome":"in_flight"}
`), "g.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The chart's data: the client's in-flight count at each scrape, from the
// trace, beside llama.cpp's processing and deferred gauges and their sum;
// a failed scrape is a gap in the server lines, not a zero.
func TestServerGaugeSeries(t *testing.T) {
	tr := gaugeTrace(t)
	g := func(p, d float64) map[string]float64 {
		return map[string]float64{"llamacpp:requests_processing": p, "llamacpp:requests_deferred": d, "llamacpp:n_decode_total": 99}
	}
	scrapes := []trace.Scrape{
		{TMS: 0.5, Values: g(1, 0)},
		{TMS: 1000, Values: g(1, 2)},
		{TMS: 1800, Error: "connection refused"},
		{TMS: 2600, Values: g(0, 1)},
	}
	at, series, known := tracefig.ServerGaugeSeries(tr, scrapes)
	if !known || len(at) != 4 {
		t.Fatalf("known %v, %d times", known, len(at))
	}
	want := map[string][]float64{
		"客户端在途请求（由 trace 算出）":                {1, 3, 2, 1},
		"llamacpp:requests_processing（正在处理）": {1, 1, math.NaN(), 0},
		"llamacpp:requests_deferred（等待中）":    {0, 2, math.NaN(), 1},
		"llama.cpp 合计：处理 + 等待":               {1, 3, math.NaN(), 1},
	}
	if len(series) != len(want) {
		t.Fatalf("%d series: %+v", len(series), series)
	}
	for _, s := range series {
		w, ok := want[s.Name]
		if !ok {
			t.Errorf("unexpected series %q", s.Name)
			continue
		}
		for i := range w {
			if !(s.Values[i] == w[i] || math.IsNaN(s.Values[i]) && math.IsNaN(w[i])) {
				t.Errorf("%s: %v, want %v", s.Name, s.Values, w)
				break
			}
		}
	}
	html := string(tracefig.ServerGauges(tr, scrapes, charts.WithID("g")).RenderContent())
	for _, w := range []string{"客户端在途请求", "llamacpp:requests_deferred", "4 次读数（1 次失败"} {
		if !strings.Contains(html, w) {
			t.Errorf("chart lacks %q", w)
		}
	}
}

// vLLM's gauges carry labels: summed over them. A sidecar with no known
// gauge still draws the client's line and says why there is no other.
func TestServerGaugeSeriesLabelsAndUnknown(t *testing.T) {
	tr := gaugeTrace(t)
	_, series, known := tracefig.ServerGaugeSeries(tr, []trace.Scrape{{TMS: 1000, Values: map[string]float64{
		`vllm:num_requests_running{model_name="a"}`: 2, `vllm:num_requests_running{model_name="b"}`: 1}}})
	if !known || len(series) != 2 || series[1].Values[0] != 3 {
		t.Errorf("vLLM: known %v, %+v", known, series)
	}
	scrapes := []trace.Scrape{{TMS: 1000, Values: map[string]float64{"</script><b>x": 1}}}
	_, series, known = tracefig.ServerGaugeSeries(tr, scrapes)
	if known || len(series) != 1 {
		t.Errorf("unknown gauges: known %v, %+v", known, series)
	}
	html := string(tracefig.ServerGauges(tr, scrapes).RenderContent())
	if !strings.Contains(html, "没有已知的服务器请求 gauge") || strings.Contains(html, "<b>x") {
		t.Errorf("unknown gauges: the chart does not say so, or shows a raw name")
	}
}

// Every legend name is drawn whole, in both languages (walk 35e saw
// "client requests in flight (from the trac…").
func TestServerGaugeLegendNotCut(t *testing.T) {
	tr := gaugeTrace(t)
	v := map[string]float64{}
	for _, n := range trace.RequestGaugeNames {
		v[n] = 1
	}
	scrapes := []trace.Scrape{{TMS: 1000, Values: v}}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		html := string(tracefig.ServerGauges(tr, scrapes, charts.WithLang(l), charts.WithID("g")).RenderContent())
		if strings.Contains(html, "…") {
			t.Errorf("%s: a legend name is cut", l)
		}
		want := map[lang.Lang]string{lang.ZH: "客户端在途请求（由 trace 算出）", lang.EN: "client requests in flight (from the trace)"}[l]
		if !strings.Contains(html, want) {
			t.Errorf("%s: the legend lacks %q", l, want)
		}
	}
}
