package metrics

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

func unratedTrace(rate bool) *trace.Trace {
	tr := &trace.Trace{
		Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}},
		Attempts: []trace.Attempt{
			att("A1", 0, 100, ""), att("A2", 100, 200, ""),
			{ID: "F1", StartMS: 300, Outcome: trace.ConnectError, EndMS: 301, HasEnd: true},
		},
	}
	if rate {
		tr.Attempts[0].Quality = trace.Pass
	}
	return tr
}

// The unit's rule requires quality: with no attempt rated, which successes
// qualify is unknown, and so is goodput. The summary says unknown (null in
// its JSON, with the reason), never 0. One rated attempt makes the count a
// lower bound again (unrated is not a pass); a latency-only condition
// (latency SLOs, no judge) does not ask for quality and stays known; a
// trace without any complete success has a known 0.
func TestGoodputUnknownWhenNothingRated(t *testing.T) {
	s := Summarize(unratedTrace(false), Options{SLOsMS: []float64{1000}})
	c := s.Conditions[0]
	if c.Unknown != GoodputUnrated || c.Goodput.Value != nil || c.QualifiedRate.Value != nil || c.RequestQualifiedRat.Value != nil || c.CostPer1000 != nil {
		t.Fatalf("unrated: unknown %q, goodput %v, qualified rate %v; want unknown with nil values", c.Unknown, c.Goodput.Value, c.QualifiedRate.Value)
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"goodput_per_s":null`, `"qualified":null`, `"requests_qualified":null`, `"goodput_unknown":"quality_unrated"`, `"not_qualified":{"not_complete":1,"quality_fail":0,"quality_unrated":2`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("JSON lacks %s:\n%s", want, js)
		}
	}
	var back Summary
	if err := json.Unmarshal(js, &back); err != nil || back.Conditions[0].Unknown != GoodputUnrated {
		t.Errorf("read back: %v, unknown %q", err, back.Conditions[0].Unknown)
	}

	if c := Summarize(unratedTrace(true), Options{SLOsMS: []float64{1000}}).Conditions[0]; c.Unknown != "" || c.Qualified != 1 || c.Goodput.Value == nil {
		t.Errorf("one rated: %+v, want 1 qualified, known", c)
	}
	lat := Summarize(unratedTrace(false), Options{SLOsMS: []float64{1000}, Latency: LatencySLO{E2EMS: 5000}}).Conditions[0]
	if lat.Unknown != "" || lat.Qualified != 2 {
		t.Errorf("latency only: %+v, want 2 qualified, known", lat)
	}
	judged := Summarize(unratedTrace(false), Options{SLOsMS: []float64{1000}, Latency: LatencySLO{E2EMS: 5000}, Judged: true}).Conditions[0]
	if judged.Unknown != GoodputUnrated {
		t.Errorf("judge asked, nothing rated: unknown %q, want %q", judged.Unknown, GoodputUnrated)
	}
	failed := unratedTrace(false)
	failed.Attempts = failed.Attempts[2:]
	if c := Summarize(failed, Options{SLOsMS: []float64{1000}}).Conditions[0]; c.Unknown != "" || c.Goodput.Value == nil || *c.Goodput.Value != 0 {
		t.Errorf("no success: %+v, want a known 0", c)
	}
}
