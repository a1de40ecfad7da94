package page_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/page"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/metrics"
)

var scriptSrc = regexp.MustCompile(`(?i)<script[^>]*\ssrc\s*=`)

// The report page is self-contained: ECharts is inlined once and no script
// is loaded from anywhere.
func TestPageOffline(t *testing.T) {
	tr := readTrace(t, "trace.jsonl")
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000, 500}})
	var b bytes.Buffer
	err := page.Write(&b, "报告", page.Card(s, "trace.jsonl"),
		page.Figure(tracefig.Attempts(tr, 1000, charts.WithID("a")), "全部尝试"),
		page.Figure(tracefig.TTFTDistribution(tr, charts.WithID("d")), "分布"))
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

// The header's strings in the card are escaped once: a clock "a</script>" shows as written,
// not as a literal "&lt;/script&gt;" (the attacker walk's 采集点 line).
func TestCardEscapesHeaderStringsOnce(t *testing.T) {
	tr := readTrace(t, "trace.jsonl")
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}})
	s.Clock, s.Currency = "a</script>", "C&D"
	var b bytes.Buffer
	if err := page.Write(&b, "报告", page.Card(s, "trace.jsonl")); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if strings.Contains(html, "&amp;lt;") || strings.Contains(html, "&amp;amp;") {
		t.Errorf("escaped twice: %q", regexp.MustCompile(`.{0,40}&amp;(lt|amp);.{0,40}`).FindAllString(html, -1))
	}
	if !strings.Contains(html, "a&lt;/script&gt;") {
		t.Error("clock not shown escaped once")
	}
	if strings.Contains(html, "a</script>") {
		t.Error("clock not escaped")
	}
}
