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
	tpLate        = lang.Msg{"（其中 %d 次在窗口关闭后才结束，%d 次在窗口内结束）", " (%d of them ended after the window closed; %d ended within it)"}
	tpLateFlight  = lang.Msg{"（其中 %d 次在窗口关闭后才结束，%d 次在窗口内结束，%d 次仍在途）", " (%d of them ended after the window closed; %d ended within it; %d still in flight)"}
)

// EndedAfterTextIn is the clause set beside a rate over the window whose
// numerator counts attempts by send time: late of them ended after the
// window closed, within ended within it and inFlight had not ended
// (metrics.Throughput.EndedAfterWindow, EndedWithinWindow); "" when none
// ended after it.
func EndedAfterTextIn(l lang.Lang, late, within, inFlight int64) string {
	if late <= 0 {
		return ""
	}
	if inFlight > 0 {
		return tpLateFlight.F(l, late, within, inFlight)
	}
	return tpLate.F(l, late, within)
}

// GoodputLateTextIn is EndedAfterTextIn for c's goodput: "" when c is
// unknown or none of its qualified attempts ended after the window.
func GoodputLateTextIn(l lang.Lang, c metrics.Condition) string {
	if c.Unknown != "" {
		return ""
	}
	return EndedAfterTextIn(l, c.QualifiedEndedAfterWindow, c.QualifiedEndedWithinWindow, 0)
}

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
	late, within := t.EndedAfterWindow, t.EndedWithinWindow
	return []string{
		rate(t.CompleteSuccesses, tpSuccesses, perSecUnit.In(l)) + EndedAfterTextIn(l, late.CompleteSuccesses, within.CompleteSuccesses, 0),
		rate(t.Attempts, tpAttempts, perSecUnit.In(l)) + EndedAfterTextIn(l, late.Attempts, within.Attempts, s.InFlight),
		rate(t.OutputTokens, tpTokens, tpTokenPerSec.In(l)),
	}
}
