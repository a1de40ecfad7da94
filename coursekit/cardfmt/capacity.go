package cardfmt

import (
	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// The words of a capacity search (coursekit capacity, the lab's notebook
// 10): its joint-qualification rule and the names of its verdicts.

// CapacityRule is the joint-qualification rule of a capacity search in
// Chinese: complete success ∧ quality pass ∧ TTFT ≤ the SLO, and the
// latency SLOs beyond TTFT when there are any.
func CapacityRule(sloTTFTMS float64, lat metrics.LatencySLO) string {
	return CapacityRuleIn(lang.ZH, sloTTFTMS, lat)
}

// CapacityRuleIn is CapacityRule in lg.
func CapacityRuleIn(lg lang.Lang, sloTTFTMS float64, lat metrics.LatencySLO) string {
	rule := lg.F(lang.Msg{"完整成功 ∧ 质量通过 ∧ TTFT ≤ %s ms", "complete success ∧ quality pass ∧ TTFT ≤ %s ms"}, Num(sloTTFTMS))
	if l := LatencyName(lat); l != "" {
		rule += lg.F(lang.Msg{" ∧ %s；逐次判定；没有质量评判时只按时延判定", " ∧ %s; judged per attempt; latency alone when quality is not judged"}, l)
	}
	return rule
}

// capacityVerdicts name the verdicts of a capacity step (the constants of
// coursekit/capacity).
var capacityVerdicts = map[string]lang.Msg{
	capacity.Meets:       {"达标", "meets"},
	capacity.Fails:       {"不达标", "fails"},
	capacity.Undecided:   {"尚无定论", "undecided"},
	capacity.Interrupted: {"被中断", "interrupted"},
}

// CapacityVerdict names a step's verdict in Chinese: 达标, 不达标, 尚无定论
// or 被中断. An unknown code is returned as it is.
func CapacityVerdict(v string) string { return CapacityVerdictIn(lang.ZH, v) }

// CapacityVerdictIn is CapacityVerdict in lg.
func CapacityVerdictIn(lg lang.Lang, v string) string {
	if m, ok := capacityVerdicts[v]; ok {
		return m.In(lg)
	}
	return v
}
