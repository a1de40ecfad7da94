package charts_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	ec "github.com/go-echarts/go-echarts/v2/charts"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/charts/page"
	"github.com/llmperf-course/course/coursekit/charts/paths"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/web"
)

const dataDir = "../../data/unit01/"

func readTrace(t testing.TB, name string) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile(dataDir + name)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// chart is what every function of the package returns.
type chart interface {
	web.Snippeter
	JSON() map[string]interface{}
}

// option is the chart's ECharts option as indented JSON, after go-echarts
// has validated it (RenderSnippet runs the validation).
func option(t testing.TB, c chart) []byte {
	t.Helper()
	c.RenderSnippet()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c.JSON()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// decoded is the option as generic JSON, to look values up in tests.
func decoded(t testing.TB, c chart) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(option(t, c), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const evil = `</script><img src=x onerror=alert(1)>`

// Text from a trace or a card cannot inject markup or script, neither in
// our page, nor in a notebook fragment, nor in go-echarts' own page.
func TestEscaping(t *testing.T) {
	tr := readTrace(t, "trace.jsonl")
	tr.Attempts[0].ID = evil
	tr.Attempts[8].ID = `__f__alert(2)__f__`
	tr.Attempts[8].Error = `<img src=y onerror=alert(3)>{b}`
	tr.Header.Currency = `<b>CNY</b>`
	pm := unitPathMap()
	pm.Steps[0].Name = evil
	pm.Steps[1].Failure = `<svg onload=alert(4)>`
	pm.SamplingPoint = evil
	s := metrics.Summarize(tr, metrics.Options{})

	cs := []chart{
		tracefig.Timeline(&tr.Attempts[0]),
		tracefig.Attempts(tr, 1000),
		tracefig.TTFTDistribution(tr),
		tracefig.SLOSweep(tr, nil, nil),
		tracefig.Funnel(s, 0),
		paths.Map(pm),
	}
	var out bytes.Buffer
	var parts []page.Part
	for _, c := range cs {
		parts = append(parts, page.Figure(c, evil))
	}
	parts = append(parts, page.Card(s, evil), page.Text(evil))
	if err := page.Write(&out, evil, parts...); err != nil {
		t.Fatal(err)
	}
	check := func(where, html string) {
		t.Helper()
		for _, bad := range []string{"<img", "<svg", "<b>", "onerror=alert(1)>", "alert(2)__", "\nalert(2)"} {
			if strings.Contains(html, bad) {
				t.Errorf("%s contains %q", where, bad)
			}
		}
		if strings.Count(html, "</script>") != strings.Count(html, "<script") {
			t.Errorf("%s: %d </script> for %d <script", where, strings.Count(html, "</script>"), strings.Count(html, "<script"))
		}
	}
	// The inlined library itself contains "<img" (in its save-as-image
	// code); check the page around it.
	body := strings.Replace(out.String(), web.InlineEChartsScript(), "<script></script>", 1)
	if body == out.String() {
		t.Fatal("page does not inline ECharts")
	}
	check("page", body)
	for _, c := range cs {
		check("ChartHTML", web.ChartHTML(c.RenderSnippet()))
		type contenter interface{ RenderContent() []byte }
		check("go-echarts RenderContent", string(c.(contenter).RenderContent()))
	}
	if !strings.Contains(out.String(), "‹/script›‹img src=x onerror=alert(1)›") {
		t.Error("the id should stay readable with look-alike brackets")
	}
}

func TestLabel(t *testing.T) {
	for in, want := range map[string]string{
		"R1":                    "R1",
		"</script>":             "‹/script›",
		"{b}{c}":                "｛b｝｛c｝",
		"a\nb\x00c":             "a b c",
		"__f__x__f__":           "_\u200b_f_\u200b_x_\u200b_f_\u200b_",
		"__f__f__":              "_\u200b_f_\u200b_f__",
		strings.Repeat("长", 50): strings.Repeat("长", charts.MaxLabelRunes) + "…",
	} {
		got := charts.Label(in)
		if got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(got, "__f__") {
			t.Errorf("Label(%q) keeps the function marker", in)
		}
	}
}

// Without WithID every chart gets its own id, so two charts in one
// notebook never draw into the same div.
func TestDefaultIDsDiffer(t *testing.T) {
	a := paths.System().RenderSnippet().Element
	b := paths.System().RenderSnippet().Element
	if a == b {
		t.Error("two charts share a default id")
	}
	if el := paths.System(charts.WithID("a-b c")).RenderSnippet().Element; !strings.Contains(el, `id="a_b_c"`) {
		t.Errorf("id not sanitised: %s", el)
	}
}

var _ chart = (*ec.Graph)(nil)

// Every chart of the course goes to a notebook as data: no JavaScript
// function in its options (the renderer never runs code from an output).
func TestEveryChartIsPlainData(t *testing.T) {
	unit := readTrace(t, "trace.jsonl")
	tl := readTrace(t, "timeline.jsonl")
	s := metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{1000, 500}})
	runs := []labfig.Run{labRun("开环"), labRun("闭环")}
	for name, c := range map[string]web.Chart{
		"system_paths": paths.System(),
		"path_map":     paths.Map(unitPathMap()),
		"timeline":     tracefig.Timeline(&tl.Attempts[0]),
		"attempts":     tracefig.Attempts(unit, 1000),
		"ttft_cdf":     tracefig.TTFTDistribution(unit),
		"funnel_1s":    tracefig.Funnel(s, 0),
		"slo_sweep":    tracefig.SLOSweep(unit, nil, nil),
		"lab_send":     labfig.SendRate(runs, 1000, 10),
		"lab_queue":    labfig.Queue(runs),
		"lab_ttft":     labfig.TTFT(runs, 2500),
		"lab_busy":     labfig.BusyVsTTFT(runs[0], 1000),
	} {
		out, err := web.NotebookOutput(c)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if raw := out.Data[web.MIMEType].(string); strings.Contains(raw, "function") {
			t.Errorf("%s: option mentions a function:\n%s", name, raw)
		}
	}
}

