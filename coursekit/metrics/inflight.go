package metrics

import (
	"slices"
	"sort"

	"github.com/llmperf-course/course/coursekit/trace"
)

// InFlightAt counts, at each time of atMS (ms on the trace's clock), the
// attempts of t that the client had sent and not yet seen end: start_ms ≤ x
// < end_ms, or start_ms ≤ x for an attempt with no end (still in flight when
// the run stopped). Warm-up attempts and retries count: each is a request
// the server holds. It is the client's side of the server's own gauges
// (running + waiting requests) read at the same moments.
func InFlightAt(t *trace.Trace, atMS []float64) []int {
	starts := make([]float64, 0, len(t.Attempts))
	var ends []float64
	for i := range t.Attempts {
		a := &t.Attempts[i]
		starts = append(starts, a.StartMS)
		if a.HasEnd {
			ends = append(ends, a.EndMS)
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	out := make([]int, len(atMS))
	for i, x := range atMS {
		started := sort.Search(len(starts), func(k int) bool { return starts[k] > x })
		ended := sort.Search(len(ends), func(k int) bool { return ends[k] > x })
		out[i] = started - ended
	}
	return out
}
