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

// InFlightCounter is InFlightAt for a trace streamed one attempt at a time:
// it keeps one count per time, not the attempts. Counters fed disjoint
// parts of a trace are added with Merge.
type InFlightCounter struct {
	at    []float64 // the times, ascending, distinct
	index []int     // index[i]: where atMS[i] is in at
	delta []int     // delta[j]: attempts started minus ended at or before at[j], not before at[j-1]
}

// NewInFlightCounter counts at the times of atMS (any order, repeats
// allowed).
func NewInFlightCounter(atMS []float64) *InFlightCounter {
	at := slices.Clone(atMS)
	slices.Sort(at)
	at = slices.Compact(at)
	c := &InFlightCounter{at: at, index: make([]int, len(atMS)), delta: make([]int, len(at)+1)}
	for i, x := range atMS {
		c.index[i], _ = slices.BinarySearch(at, x)
	}
	return c
}

// Add counts one attempt: it is in flight at every time x with
// start_ms ≤ x < end_ms (start_ms ≤ x when it has no end).
func (c *InFlightCounter) Add(a *trace.Attempt) {
	c.delta[sort.SearchFloat64s(c.at, a.StartMS)]++
	if a.HasEnd {
		c.delta[sort.SearchFloat64s(c.at, a.EndMS)]--
	}
}

// Merge adds the attempts counted by o, a counter at the same times.
func (c *InFlightCounter) Merge(o *InFlightCounter) {
	for i := range c.delta {
		c.delta[i] += o.delta[i]
	}
}

// Counts is the number in flight at each time of atMS, in its order.
func (c *InFlightCounter) Counts() []int {
	cum := make([]int, len(c.at))
	n := 0
	for j := range c.at {
		n += c.delta[j]
		cum[j] = n
	}
	out := make([]int, len(c.index))
	for i, j := range c.index {
		out[i] = cum[j]
	}
	return out
}

// Times are the distinct times the counter counts at, ascending.
func (c *InFlightCounter) Times() []float64 { return slices.Clone(c.at) }
