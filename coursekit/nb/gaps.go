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
