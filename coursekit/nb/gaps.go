package nb

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Gaps are an attempt's event gaps in ms, one between each two adjacent
// events (trace.Attempt.EventIntervals), for a learner cell that prints
// them without Go's append idiom.
func Gaps(a trace.Attempt) []float64 { return a.EventIntervals(nil) }

// GapCount is how many event gaps an attempt has: one fewer than its
// events (none without two).
func GapCount(a trace.Attempt) int { return len(Gaps(a)) }

// GapSum is the sum of an attempt's event gaps in ms: t_N − t_1.
func GapSum(a trace.Attempt) float64 {
	sum := 0.0
	for _, g := range Gaps(a) {
		sum += g
	}
	return sum
}

// EventGapLines are a trace's events and the gaps between them, in
// Chinese: how many events carry more than one token, and the gaps'
// P50/P95/P99 under their own name. With multi-token events a gap is no
// ITL (05 §5), so 05 prints them here rather than read a field named ITL.
func EventGapLines(t *trace.Trace) string {
	s := cardopts.MustSummarize(t, cardopts.Flags{})
	e, g := s.Event, s.ITL
	return fmt.Sprintf("事件 %d 个，token %d 个；多 token 事件 %d 个，单个事件最多 %d 个 token\n", e.Events, e.Tokens, e.MultiTokenEvents, e.MaxTokensPerEvt) +
		fmt.Sprintf("事件间隔（不是 ITL）：P50 = %s，P95 = %s，P99 = %s（n = %d 个间隔）\n", MS(g.P50), MS(g.P95), MS(g.P99), g.N)
}

// TPOTLines are a trace's TPOT P50/P95/P99 in one line of Chinese, with
// the number of requests they come from: the per-request mean token gap
// after the first, beside EventGapLines' event gaps.
func TPOTLines(t *trace.Trace) string {
	p := cardopts.MustSummarize(t, cardopts.Flags{}).TPOT
	return fmt.Sprintf("TPOT：P50 = %s/token，P95 = %s/token，P99 = %s/token（n = %d 个请求）\n", MS(p.P50), MS(p.P95), MS(p.P99), p.N)
}

// TimingLines are one attempt's TTFT, event gaps, E2E and TPOT, one a
// line in Chinese, for a learner cell that changes a copy of the attempt
// (WithPause, WithEventTokens) and looks at what moved. A quantity the
// attempt does not have shows as 缺失.
func TimingLines(a trace.Attempt) string {
	show := func(v float64, ok bool, unit string) string {
		if !ok {
			return "缺失"
		}
		return Num(v) + " " + unit
	}
	ttft, tok := a.TTFT()
	e2e, eok := a.E2E()
	tpot, pok := a.TPOT()
	return fmt.Sprintf("TTFT = %s\n事件间隔 = %s\nE2E  = %s\nTPOT = %s\n",
		show(ttft, tok, "ms"), List(Gaps(a), "ms"), show(e2e, eok, "ms"), show(tpot, pok, "ms/token"))
}
