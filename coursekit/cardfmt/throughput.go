package cardfmt

import (
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

var throughputTitle = lang.Msg{"吞吐（分子 / 分母 = 值；分母是固定窗口，与 goodput 相同，尝试按发送时刻计入）", "Throughput (numerator / denominator = value; the denominator is the fixed window, as for goodput, and attempts count by send time)"}

var (
	rateLine      = lang.Msg{"%s：%s / %s s = %s", "%s: %s / %s s = %s"}
	tpSuccesses   = lang.Msg{"完整成功吞吐", "Complete-success throughput"}
	tpAttempts    = lang.Msg{"尝试吞吐（含失败）", "Attempt throughput (failures included)"}
	tpTokens      = lang.Msg{"输出 token 吞吐（只算完整成功）", "Output token throughput (complete successes only)"}
	tpTokenPerSec = lang.Msg{"token/s", "token/s"}
)

// throughputLines are the request and token throughput rows.
func throughputLines(l lang.Lang, s *metrics.Summary) []string {
	t := s.Throughput
	rate := func(r metrics.Ratio, what lang.Msg, unit string) string {
		v := noWindow.In(l)
		if r.Value != nil {
			v = num(*r.Value) + " " + unit
		}
		return rateLine.F(l, what.In(l), num(r.Num), num(r.Den), v)
	}
	return []string{
		rate(t.CompleteSuccesses, tpSuccesses, perSecUnit.In(l)),
		rate(t.Attempts, tpAttempts, perSecUnit.In(l)),
		rate(t.OutputTokens, tpTokens, tpTokenPerSec.In(l)),
	}
}
