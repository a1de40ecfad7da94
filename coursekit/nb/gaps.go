package nb

import "github.com/llmperf-course/course/coursekit/trace"

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
