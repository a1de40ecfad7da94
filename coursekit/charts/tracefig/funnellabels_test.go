package tracefig_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/web"
)

// Every stage of the funnel is labelled (walk: on a narrow chart ECharts
// hid "完整成功" and the latency checks): the x axis shows every label
// (interval the number 0, as the notebook output and the page carry it),
// and each label is wrapped narrow enough for seven stages side by side,
// none of its text dropped.
func TestFunnelLabelsEveryStage(t *testing.T) {
	tr := readTrace(t, "trace.jsonl")
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 2000, ITLP95MS: 100, TPOTMS: 40}})
	stages := s.Stages(0)
	for _, c := range []struct {
		l    lang.Lang
		want []string
	}{
		{lang.ZH, []string{"全部尝试", "完整成功", "质量通过", "TTFT≤1s", "E2E≤2s", "ITLP95≤100ms", "联合合格（TPOT≤40ms/token）"}},
		{lang.EN, []string{"allattempts", "completesuccesses", "qualitypasses", "TTFT≤1s", "E2E≤2s", "ITLP95≤100ms", "qualified(TPOT≤40ms/token)"}},
	} {
		f := tracefig.Funnel(s, 0, charts.WithID("f"), charts.WithLang(c.l))
		out, err := web.NotebookOutput(f)
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			XAxis []struct {
				Data      []string `json:"data"`
				AxisLabel struct {
					Interval any `json:"interval"`
				} `json:"axisLabel"`
			} `json:"xAxis"`
		}
		if err := json.Unmarshal([]byte(out.Data[web.MIMEType].(string)), &o); err != nil {
			t.Fatal(err)
		}
		if len(o.XAxis) != 1 || o.XAxis[0].AxisLabel.Interval != float64(0) {
			t.Fatalf("%s: x axis %+v: want axisLabel.interval the number 0 (every label shown)", c.l, o.XAxis)
		}
		labels := o.XAxis[0].Data
		if len(labels) != len(stages) || len(labels) != len(c.want) {
			t.Fatalf("%s: %d labels for %d stages: %q", c.l, len(labels), len(stages), labels)
		}
		for i, label := range labels {
			if got := strings.Join(strings.Fields(label), ""); got != c.want[i] {
				t.Errorf("%s: stage %d's label %q reads %q, want %q", c.l, i, label, got, c.want[i])
			}
			for _, line := range strings.Split(label, "\n") {
				// 34/7 CJK characters a line for seven stages; a closing
				// mark may overhang by one.
				if w := draw.TextWidth(line); w > 34.0/7+1 {
					t.Errorf("%s: stage %d's label line %q is %.2f CJK characters wide: seven stages overlap", c.l, i, line, w)
				}
			}
		}
		if html := web.ChartHTMLIn(c.l, f.RenderSnippet()); !strings.Contains(html, `"interval":0`) || strings.Contains(html, `"interval":"0"`) {
			t.Errorf("%s: the page's option does not carry interval 0 as a number", c.l)
		}
	}
}
