package tracefig_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The attempts chart's and the TTFT distribution's tooltips cut an id
// longer than 40 runes ("…") and printed TTFT and E2E at one decimal where
// the card prints three. The tooltip has the whole id, the axis still its
// short form, and the times at the card's precision; only an id far beyond
// any tool's (a hostile one) is cut, at draw's MaxTipIDRunes.
func TestTooltipsWholeIDCardPrecision(t *testing.T) {
	long := "conversation-0f3c2a7e-5b1d-4c9a-8e2f-7a6b5c4d3e2f/turn-3/attempt-1" // 66 runes
	hostile := strings.Repeat("x", 5000)
	mk := func(id string, s float64) trace.Attempt {
		return trace.Attempt{ID: id, Request: id, StartMS: s, Outcome: trace.OK,
			Events: []trace.Event{{TMS: s + 123.456, Tokens: 1}}, EndMS: s + 456.789, HasEnd: true}
	}
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000}},
		Attempts: []trace.Attempt{mk(long, 100.25), mk(hostile, 200)}}

	att := string(option(t, tracefig.Attempts(tr, 1000, charts.WithID("a"))))
	if !strings.Contains(att, long+" · 发起 100.25 ms") || !strings.Contains(att, "TTFT 123.456 ms · E2E 456.789 ms") {
		t.Errorf("attempts chart: no tooltip with the whole id %q and the card's precision", long)
	}
	m := decoded(t, tracefig.Attempts(tr, 1000, charts.WithID("a")))
	axis := m["yAxis"].([]any)[0].(map[string]any)["data"].([]any)
	for _, v := range axis {
		if strings.Contains(v.(string), long) || len(v.(string)) > 100 {
			t.Errorf("axis label %.60q… not shortened", v)
		}
	}
	if got := axis[0].(string); got != "…-3/attempt-1" {
		t.Errorf("axis label %q, want the id's own end \"…-3/attempt-1\"", got)
	}
	if strings.Contains(att, strings.Repeat("x", 257)) || !strings.Contains(att, strings.Repeat("x", 256)+"…") {
		t.Error("a 5,000-rune id is not cut at 256 runes in the tooltip")
	}

	dist := string(option(t, tracefig.TTFTDistribution(tr, charts.WithID("d"))))
	if !strings.Contains(dist, long+" · TTFT 123.456 ms") {
		t.Errorf("TTFT distribution: no tooltip with the whole id %q and TTFT 123.456 ms", long)
	}
}
