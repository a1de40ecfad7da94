package cardfmt

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
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

// An overloaded step's line names the signal or signals that failed it,
// in either language; a step that is not overloaded names none.
func TestCapacitySignals(t *testing.T) {
	both, err := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 20, WindowS: 3, Arrivals: 60, Completions: 30, InFlightStart: 10, InFlightEnd: 40, ExpectedInFlight: 12, Resolution: 5})
	if err != nil {
		t.Fatal(err)
	}
	grew, _ := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 14.5, WindowS: 4, Arrivals: 62, Completions: 46, InFlightStart: 1, InFlightEnd: 17, Resolution: 1})
	if !both.FellBehind || !both.Grew || grew.FellBehind || !grew.Grew {
		t.Fatalf("fixtures: %+v\n%+v", both, grew)
	}
	for _, c := range []struct {
		l      capacity.LoadCheck
		lg     lang.Lang
		want   string
		absent string
	}{
		{both, lang.EN, "the completion rate's 95% interval lies wholly below both the offered rate and the window's arrivals (completions fell behind), and the in-flight count grew from 10 to 40, 3.9 standard errors over the level a server keeping up holds (> 2.58)", ""},
		{both, lang.ZH, "完成速率的 95% 区间整个低于提供的速率和窗口里实际到达的速率（完成落后了），并且在途数从 10 涨到 40，超出跟得上的服务器该有的水平 3.9 个标准误（> 2.58）", ""},
		{grew, lang.EN, "the in-flight count grew from 1 to 17", "fell behind"},
	} {
		got := CapacitySignalsIn(c.lg, c.l)
		if exact := c.absent == ""; (exact && got != c.want) || (!exact && (!strings.HasPrefix(got, c.want) || strings.Contains(got, c.absent))) {
			t.Errorf("%v: %q, want %q", c.lg, got, c.want)
		}
	}
	light, _ := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 2, WindowS: 10, Arrivals: 9, Completions: 9, Resolution: 1})
	if s := CapacitySignalsIn(lang.EN, light); s != "" {
		t.Errorf("a step not overloaded: %q", s)
	}
}
