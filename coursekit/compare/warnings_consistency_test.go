package compare

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
)

// The JSON's too_few_samples warning names only the metrics the text
// report names: a percentile unbounded on one side whose interval still
// excludes 0 has a verdict (the walk found ttft_ms.p95 listed as "can only
// be ~" beside its verdict "better").
func TestTooFewWarningSkipsMetricsWithAVerdict(t *testing.T) {
	low := "low"
	r := &Result{Metrics: []Metric{
		{Name: "ttft_ms.p95", Verdict: Better, NeedN: 72, Unbounded: &low},
		{Name: "ttft_ms.p99", Verdict: Same, NeedN: 368, Unbounded: &low},
	}}
	var got string
	for _, w := range r.warnings(lang.EN) {
		if w.Kind == WarnTooFew {
			got = w.Text
		}
	}
	if !strings.Contains(got, "ttft_ms.p99") || strings.Contains(got, "ttft_ms.p95") {
		t.Errorf("too_few_samples warning %q: want ttft_ms.p99 only", got)
	}
}
