package cardfmt

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// The capacity search's rule and verdicts, in both languages: the rule
// names the latency SLOs beyond TTFT when there are any.
func TestCapacityRuleAndVerdicts(t *testing.T) {
	if got := CapacityRule(1000, metrics.LatencySLO{}); got != "完整成功 ∧ 质量通过 ∧ TTFT ≤ 1000 ms" {
		t.Errorf("rule %q", got)
	}
	got := CapacityRuleIn(lang.EN, 500, metrics.LatencySLO{E2EMS: 3000})
	if got != "complete success ∧ quality pass ∧ TTFT ≤ 500 ms ∧ E2E ≤ 3 s; judged per attempt; latency alone when quality is not judged" {
		t.Errorf("rule %q", got)
	}
	for v, want := range map[string]string{"meets": "达标", "fails": "不达标", "undecided": "尚无定论", "interrupted": "被中断", "odd": "odd"} {
		if got := CapacityVerdict(v); got != want {
			t.Errorf("%s: %q, want %q", v, got, want)
		}
	}
	if got := CapacityVerdictIn(lang.EN, "undecided"); got != "undecided" {
		t.Errorf("English undecided: %q", got)
	}
}
