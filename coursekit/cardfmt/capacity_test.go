package cardfmt

import (
	"strings"
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

// The line capacity prints up front when its first window cannot hold the
// attempts meeting the target needs (walk 35e, F7), in zh and en; none
// when it can; and, when not even --step-max-duration can at --start-rate,
// that the first step cannot meet.
func TestCapacityShortStart(t *testing.T) {
	en := CapacityShortStartIn(lang.EN, 1, 10, 40, 35)
	if want := "the first window (--step-duration 10 s × --start-rate 1 req/s) holds about 10 attempts: the first steps will be extended up to --step-max-duration 40 s to gather the 35 attempts meeting the target needs: at --start-rate 1 req/s, a window of about 35 s; a higher --start-rate shortens the search"; en != want {
		t.Errorf("en\n%q\nwant\n%q", en, want)
	}
	zh := CapacityShortStartIn(lang.ZH, 1, 10, 40, 35)
	if want := "第一个窗口（--step-duration 10 s × --start-rate 1 次/s）约 10 次尝试：最初几步的窗口会延长，至多到 --step-max-duration 40 s，以攒够达标所需的 35 次尝试，在 --start-rate 1 次/s 下约要 35 s 的窗口；更高的 --start-rate 能缩短搜索"; zh != want {
		t.Errorf("zh\n%q\nwant\n%q", zh, want)
	}
	if got := CapacityShortStartIn(lang.EN, 4, 10, 40, 35); got != "" {
		t.Errorf("a first window of 40 attempts: %q", got)
	}
	if got := CapacityShortStartIn(lang.EN, 0.5, 10, 40, 35); !strings.Contains(got, "holds about 20 attempts, fewer than the 35 meeting the target needs (a window of about 70 s), so it cannot meet") {
		t.Errorf("a first step that cannot meet: %q", got)
	}
	if got := CapacityShortStartIn(lang.ZH, 0.5, 10, 40, 35); !strings.Contains(got, "它不可能达标") {
		t.Errorf("zh, a first step that cannot meet: %q", got)
	}
}
