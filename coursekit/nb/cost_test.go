package nb

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// The unit's trace: 0.02 元 for the window, 5 qualified at 1 s; no cost
// when the trace has none, and none when nothing qualified.
func TestCostLine(t *testing.T) {
	tr := readUnit(t)
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000, 1}})
	if got := CostLine(s, s.Conditions[0]); !strings.Contains(got, "÷ 5 × 1000 = 4 ") || !strings.Contains(got, "千次合格") {
		t.Errorf("1 s: %q", got)
	}
	if got := CostLine(s, s.Conditions[1]); !strings.Contains(got, "缺失") || !strings.Contains(got, "没有一次合格") {
		t.Errorf("1 ms: %q", got)
	}
	s.WindowCost = nil
	if got := CostLine(s, s.Conditions[0]); !strings.Contains(got, "没有记录窗口成本") {
		t.Errorf("no cost: %q", got)
	}
}
