package nb

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The bundle holds the report three ways: HTML with every trace name
// escaped, the Chinese text, and the JSON a tool reads back.
func TestComparisonBundle(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	o := compare.Options{}
	run := compare.Run{Name: `<img src=x onerror=alert(1)>`, Summary: cardopts.MustSummarize(tr, o.CardFlags(), cardopts.Resampling())}
	r, err := compare.Compare([]compare.Run{run}, []compare.Run{run}, o)
	if err != nil {
		t.Fatal(err)
	}
	b := ComparisonBundle(r)
	htm := b[protocol.MIMETextHTML].(string)
	if strings.Contains(htm, "<img") || !strings.Contains(htm, "&lt;img") || !strings.Contains(htm, "<table") {
		t.Errorf("html: %s", htm)
	}
	if txt := b[protocol.MIMETextPlain].(string); !strings.Contains(txt, "A/B 对照") || !strings.Contains(txt, "ttft_ms.p50") {
		t.Errorf("text: %s", txt)
	}
	var back struct {
		Metrics []struct{ Name, Verdict string }
	}
	if err := json.Unmarshal([]byte(b[protocol.MIMEType(compare.MIMEType)].(string)), &back); err != nil || len(back.Metrics) != len(r.Metrics) {
		t.Fatalf("json: %v, %d metrics", err, len(back.Metrics))
	}
	for _, m := range back.Metrics {
		if m.Verdict != compare.Same {
			t.Errorf("the same trace twice: %s is %s", m.Name, m.Verdict)
		}
	}
}
