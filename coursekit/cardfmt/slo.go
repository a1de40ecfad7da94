package cardfmt

import (
	"fmt"
	"strings"

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
func jointRule(c metrics.Condition) string {
	if c.QualityRule == metrics.QualityNotJudged {
		return "完整成功 ∧ " + condName(c) + "；未评质量：只按时延判定"
	}
	return "完整成功 ∧ 质量通过 ∧ " + condName(c)
}

// latencyMethod defines the per-attempt checks, once per card that has them.
const latencyMethod = "逐次判定：E2E 是这次尝试从发送到流结束的时间；ITL P95 是这次尝试自身相邻文本事件间隔的 P95（最近秩）；" +
	"TPOT = (E2E − TTFT) / (输出 token − 1)；不足两个事件（或两个 token）的尝试没有间隔（或 TPOT），这一项不会超标；" +
	"检查顺序：完整成功、质量、TTFT、E2E、ITL P95、TPOT，未合格原因记在第一个没过的检查上"

func hasLatency(s *metrics.Summary) bool {
	for _, c := range s.Conditions {
		if c.LatencySLO.Set() {
			return true
		}
	}
	return false
}

// latencyDrops is the tail of the drops line for the SLOs beyond TTFT.
func latencyDrops(c metrics.Condition) string {
	if !c.LatencySLO.Set() {
		return ""
	}
	d := c.NotQualified
	return fmt.Sprintf(" · E2E 超过门槛 %d · ITL P95 超过门槛 %d · TPOT 超过门槛 %d", d.E2EOverSLO, d.ITLOverSLO, d.TPOTOverSLO)
}