func unitPathMap() card.PathMap {
	return card.PathMap{
		Task:          card.InferenceTask,
		SamplingPoint: "客户端发请求",
		SamplingNote:  "客户端单调时钟",
		Steps: []card.Step{
			{Name: "客户端发请求", Layer: card.Inference, Data: "提示词", Device: "客户端 CPU", Output: "HTTP 请求", Failure: "连接被拒"},
			{Name: "排队", Layer: card.Inference, Data: "请求队列", Device: "调度器", Output: "批次", Failure: "排队超时"},
			{Name: "模型执行", Layer: card.Device, Data: "KV cache", Device: "GPU", Output: "token", Failure: "显存不足"},
			{Name: "流式响应", Layer: card.Inference, Data: "token", Device: "网卡", Output: "SSE 事件", Failure: "流中断"},
		},
	}
}

// labTrace is a small run on a 3 s window: two successes in the first
// second, a success and a timeout with no first token in the second, a
// stream error after its first token and an attempt still in flight (not a
// failure, but in the denominator) in the third, and one success sent after
// the window.
func labTrace() *trace.Trace {
	ok := func(id string, start, ttft, end float64) trace.Attempt {
		return trace.Attempt{ID: id, Request: id, StartMS: start, Outcome: trace.OK, HTTPStatus: 200,
			Events: []trace.Event{{TMS: start + ttft, Tokens: 1}, {TMS: end - 10, Tokens: 1}}, EndMS: end, HasEnd: true}
	}
	return &trace.Trace{
		Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 3000}},
		Attempts: []trace.Attempt{
			ok("a", 0, 100, 400),
			ok("b", 200, 200, 700),
			ok("c", 1000, 800, 1900),
			{ID: "d", Request: "d", StartMS: 1500, Outcome: trace.Timeout, EndMS: 3500, HasEnd: true},
			{ID: "e", Request: "e", StartMS: 2500, Outcome: trace.StreamError, HTTPStatus: 200,
				Events: []trace.Event{{TMS: 2800, Tokens: 1}}, EndMS: 2900, HasEnd: true},
			{ID: "f", Request: "f", StartMS: 2900, Outcome: trace.InFlight},
			ok("g", 3100, 50, 3300),
		},
	}
}

func labRun(name string) labfig.Run {
	return labfig.Run{Name: name, Trace: labTrace(), Gauges: []labfig.Gauge{
		{TMS: 0, Busy: 0.2, QueueDepth: 0, BatchSize: 1},
		{TMS: 1000, Busy: 0.97, QueueDepth: 3, BatchSize: 4},
		{TMS: 2000, Busy: 1, QueueDepth: 7, BatchSize: 4},
		{TMS: 3200, Busy: 0.9, QueueDepth: 2, BatchSize: 4},
	}}
}
