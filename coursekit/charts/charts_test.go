package charts_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	ec "github.com/go-echarts/go-echarts/v2/charts"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/web"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

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

// The golden files pin every chart's option JSON under a fixed id;
// `go test ./coursekit/charts -update` rewrites them after a deliberate change.
func TestGolden(t *testing.T) {
	unit := readTrace(t, "trace.jsonl")
	tl := readTrace(t, "timeline.jsonl")
	s := metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{1000, 500}})
	for name, c := range map[string]chart{
		"system_paths": charts.SystemPaths(charts.WithID("system_paths")),
		"path_map":     charts.PathMap(unitPathMap(), charts.WithID("path_map")),
		"timeline":     charts.Timeline(&tl.Attempts[0], charts.WithID("timeline")),
		"attempts":     charts.Attempts(unit, 1000, charts.WithID("attempts")),
		"ttft_cdf":     charts.TTFTDistribution(unit, charts.WithID("ttft_cdf")),
		"funnel_1s":    charts.Funnel(s, 0, charts.WithID("funnel_1s")),
		"slo_sweep":    charts.SLOSweep(unit, nil, nil, charts.WithID("slo_sweep")),
	} {
		t.Run(name, func(t *testing.T) {
			got := option(t, c)
			if !strings.Contains(c.RenderSnippet().Element, `id="`+name+`"`) {
				t.Errorf("chart id not fixed: %s", c.RenderSnippet().Element)
			}
			path := filepath.Join("testdata", name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file; if the change is intended, run go test -update\n--- got:\n%s", path, got)
			}
		})
	}
}

// Figure 01.1 draws every node: no coordinate is 0 (go-echarts would drop
// it and ECharts would not draw the node), and every link joins two nodes.
func TestSystemPathsNodesAndLinks(t *testing.T) {
	for name, c := range map[string]chart{
		"system":  charts.SystemPaths(charts.WithID("x")),
		"pathmap": charts.PathMap(unitPathMap(), charts.WithID("y")),
	} {
		m := decoded(t, c)
		series := m["series"].([]any)[0].(map[string]any)
		if series["layout"] != "none" {
			t.Errorf("%s: layout %v", name, series["layout"])
		}
		ids := map[string]bool{}
		names := map[string]bool{}
		for _, n := range series["data"].([]any) {
			n := n.(map[string]any)
			x, okx := n["x"].(float64)
			y, oky := n["y"].(float64)
			if !okx || !oky || x < 1 || y < 1 {
				t.Errorf("%s: node %v has coordinates (%v, %v), want both ≥ 1", name, n["name"], n["x"], n["y"])
			}
			id := n["id"].(string)
			if ids[id] {
				t.Errorf("%s: duplicate node id %q", name, id)
			}
			ids[id] = true
			names[n["name"].(string)] = true
		}
		for _, l := range series["links"].([]any) {
			l := l.(map[string]any)
			if !ids[l["source"].(string)] || !ids[l["target"].(string)] {
				t.Errorf("%s: link %v joins unknown nodes", name, l)
			}
		}
		if name == "system" {
			for _, want := range []string{"数据供给", "前向 / 反向 / 更新", "可恢复检查点", "验证、打包与发布",
				"客户端请求", "排队 / 模型执行", "流式响应", "CPU 与设备执行", "内存与存储", "设备通信", "资源调度"} {
				if !names[want] {
					t.Errorf("Figure 01.1 lacks %q", want)
				}
			}
			cats := series["categories"].([]any)
			var cn []string
			for _, c := range cats {
				cn = append(cn, c.(map[string]any)["name"].(string))
			}
			if strings.Join(cn, ",") != "设备层,训练层,推理层,平台层" {
				t.Errorf("categories %v", cn)
			}
		}
	}
}

