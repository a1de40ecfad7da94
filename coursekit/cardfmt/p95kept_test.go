package cardfmt_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// One rule for every view of a summary: the summary always carries P95
// (JSON p95), and the Markdown card's table, the report's TTFT chart and its
// caption read it; so under --percentiles that leave it out (50,99) the
// text and Markdown cards still give P95, with its interval, and say why
// (walk: the text card had no P95 while the report's caption pointed at
// "the P95 on the card").
func TestCardAlwaysGivesP95(t *testing.T) {
	tr := unitTrace(t, "trace.jsonl")
	for _, c := range []struct {
		levels []float64
		added  bool
	}{
		{[]float64{0.5, 0.99}, true},
		{[]float64{0.999, 0.5}, true},
		{[]float64{0.5, 0.95}, false},
		{nil, false},
	} {
		s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}, Levels: c.levels})
		p95 := "P95 " + numfmt.Num(*s.TTFT.P95) + " ms"
		for _, l := range []lang.Lang{lang.ZH, lang.EN} {
			for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
				var out bytes.Buffer
				if err := cardfmt.WriteLang(&out, s, "trace.jsonl", f, l); err != nil {
					t.Fatal(err)
				}
				card := out.String()
				if !strings.Contains(card, p95) {
					t.Errorf("levels %v, %s %s: no %q in the card:\n%s", c.levels, l, f, p95, card)
				}
				if strings.Count(card, "P95 [") != 4 { // TTFT, E2E, event gaps, TPOT: each with its interval
					t.Errorf("levels %v, %s %s: %d P95 intervals, want 4", c.levels, l, f, strings.Count(card, "P95 ["))
				}
				if got := strings.Contains(card, cardfmt.P95Kept.In(l)); got != c.added {
					t.Errorf("levels %v, %s %s: the note that P95 is always listed: %v, want %v", c.levels, l, f, got, c.added)
				}
			}
		}
	}
}
