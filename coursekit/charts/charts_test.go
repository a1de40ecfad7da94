package charts_test

import (
	"bytes"
	"strings"
	"testing"

	ec "github.com/go-echarts/go-echarts/v2/charts"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/charts/page"
	"github.com/llmperf-course/course/coursekit/charts/paths"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/web"
)

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
		"R1":                     "R1",
		"</script>":              "‹/script›",
		"{b}{c}":                 "｛b｝｛c｝",
		"a\nb\x00c":              "a b c",
		"__f__x__f__":            "_\u200b_f_\u200b_x_\u200b_f_\u200b_",
		"a\u202eb\u2066c\u009bd": `a\u202eb\u2066c\u009bd`, // bidi overrides and C1 shown escaped, never raw
		"l\u200er\u200fa\u061cx": `l\u200er\u200fa\u061cx`, // bidi marks too
		"p\u2028q\u2029r":        `p\u2028q\u2029r`,        // and the line and paragraph separators
		"__f__f__":               "_\u200b_f_\u200b_f__",
		strings.Repeat("长", 50):  strings.Repeat("长", charts.MaxLabelRunes) + "…",
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

// The helpers the chart packages' tests share (coursekit/charts/internal/charttest), under the
// names these tests use.
var (
	readTrace   = charttest.UnitTrace
	option      = charttest.Option
	decoded     = charttest.Decoded
	unitPathMap = charttest.UnitPathMap
	labTrace    = charttest.LabTrace
	labRun      = charttest.LabRun
)

type chart = charttest.Chart

const evil = charttest.Evil
