package cardfmt

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// The capacity search's rule and verdicts, in both languages: the rule
// names the latency SLOs beyond TTFT when there are any, and holds
// "∧ quality pass" only when answers are judged.
func TestCapacityRuleAndVerdicts(t *testing.T) {
	if got := CapacityRule(1000, metrics.LatencySLO{}, true); got != "完整成功 ∧ 质量通过 ∧ TTFT ≤ 1 s" {
		t.Errorf("rule %q", got)
	}
	if got := CapacityRuleIn(lang.EN, 500, metrics.LatencySLO{E2EMS: 3000}, true); got != "complete success ∧ quality pass ∧ TTFT ≤ 500 ms ∧ E2E ≤ 3 s; judged per attempt" {
		t.Errorf("judged rule %q", got)
	}
	if got := CapacityRuleIn(lang.EN, 500, metrics.LatencySLO{E2EMS: 3000}, false); got != "complete success ∧ TTFT ≤ 500 ms ∧ E2E ≤ 3 s; judged per attempt; quality not judged: latency only" {
		t.Errorf("latency-only rule %q", got)
	}
	if got := CapacityRule(500, metrics.LatencySLO{E2EMS: 3000}, false); got != "完整成功 ∧ TTFT ≤ 500 ms ∧ E2E ≤ 3 s；逐次判定；未评质量：只按时延判定" {
		t.Errorf("latency-only rule %q", got)
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
