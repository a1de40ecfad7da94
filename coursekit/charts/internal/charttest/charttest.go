// Package charttest is what the tests of the chart packages share: the unit's traces, a chart's
// ECharts option as JSON, the hostile string every chart must escape, and a filled path map.
package charttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/web"
)

// Evil is text from a trace, a card or a roster that tries to leave its string: every chart
// must show it as text.
const Evil = `</script><img src=x onerror=alert(1)>`

// Chart is what every chart function returns.
type Chart interface {
	web.Snippeter
	JSON() map[string]interface{}
}

// UnitPath is the path of data/unit01/name, wherever the test runs from.
func UnitPath(name string) string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "..", "..", "data", "unit01", name)
}

// UnitTrace reads data/unit01/name.
func UnitTrace(t testing.TB, name string) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile(UnitPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// Option is the chart's ECharts option as indented JSON, after go-echarts has validated it
// (RenderSnippet runs the validation).
func Option(t testing.TB, c Chart) []byte {
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

// Decoded is the option as generic JSON, to look values up in tests.
func Decoded(t testing.TB, c Chart) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(Option(t, c), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Golden compares got with the golden file path, or rewrites the file when update is set (go
// test -update, after a deliberate change).
func Golden(t *testing.T, path string, got []byte, update bool) {
	t.Helper()
	if update {
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
}

// UnitPathMap is a filled path map of the unit's inference system.
func UnitPathMap() card.PathMap {
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

// LabTrace is a small run on a 3 s window: two successes in the first
// second, a success and a timeout with no first token in the second, a
// stream error after its first token and an attempt still in flight (not a
// failure, but in the denominator) in the third, and one success sent after
// the window.
func LabTrace() *trace.Trace {
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

// LabRun is LabTrace as a lab run named name, with server gauges through the window.
func LabRun(name string) labfig.Run {
	return labfig.Run{Name: name, Trace: LabTrace(), Gauges: []labfig.Gauge{
		{TMS: 0, Busy: 0.2, QueueDepth: 0, BatchSize: 1},
		{TMS: 1000, Busy: 0.97, QueueDepth: 3, BatchSize: 4},
		{TMS: 2000, Busy: 1, QueueDepth: 7, BatchSize: 4},
		{TMS: 3200, Busy: 0.9, QueueDepth: 2, BatchSize: 4},
	}}
}
