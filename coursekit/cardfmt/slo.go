package cardfmt

import (
	"strings"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// LatencyName is "E2E ≤ 2 s ∧ ITL P95 ≤ 50 ms ∧ TPOT ≤ 40 ms/token", the
// SLOs beyond TTFT; "" when there are none.
func LatencyName(l metrics.LatencySLO) string {
	var parts []string
	if l.E2EMS > 0 {
		parts = append(parts, "E2E ≤ "+durName(l.E2EMS))
	}
	if l.ITLP95MS > 0 {
		parts = append(parts, "ITL P95 ≤ "+durName(l.ITLP95MS))
	}
	if l.TPOTMS > 0 {
		parts = append(parts, "TPOT ≤ "+num(l.TPOTMS)+" ms/token")
	}
	return strings.Join(parts, " ∧ ")
}

func durName(ms float64) string {
	if ms >= 1000 && int64(ms)%1000 == 0 {
		return num(ms/1000) + " s"
	}
	return num(ms) + " ms"
}

// condName names a condition by all its SLOs.
func condName(c metrics.Condition) string {
	if l := LatencyName(c.LatencySLO); l != "" {
		return sloName(c.SLOTTFTMS) + " ∧ " + l
	}
	return sloName(c.SLOTTFTMS)
}

// jointRule is the condition's definition of qualified, saying whether
// quality was required.
func jointRule(l lang.Lang, c metrics.Condition) string {
	if c.QualityRule == metrics.QualityNotJudged {
		return ruleLatencyOnly.F(l, condName(c))
	}
	return ruleJudged.F(l, condName(c))
}

var (
	ruleLatencyOnly = lang.Msg{"完整成功 ∧ %s；未评质量：只按时延判定", "complete success ∧ %s; quality not judged: latency only"}
	ruleJudged      = lang.Msg{"完整成功 ∧ 质量通过 ∧ %s", "complete success ∧ quality pass ∧ %s"}
)

// latencyMethod defines the per-attempt checks, once per card that has them.
var latencyMethod = lang.Msg{"逐次判定：E2E 是这次尝试从发送到流结束的时间；ITL P95 是这次尝试自身相邻文本事件间隔的 P95（最近秩）；" +
	"TPOT = (t_N − t_1) / (N − 1)，即首个 token 之后相邻 token 的平均间隔，N 为输出 token 数；不足两个事件（或两个 token）的尝试没有间隔（或 TPOT），这一项不会超标；" +
	"检查顺序：完整成功、质量、TTFT、E2E、ITL P95、TPOT，未合格原因记在第一个没过的检查上",
	"Judged per attempt: E2E is this attempt's time from sending to the end of the stream; ITL P95 is the P95 (nearest rank) of this attempt's own gaps between adjacent text events; " +
		"TPOT = (t_N − t_1) / (N − 1), the mean gap between tokens after the first, N the output tokens; an attempt with fewer than two events (or two tokens) has no gap (or TPOT) and cannot exceed that SLO; " +
		"checks in order: complete success, quality, TTFT, E2E, ITL P95, TPOT; an attempt that is not qualified is counted under the first check it failed"}

func hasLatency(s *metrics.Summary) bool {
	for _, c := range s.Conditions {
		if c.LatencySLO.Set() {
			return true
		}
	}
	return false
}

// judgesE2E says a condition of s has an E2E SLO.
func judgesE2E(s *metrics.Summary) bool {
	for _, c := range s.Conditions {
		if c.LatencySLO.E2EMS > 0 {
			return true
		}
	}
	return false
}

// dropsText lists the attempts a condition did not qualify by the first
// check they failed, one count for each check the condition's rule makes
// (Condition.Rule), in the order it makes them: "not complete 0 · TTFT
// over SLO 30 · E2E over SLO 0" for TTFT ≤ 1 s ∧ E2E ≤ 3 s with quality
// not judged. A check the rule does not make has no reason listed, as in
// the JSON card's not_qualified (metrics.Drops), unless it counted an
// attempt.
func dropsText(l lang.Lang, c metrics.Condition) string {
	r, d := c.Rule(), c.NotQualified
	var parts []string
	add := func(judged bool, m lang.Msg, n int64) {
		if judged || n != 0 {
			parts = append(parts, m.F(l, n))
		}
	}
	add(true, dropNotComplete, d.NotComplete)
	add(r.QualityRequired, dropQualityFail, d.QualityFail)
	add(r.QualityRequired, dropUnrated, d.QualityUnrated)
	add(true, dropTTFT, d.TTFTOverSLO)
	add(r.Latency.E2EMS > 0, dropE2E, d.E2EOverSLO)
	add(r.Latency.ITLP95MS > 0, dropITL, d.ITLOverSLO)
	add(r.Latency.TPOTMS > 0, dropTPOT, d.TPOTOverSLO)
	return strings.Join(parts, " · ")
}

var (
	dropNotComplete = lang.Msg{"未完整成功 %d", "not complete %d"}
	dropQualityFail = lang.Msg{"质量不通过 %d", "quality fail %d"}
	dropUnrated     = lang.Msg{"未评分 %d", "unrated %d"}
	dropTTFT        = lang.Msg{"TTFT 超过门槛 %d", "TTFT over SLO %d"}
	dropE2E         = lang.Msg{"E2E 超过门槛 %d", "E2E over SLO %d"}
	dropITL         = lang.Msg{"ITL P95 超过门槛 %d", "ITL P95 over SLO %d"}
	dropTPOT        = lang.Msg{"TPOT 超过门槛 %d", "TPOT over SLO %d"}
)

// RuleIn is a condition's definition of qualified in l, e.g. "完整成功 ∧
// 质量通过 ∧ TTFT ≤ 1 s", saying whether quality was required: the words
// every view of the condition uses (the card, the charts' subtitles).
func RuleIn(l lang.Lang, c metrics.Condition) string { return jointRule(l, c) }

// reasonNames name the first check an attempt failed, for every label of
// a verdict (charts, tables).
var reasonNames = map[metrics.Reason]lang.Msg{
	metrics.Qualified:      {"合格", "qualified"},
	metrics.NotComplete:    {"未完整成功", "not complete"},
	metrics.QualityFail:    {"质量不通过", "quality fail"},
	metrics.QualityUnrated: {"质量未评分", "quality unrated"},
	metrics.TTFTOverSLO:    {"TTFT 超过门槛", "TTFT over SLO"},
	metrics.E2EOverSLO:     {"E2E 超过门槛", "E2E over SLO"},
	metrics.ITLOverSLO:     {"ITL P95 超过门槛", "ITL P95 over SLO"},
	metrics.TPOTOverSLO:    {"TPOT 超过门槛", "TPOT over SLO"},
}

// ReasonNameIn names a verdict's reason in l (the code itself if unknown).
func ReasonNameIn(l lang.Lang, r metrics.Reason) string {
	if m, ok := reasonNames[r]; ok {
		return m.In(l)
	}
	return string(r)
}

// CheckLimitName is a latency check with its SLO, "TTFT ≤ 1 s",
// "E2E ≤ 2 s", "ITL P95 ≤ 50 ms", "TPOT ≤ 40 ms/token"; the bare check
// name for the others.
func CheckLimitName(st metrics.Stage) string {
	switch st.Check {
	case metrics.CheckTTFT:
		return sloName(st.LimitMS)
	case metrics.CheckE2E:
		return LatencyName(metrics.LatencySLO{E2EMS: st.LimitMS})
	case metrics.CheckITLP95:
		return LatencyName(metrics.LatencySLO{ITLP95MS: st.LimitMS})
	case metrics.CheckTPOT:
		return LatencyName(metrics.LatencySLO{TPOTMS: st.LimitMS})
	}
	return string(st.Check)
}

// CondName names a condition by all its SLOs: "TTFT ≤ 1 s ∧ E2E ≤ 2 s".
func CondName(c metrics.Condition) string { return condName(c) }
