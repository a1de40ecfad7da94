package labfig_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/web"
)

func engineRun() labfig.Run {
	ok := func(id string, start, ttft float64, meta string) trace.Attempt {
		a := trace.Attempt{ID: id, StartMS: start, Outcome: trace.OK, Events: []trace.Event{{TMS: start + ttft, Tokens: 1}}, EndMS: start + ttft + 5, HasEnd: true}
		if meta != "" {
			a.Meta = json.RawMessage(meta)
		}
		return a
	}
	return labfig.Run{Name: "真实引擎", Trace: &trace.Trace{
		Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 5000}},
		Attempts: []trace.Attempt{
			ok("q0", 0, 160, `{"server_timings":{"prompt_ms":157.5}}`),
			ok(evil, 500, 20, `{"server_timings":{"prompt_ms":15}}`),
			ok("q2", 1000, 100, `{"server_timings":{"prompt_ms":"x"}}`),
			ok("q3", 1500, 100, ""),
			ok("q4", 2000, 10, `{"server_timings":{"prompt_ms":30}}`), // TTFT below prompt_ms: not drawn
		}}}
}

func chartJSON(t *testing.T, c web.Chart) string {
	t.Helper()
	out, err := web.NotebookOutput(c)
	if err != nil {
		t.Fatal(err)
	}
	raw := out.Data[web.MIMEType].(string)
	if strings.Contains(raw, "function") || strings.Contains(raw, "<img") {
		t.Errorf("option is not plain, escaped data:\n%s", raw)
	}
	return raw
}

func TestServerSplitStacksPromptAndTheRest(t *testing.T) {
	raw := chartJSON(t, labfig.ServerSplit(engineRun()))
	for _, want := range []string{`"stack":"ttft"`, `"value":157.5`, `"value":2.5`, `"value":15`, `"value":5`,
		"2 次完整成功带服务器计时；另有 3 次没有可用的计时", "TTFT 160 ms = 服务器 prompt_ms 157.5 ms + 其余 2.5 ms"} {
		if !strings.Contains(raw, want) {
			t.Errorf("chart lacks %s:\n%s", want, raw)
		}
	}
}

func TestCompareLabelsEveryBarAndShowsMissing(t *testing.T) {
	v := 12.5
	raw := chartJSON(t, labfig.Compare("TTFT", "说明", "TTFT P50 (ms)", "ms", []string{"1 个槽位", evil}, []*float64{&v, nil}))
	for _, want := range []string{`"value":12.5`, `12.5 ms`, `"value":"-"`, `无`, "1 个槽位"} {
		if !strings.Contains(raw, want) {
			t.Errorf("chart lacks %s:\n%s", want, raw)
		}
	}
}

// A comparison bar's label is rounded the way cardfmt.Measure rounds:
// "2053 ms", "23.3 ms", never "2052.849 ms".
func TestCompareLabelsAreRounded(t *testing.T) {
	long, short := 2052.849, 23.345
	raw := chartJSON(t, labfig.Compare("TTFT", "说明", "TTFT P50（ms）", "ms", []string{"256 个词", "64 个词"}, []*float64{&long, &short}))
	for _, want := range []string{`2053 ms`, `23.3 ms`} {
		if !strings.Contains(raw, want) {
			t.Errorf("the labels lack %q", want)
		}
	}
	if strings.Contains(raw, `"formatter":"2052.849`) || strings.Contains(raw, "23.345 ms") {
		t.Errorf("a label prints three decimals:\n%s", raw)
	}
}