// The learner's map marks data, device, output and failure on every step
// and pins the sampling point.
func TestPathMapMarks(t *testing.T) {
	pm := unitPathMap()
	pm.Steps[3].Failure = ""
	js := string(option(t, charts.PathMap(pm, charts.WithID("p"))))
	for _, want := range []string{"数据：提示词", "设备：GPU", "输出：SSE 事件", "失败：连接被拒", "失败：未标出", "采集点：客户端单调时钟", "#f2b600"} {
		if !strings.Contains(js, want) {
			t.Errorf("path map lacks %q", want)
		}
	}
	pm.SamplingPoint = "平台监控"
	js = string(option(t, charts.PathMap(pm, charts.WithID("p"))))
	if !strings.Contains(js, "不是路径上的步骤") {
		t.Error("a sampling point that is not a step is not called out")
	}
}

// Figure 01.2: TTFT 700, ITL 100 and 150, E2E 1000, and the 50 ms after the
// last event that makes E2E differ from TTFT + ΣITL.
func TestTimelineUnitFigure(t *testing.T) {
	tl := readTrace(t, "timeline.jsonl")
	js := string(option(t, charts.Timeline(&tl.Attempts[0], charts.WithID("t"))))
	for _, want := range []string{"t₀ = 0 ms 发起", "t₁ = 700 ms", "t₂ = 800 ms", "t₃ = 950 ms", "t_end = 1000 ms 结束",
		"TTFT 700 ms", "ITL 100", "ITL 150", "E2E = 1000 ms", "收尾 50", "ITL 之和 250", "E2E 不等于 ITL 之和", `"formatter": "{b}"`} {
		if !strings.Contains(js, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	// A multi-token event is labelled with its token count.
	a := tl.Attempts[0]
	a.Events = []trace.Event{{TMS: 700, Tokens: 1}, {TMS: 800, Tokens: 3}, {TMS: 950, Tokens: 1}}
	js = string(option(t, charts.Timeline(&a, charts.WithID("t"))))
	if !strings.Contains(js, "t₂ = 800 ms ×3 token") || !strings.Contains(js, "ITL 是事件间隔，不是 token 间隔") {
		t.Error("multi-token event not labelled")
	}
}

// seriesValues reads series i's data values (bar items or plain values).
func seriesValues(t testing.TB, m map[string]any, i int) []float64 {
	t.Helper()
	var out []float64
	for _, d := range m["series"].([]any)[i].(map[string]any)["data"].([]any) {
		switch v := d.(type) {
		case map[string]any:
			out = append(out, v["value"].(float64))
		case float64:
			out = append(out, v)
		}
	}
	return out
}

// The unit's denominator funnel: 10 → 8 → 7 → 5 at 1 s, with each drop's reason.
func TestFunnelUnitNumbers(t *testing.T) {
	s := metrics.Summarize(readTrace(t, "trace.jsonl"), metrics.Options{SLOsMS: []float64{1000, 500}})
	for i, want := range [][]float64{{10, 8, 7, 5}, {10, 8, 7, 4}} {
		m := decoded(t, charts.Funnel(s, i, charts.WithID("f")))
		if got := seriesValues(t, m, 0); !equal(got, want) {
			t.Errorf("condition %d: kept %v, want %v", i, got, want)
		}
		js, _ := json.Marshal(m)
		for _, reason := range []string{"超时 1", "连接失败 1", "质量不通过 1"} {
			if !strings.Contains(string(js), reason) {
				t.Errorf("condition %d: no reason %q", i, reason)
			}
		}
	}
	if js := string(option(t, charts.Funnel(s, 0, charts.WithID("f")))); !strings.Contains(js, "TTFT > 1 s:2") {
		t.Error("1 s funnel: TTFT drop reason missing")
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The sweep agrees with the unit: goodput 0.5/s and 4 元 per 1,000 at 1 s,
// 0.4/s and 5 元 at 0.5 s.
func TestSLOSweepUnitNumbers(t *testing.T) {
	m := decoded(t, charts.SLOSweep(readTrace(t, "trace.jsonl"), []float64{250, 750, 1500}, nil, charts.WithID("s")))
	series := m["series"].([]any)
	good := map[float64]float64{}
	for _, d := range series[0].(map[string]any)["data"].([]any) {
		v := d.(map[string]any)["value"].([]any)
		good[v[0].(float64)] = v[1].(float64)
	}
	cost := map[float64]any{}
	for _, d := range series[1].(map[string]any)["data"].([]any) {
		v := d.(map[string]any)["value"].([]any)
		cost[v[0].(float64)] = v[1]
	}
	if good[1000] != 0.5 || good[500] != 0.4 || cost[1000] != 4.0 || cost[500] != 5.0 {
		t.Errorf("goodput %v, cost %v", good, cost)
	}
	js, _ := json.Marshal(m)
	for _, want := range []string{`TTFT ≤ 1 s\n合格 5\n0.5 次/s\n4 元/千次`, `TTFT ≤ 500 ms\n合格 4\n0.4 次/s\n5 元/千次`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("mark %q missing", want)
		}
	}
}

// The TTFT distribution shows both P95s: 2000 ms by nearest-rank and
// 1720 ms by linear, from n = 8 successes.
func TestTTFTDistributionBothMethods(t *testing.T) {
	js := string(option(t, charts.TTFTDistribution(readTrace(t, "trace.jsonl"), charts.WithID("d"))))
	for _, want := range []string{"n = 8", "P95 最近秩 2000 ms", "P95 线性插值 1720 ms", "2 次尝试没有首个输出", "第 ⌈0.95×8⌉ = 8 个"} {
		if !strings.Contains(js, want) {
			t.Errorf("distribution lacks %q", want)
		}
	}
}

// Every attempt is a row, failures and in-flight included; a long trace
// scrolls instead of dropping rows.
func TestAttemptsKeepsEveryAttempt(t *testing.T) {
	unit := readTrace(t, "trace.jsonl")
	m := decoded(t, charts.Attempts(unit, 1000, charts.WithID("a")))
	ids := m["yAxis"].([]any)[0].(map[string]any)["data"].([]any)
	if len(ids) != 10 || ids[8] != "R9" || ids[9] != "R10" {
		t.Errorf("rows %v", ids)
	}
	js, _ := json.Marshal(m)
	for _, want := range []string{"首字前超时 · 2500 ms", "连接失败（无首字） · 3 ms", "TTFT 门槛 1 s", "质量不通过", "TTFT 超过门槛"} {
		if !strings.Contains(string(js), want) {
			t.Errorf("attempts chart lacks %q", want)
		}
	}
	if _, ok := m["dataZoom"]; ok {
		t.Error("10 attempts should fit without a slider")
	}

	practice := readTrace(t, "practice.jsonl")
	m = decoded(t, charts.Attempts(practice, 1000, charts.WithID("p")))
	if n := len(m["yAxis"].([]any)[0].(map[string]any)["data"].([]any)); n != len(practice.Attempts) {
		t.Errorf("practice: %d rows for %d attempts", n, len(practice.Attempts))
	}
	if _, ok := m["dataZoom"]; !ok {
		t.Error("practice: no slider")
	}
	js, _ = json.Marshal(m)
	if !strings.Contains(string(js), "在途（画到采集结束 97400 ms）") {
		t.Error("practice: in-flight attempts not drawn to the capture edge")
	}
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
		charts.Timeline(&tr.Attempts[0]),
		charts.Attempts(tr, 1000),
		charts.TTFTDistribution(tr),
		charts.SLOSweep(tr, nil, nil),
		charts.Funnel(s, 0),
		charts.PathMap(pm),
	}
	var page bytes.Buffer
	var parts []charts.Part
	for _, c := range cs {
		parts = append(parts, charts.Figure(c, evil))
	}
	parts = append(parts, charts.Card(s, evil), charts.Text(evil))
	if err := charts.Page(&page, evil, parts...); err != nil {
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
	body := strings.Replace(page.String(), web.InlineEChartsScript(), "<script></script>", 1)
	if body == page.String() {
		t.Fatal("page does not inline ECharts")
	}
	check("page", body)
	for _, c := range cs {
		check("ChartHTML", web.ChartHTML(c.RenderSnippet()))
		type contenter interface{ RenderContent() []byte }
		check("go-echarts RenderContent", string(c.(contenter).RenderContent()))
	}
	if !strings.Contains(page.String(), "‹/script›‹img src=x onerror=alert(1)›") {
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

var scriptSrc = regexp.MustCompile(`(?i)<script[^>]*\ssrc\s*=`)

// The report page is self-contained: ECharts is inlined once and no script
// is loaded from anywhere.
func TestPageOffline(t *testing.T) {
	tr := readTrace(t, "trace.jsonl")
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000, 500}})
	var b bytes.Buffer
	err := charts.Page(&b, "报告", charts.Card(s, "trace.jsonl"),
		charts.Figure(charts.Attempts(tr, 1000, charts.WithID("a")), "全部尝试"),
		charts.Figure(charts.TTFTDistribution(tr, charts.WithID("d")), "分布"))
	if err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if scriptSrc.MatchString(html) {
		t.Error("page loads a script from a src")
	}
	if regexp.MustCompile(`(?i)<(link|img|iframe)[^>]*(href|src)\s*=\s*"?https?:`).MatchString(html) {
		t.Error("page references a remote resource")
	}
	if n := strings.Count(html, "if(!window.echarts)"); n != 1 {
		t.Errorf("ECharts inlined %d times", n)
	}
	for _, want := range []string{`<meta charset="utf-8">`, "指标口径卡", "<table>", "<th>指标</th>", "联合合格", `id="a"`, `id="d"`} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// Without WithID every chart gets its own id, so two charts in one
// notebook never draw into the same div.
func TestDefaultIDsDiffer(t *testing.T) {
	a := charts.SystemPaths().RenderSnippet().Element
	b := charts.SystemPaths().RenderSnippet().Element
	if a == b {
		t.Error("two charts share a default id")
	}
	if el := charts.SystemPaths(charts.WithID("a-b c")).RenderSnippet().Element; !strings.Contains(el, `id="a_b_c"`) {
		t.Errorf("id not sanitised: %s", el)
	}
}

var _ chart = (*ec.Graph)(nil)

// A failure has no TTFT: the timeline says it is missing, not 0; an
// in-flight attempt has no end.
func TestTimelineWithoutTTFTOrEnd(t *testing.T) {
	unit := readTrace(t, "trace.jsonl")
	js := string(option(t, charts.Timeline(&unit.Attempts[8], charts.WithID("r9"))))
	for _, want := range []string{"结果：首字前超时", "TTFT 缺失（不是 0）", "E2E = 2500 ms"} {
		if !strings.Contains(js, want) {
			t.Errorf("R9 timeline lacks %q", want)
		}
	}
	a := unit.Attempts[0]
	a.Outcome, a.HasEnd, a.EndMS = trace.InFlight, false, 0
	js = string(option(t, charts.Timeline(&a, charts.WithID("fly"))))
	if !strings.Contains(js, "在途：还没有结束，E2E 缺失") || strings.Contains(js, "t_end") {
		t.Error("in-flight timeline should have no end")
	}
}

// Every chart of the course goes to a notebook as data: no JavaScript
// function in its options (the renderer never runs code from an output).
func TestEveryChartIsPlainData(t *testing.T) {
	unit := readTrace(t, "trace.jsonl")
	tl := readTrace(t, "timeline.jsonl")
	s := metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{1000, 500}})
	runs := []charts.LabRun{labRun("开环"), labRun("闭环")}
	for name, c := range map[string]web.Chart{
		"system_paths": charts.SystemPaths(),
		"path_map":     charts.PathMap(unitPathMap()),
		"timeline":     charts.Timeline(&tl.Attempts[0]),
		"attempts":     charts.Attempts(unit, 1000),
		"ttft_cdf":     charts.TTFTDistribution(unit),
		"funnel_1s":    charts.Funnel(s, 0),
		"slo_sweep":    charts.SLOSweep(unit, nil, nil),
		"lab_send":     charts.LabSendRate(runs, 1000, 10),
		"lab_queue":    charts.LabQueue(runs),
		"lab_ttft":     charts.LabTTFT(runs, 2500),
		"lab_busy":     charts.LabBusyVsTTFT(runs[0], 1000),
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

// The sampling note is shown whole (wrapped), on the side of the pin that
// has room: the last step's note used to run off the chart ("采集点:在客户…").
func TestPathMapSamplingNoteIsWholeAndInside(t *testing.T) {
	const note = "在客户端用同一个单调时钟记下发起、每个事件到达和结束的时刻"
	pm := unitPathMap()
	pm.SamplingNote = note
	pm.SamplingPoint = pm.Steps[len(pm.Steps)-1].Name
	m := decoded(t, charts.PathMap(pm, charts.WithID("p")))
	var label map[string]any
	for _, n := range m["series"].([]any)[0].(map[string]any)["data"].([]any) {
		if node := n.(map[string]any); strings.HasSuffix(node["id"].(string), "_sample") {
			label = node["label"].(map[string]any)
		}
	}
	if label == nil {
		t.Fatal("no sampling pin")
	}
	text := strings.ReplaceAll(label["formatter"].(string), "\n", "")
	if text != "采集点："+note || strings.Contains(text, "…") {
		t.Errorf("note cut: %q", label["formatter"])
	}
	if label["position"] != "left" {
		t.Errorf("the last step's note must open to the left, got %v", label["position"])
	}
	for _, line := range strings.Split(label["formatter"].(string), "\n") {
		if n := len([]rune(line)); n > 14 {
			t.Errorf("line of %d characters: %q", n, line)
		}
	}
}

// A failed attempt's tooltip explains its error in Chinese and keeps the
// trace's own text beside it.
func TestAttemptsTooltipExplainsTheError(t *testing.T) {
	opt := charts.Attempts(readTrace(t, "trace.jsonl"), 1000).RenderSnippet().Option
	for _, want := range []string{"连接被拒绝", "原文：connect: connection refused", "首字前超时：", "原文：no first token within 2500 ms"} {
		if !strings.Contains(opt, want) {
			t.Errorf("the attempts chart lacks %q", want)
		}
	}
}

// No text of a learner's path map is cut: long step names, marks, failure
// points and a sampling point that is not on the path all show whole
// (wrapped), with no "…" and no character alone on a line.
func TestPathMapNeverTruncates(t *testing.T) {
	pm := unitPathMap()
	pm.Steps[1].Name = "分配到某个推理实例的调度器并等待空闲的时刻"
	pm.Steps[1].Data = "请求队列中的提示词与采样参数"
	pm.Steps[1].Device = "网关所在主机的 CPU 与内存"
	pm.Steps[1].Output = "进入某个实例连续批处理的批次"
	pm.Steps[1].Failure = "排队超过客户端的超时仍未被分配到实例"
	pm.SamplingPoint = "在客户端收到第一个有效输出的那一刻"
	m := decoded(t, charts.PathMap(pm, charts.WithID("p")))
	var shown []string
	for _, n := range m["series"].([]any)[0].(map[string]any)["data"].([]any) {
		node := n.(map[string]any)
		shown = append(shown, node["name"].(string))
		if l, ok := node["label"].(map[string]any); ok {
			if f, ok := l["formatter"].(string); ok {
				shown = append(shown, f)
			}
		}
	}
	shown = append(shown, m["title"].(map[string]any)["subtext"].(string))
	all := strings.Join(shown, "\n")
	if strings.Contains(all, "…") {
		t.Errorf("the path map cuts text: %q", all)
	}
	flat := strings.ReplaceAll(strings.ReplaceAll(all, "\n", ""), " ", "")
	st := pm.Steps[1]
	for _, want := range []string{st.Name, st.Data, st.Device, st.Output, st.Failure, pm.SamplingPoint} {
		if !strings.Contains(flat, strings.ReplaceAll(want, " ", "")) {
			t.Errorf("%q is not shown whole", want)
		}
	}
	for _, s := range shown {
		lines := strings.Split(s, "\n")
		if last := []rune(lines[len(lines)-1]); len(lines) > 1 && len(last) == 1 {
			t.Errorf("%q leaves one character alone on a line", s)
		}
	}
}
