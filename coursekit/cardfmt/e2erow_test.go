package cardfmt_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Walk 35h: the Markdown table of a TTFT ∧ E2E condition listed the TTFT
// and TPOT P95s but not the E2E P95 the condition judges. It does now,
// from the summary, and only where a condition has an E2E SLO.
func TestMarkdownTableShowsE2EP95WhereJudged(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}},
		Attempts: []trace.Attempt{ok("A", 0, trace.Pass), ok("B", 10, trace.Pass), ok("C", 20, trace.Pass)}}
	with := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 3000}})
	for _, tc := range []struct {
		l    lang.Lang
		want string
	}{{lang.EN, "| E2E P95 of successes | 200 ms"}, {lang.ZH, "| 成功 E2E P95 | 200 ms"}} {
		if c := summaryCardIn(t, with, cardfmt.Markdown, tc.l); !strings.Contains(c, tc.want) {
			t.Errorf("%s: the table lacks %q:\n%s", tc.l, tc.want, c)
		}
	}
	without := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}})
	if c := summaryCardIn(t, without, cardfmt.Markdown, lang.EN); strings.Contains(c, "E2E P95 of successes") {
		t.Errorf("no E2E SLO, yet an E2E P95 row:\n%s", c)
	}
}
